package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/yamlflow"
)

var (
	chkBinOnce sync.Once
	chkBin     string
	chkBinErr  error
)

// chkBinary builds the rpa binary once per test run.
func chkBinary(t *testing.T) string {
	t.Helper()
	chkBinOnce.Do(func() {
		dir, err := binDir("rpa-bin-")
		if err != nil {
			chkBinErr = err
			return
		}
		chkBin = filepath.Join(dir, "rpa")
		out, err := exec.Command("go", "build", "-o", chkBin, ".").CombinedOutput()
		if err != nil {
			chkBinErr = &buildError{string(out)}
		}
	})
	if chkBinErr != nil {
		t.Fatalf("build rpa: %v", chkBinErr)
	}
	return chkBin
}

type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// chkExec runs the built binary and returns its exit code and output.
func chkExec(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(chkBinary(t), args...)
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

const testdata = "../../lang/testdata"

func TestCheckCommand(t *testing.T) {
	cases := []struct {
		name      string
		args      []string
		code      int
		stdout    string   // substring
		stderrHas []string // substrings
	}{
		{"clean flow", []string{testdata + "/examples/query_power_data.flow"}, 0, "1 clean flow, 0 errors, 0 warnings", nil},
		{"clean yaml", []string{testdata + "/examples/order_logistics.yaml"}, 0, "1 clean flow, 0 errors, 0 warnings", nil},
		{"several files", []string{testdata + "/examples/query_power_data.flow", testdata + "/examples/order_logistics.flow"}, 0, "2 clean flows", nil},
		{"errors", []string{testdata + "/check/errors.flow"}, 1, "0 clean flows, 14 errors, 2 warnings",
			[]string{"errors.flow:12:1: error: unknown action \"clik\"\n    clik \"#submit\"\n    ^~~~\n    did you mean \"click\"?\n"}},
		{"oneline", []string{"-oneline", testdata + "/check/errors.flow"}, 1, "14 errors",
			[]string{"errors.flow:12:1: error: unknown action \"clik\"; did you mean \"click\"?\n"}},
		{"warnings only pass", []string{testdata + "/check/warnings.flow"}, 0, "1 clean flow, 0 errors, 3 warnings",
			[]string{"warning: param \"unused\" is never used"}},
		{"folder", []string{testdata + "/check/folder"}, 1, "1 clean flow, 5 errors",
			[]string{"unknown flow \"helpr\"", "also defined in twin_b.flow"}},
		{"no args", nil, 2, "", []string{"usage: rpa check"}},
		{"missing file", []string{"nope.flow"}, 2, "", []string{"nope.flow"}},
		{"not a flow", []string{"check.go"}, 2, "", []string{"not a flow file"}},
		{"help", []string{"-h"}, 0, "", []string{"usage: rpa check", "-oneline"}},
		{"bad flag", []string{"-zz"}, 2, "", []string{"flag provided but not defined"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := runCheck(c.args, &out, &errb)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), c.stdout) {
				t.Errorf("stdout %q lacks %q", out.String(), c.stdout)
			}
			for _, s := range c.stderrHas {
				if !strings.Contains(errb.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, errb.String())
				}
			}
		})
	}
}

// TestBinaryExitCodes runs the built binary: the exit codes are the
// contract scripts and CI rely on.
func TestBinaryExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	wd, _ := os.Getwd()
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"check", testdata + "/examples/query_power_data.yaml"}, 0, "1 clean flow"},
		{[]string{"check", testdata + "/check/errors.flow"}, 1, "14 errors"},
		{[]string{"check"}, 2, ""},
		{[]string{"help"}, 0, "commands:"},
		{[]string{"help", "fmt"}, 0, "usage: rpa fmt"},
		{[]string{"help", "nosuch"}, 2, ""},
		{[]string{}, 2, ""},
		{[]string{"chek"}, 2, ""},
		{[]string{"fmt", testdata + "/examples/order_logistics.yaml"}, 0, "flow: order_logistics"},
		{[]string{"fmt", "--to", "toml", testdata + "/examples/order_logistics.yaml"}, 2, ""},
	} {
		code, out, errs := chkExec(t, wd, c.args...)
		if code != c.code || !strings.Contains(out, c.out) {
			t.Errorf("rpa %v: exit %d (want %d), stdout %q (want %q), stderr %q", c.args, code, c.code, out, c.out, errs)
		}
	}
	if _, _, errs := chkExec(t, wd, "chek"); !strings.Contains(errs, `did you mean "check"?`) {
		t.Errorf("no suggestion for a mistyped command: %q", errs)
	}
}

func TestFmtCommand(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile(testdata + "/examples/order_logistics.flow")
	if err != nil {
		t.Fatal(err)
	}
	flowPath := filepath.Join(dir, "o.flow")
	os.WriteFile(flowPath, src, 0o600)

	// stdout, comments kept, idempotent
	var out, errb bytes.Buffer
	if code := runFmt([]string{flowPath}, &out, &errb); code != 0 {
		t.Fatalf("fmt: %d %s", code, errb.String())
	}
	first := out.String()
	if !strings.Contains(first, "# order_logistics.flow") {
		t.Errorf("comments lost:\n%s", first)
	}
	os.WriteFile(filepath.Join(dir, "again.flow"), []byte(first), 0o600)
	out.Reset()
	runFmt([]string{filepath.Join(dir, "again.flow")}, &out, &errb)
	if out.String() != first {
		t.Errorf("fmt is not idempotent:\n%s\n---\n%s", first, out.String())
	}

	// --to yaml to stdout: same flow, comments reported as dropped
	out.Reset()
	errb.Reset()
	if code := runFmt([]string{"--to", "yaml", flowPath}, &out, &errb); code != 0 {
		t.Fatalf("fmt --to yaml: %d %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "comments are not kept in YAML") {
		t.Errorf("no note about dropped comments: %q", errb.String())
	}
	y, ds := yamlflow.Parse("o.yaml", out.Bytes())
	f, _ := lang.Parse(flowPath, src)
	if len(ds) > 0 || !ast.Equal(f, y) {
		t.Errorf("--to yaml output is not the same flow: %v\n%s", ds, out.String())
	}

	// -w --to yaml writes o.yaml next to o.flow and keeps o.flow
	out.Reset()
	if code := runFmt([]string{"-w", "--to", "yaml", flowPath}, &out, &errb); code != 0 {
		t.Fatalf("-w --to yaml: %d", code)
	}
	yb, err := os.ReadFile(filepath.Join(dir, "o.yaml"))
	if err != nil || strings.TrimSpace(out.String()) != filepath.Join(dir, "o.yaml") {
		t.Fatalf("o.yaml not written (%v), stdout %q", err, out.String())
	}
	if _, err := os.Stat(flowPath); err != nil {
		t.Errorf("original removed: %v", err)
	}
	// and back: YAML -> flow -w gives a .flow equal to the original tree
	os.Remove(flowPath)
	out.Reset()
	if code := runFmt([]string{"-w", "--to", "flow", filepath.Join(dir, "o.yaml")}, &out, &errb); code != 0 {
		t.Fatalf("-w --to flow: %d %s", code, errb.String())
	}
	back, _ := os.ReadFile(flowPath)
	g, ds := lang.Parse(flowPath, back)
	if len(ds) > 0 || !ast.Equal(f, g) {
		t.Errorf("YAML -> flow differs: %v\n%s\nfrom\n%s", ds, back, yb)
	}

	// -w in place is idempotent and leaves a formatted file alone
	messy := filepath.Join(dir, "m.flow")
	os.WriteFile(messy, []byte("flow m\nclick   \"#a\"\n"), 0o600)
	if code := runFmt([]string{"-w", messy}, &out, &errb); code != 0 {
		t.Fatal(code)
	}
	b1, _ := os.ReadFile(messy)
	if string(b1) != "flow m\n\nclick \"#a\"\n" && string(b1) != "flow m\nclick \"#a\"\n" {
		t.Errorf("in-place result %q", b1)
	}
	runFmt([]string{"-w", messy}, &out, &errb)
	if b2, _ := os.ReadFile(messy); string(b2) != string(b1) {
		t.Errorf("second -w changed the file: %q -> %q", b1, b2)
	}

	// errors
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("flow: [x\n"), 0o600)
	errb.Reset()
	if code := runFmt([]string{bad}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "bad.yaml:") {
		t.Errorf("parse error: exit %d, stderr %q", code, errb.String())
	}
	if code := runFmt(nil, &out, &errb); code != 2 {
		t.Errorf("no args: exit %d", code)
	}
	if code := runFmt([]string{filepath.Join(dir, "none.flow")}, &out, &errb); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
}
