package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFlows writes name → source files into a new temp folder.
func writeFlows(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSingleFileCallsResolved: `rpa check FILE` and `rpa run FILE` resolve
// `call` targets in the file's folder; run stops with exit 2 before any
// browser starts (the --browser-bin given does not exist, so a launch would
// say "could not be started" and exit 1).
func TestSingleFileCallsResolved(t *testing.T) {
	dir := writeFlows(t, map[string]string{
		"caller.flow": "flow caller\nx = call missing_flow with: {\"a\": 1}\n",
		"a.flow":      "flow a\nx = call b\n",
		"b.flow":      "flow b\nx = call a\n",
	})
	var out, errb bytes.Buffer
	if code := runCheck([]string{filepath.Join(dir, "caller.flow")}, &out, &errb); code != exitFailed ||
		!strings.Contains(errb.String(), `unknown flow "missing_flow"`) {
		t.Errorf("check caller.flow: exit %d, stderr %q", code, errb.String())
	}
	// A call cycle is only a warning (recursion with a stopping condition is
	// allowed); check prints it and exits 0.
	out.Reset()
	errb.Reset()
	if code := runCheck([]string{filepath.Join(dir, "a.flow")}, &out, &errb); code != exitOK ||
		!strings.Contains(out.String()+errb.String(), "call cycle: a → b → a") {
		t.Errorf("check a.flow: exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
	for _, c := range []struct{ file, want string }{
		{"caller.flow", `unknown flow "missing_flow"`},
	} {
		out.Reset()
		errb.Reset()
		code := runRun(context.Background(), []string{filepath.Join(dir, c.file), "--browser-bin", filepath.Join(dir, "no-chromium")},
			runIO{stdout: &out, stderr: &errb})
		if code != exitUsage || !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), "browser") {
			t.Errorf("run %s: exit %d (want %d), stderr %q", c.file, code, exitUsage, errb.String())
		}
	}
}

// TestCheckEmptyFolder: a folder with no flow file is bad input (exit 2),
// not "0 clean flows".
func TestCheckEmptyFolder(t *testing.T) {
	dir := writeFlows(t, map[string]string{"notes.txt": "x"})
	var out, errb bytes.Buffer
	code := runCheck([]string{dir}, &out, &errb)
	if code != exitUsage || !strings.Contains(errb.String(), "no flow files in "+dir) || out.Len() != 0 {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errb.String())
	}
}

// TestFmtYAMLCommentsNoted: fmt cannot keep YAML comments; it says how
// many are dropped (-w in place, to stdout, and YAML → .flow) and says
// nothing for a YAML file without comments.
func TestFmtYAMLCommentsNoted(t *testing.T) {
	src := "# header\nflow: c   # trailing\nsteps:\n  # before click\n  - click: \"#a\"\n"
	dir := writeFlows(t, map[string]string{"c.yaml": src, "plain.yaml": "flow: p\nsteps:\n  - click: \"#a\"\n"})
	for _, args := range [][]string{
		{"-w", filepath.Join(dir, "c.yaml")},
		{filepath.Join(dir, "c.yaml")},
		{"--to", "flow", filepath.Join(dir, "c.yaml")},
	} {
		os.WriteFile(filepath.Join(dir, "c.yaml"), []byte(src), 0o644)
		var out, errb bytes.Buffer
		if code := runFmt(args, &out, &errb); code != exitOK || !strings.Contains(errb.String(), "c.yaml: 3 comments are not kept") {
			t.Errorf("fmt %v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	var out, errb bytes.Buffer
	if code := runFmt([]string{filepath.Join(dir, "plain.yaml")}, &out, &errb); code != exitOK || errb.Len() != 0 {
		t.Errorf("fmt plain.yaml: exit %d, stderr %q", code, errb.String())
	}
}

// TestSchemaPublishBadPath: a missing file, a folder or a non-flow file is
// bad input (exit 2) said as "rpa CMD: ...", never "FILE:0:0: error".
func TestSchemaPublishBadPath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	wd, _ := os.Getwd()
	dir := writeFlows(t, map[string]string{"notes.txt": "x", "ok.flow": "flow ok\nclick \"#a\"\n"})
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"schema", filepath.Join(dir, "nonexist.flow")}, "rpa schema: open " + filepath.Join(dir, "nonexist.flow") + ": no such file"},
		{[]string{"schema", dir}, "is a folder"},
		{[]string{"schema", filepath.Join(dir, "notes.txt")}, "not a flow file"},
		{[]string{"publish", dir, "--flows", filepath.Join(dir, "pub")}, "rpa publish: " + dir + " is a folder"},
		{[]string{"publish", filepath.Join(dir, "nonexist.flow"), "--flows", filepath.Join(dir, "pub")}, "rpa publish: open "},
	} {
		code, _, errs := chkExec(t, wd, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) || strings.Contains(errs, ":0:0:") {
			t.Errorf("rpa %v: exit %d, stderr %q (want %q)", c.args, code, errs, c.want)
		}
	}
	if code, out, errs := chkExec(t, wd, "schema", filepath.Join(dir, "ok.flow")); code != 0 || !strings.Contains(out, "workflow_ok") {
		t.Errorf("schema ok.flow: exit %d, %q %q", code, out, errs)
	}
}
