package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/diag"
)

// TestParseArgs: flags before, between and after positional arguments;
// -h is exit 0, a bad flag exit 2; after -- everything is positional.
func TestParseArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		pos  []string
		v    bool
		done bool
		code int
	}{
		{[]string{"a.flow", "-v", "b"}, []string{"a.flow", "b"}, true, false, exitOK},
		{[]string{"-v", "a.flow"}, []string{"a.flow"}, true, false, exitOK},
		{[]string{"a.flow"}, []string{"a.flow"}, false, false, exitOK},
		{[]string{"--", "-v"}, []string{"-v"}, false, false, exitOK},
		{[]string{"a", "-h"}, nil, false, true, exitOK},
		{[]string{"a", "--nope"}, nil, false, true, exitUsage},
	} {
		fs := newFlags("check", io.Discard)
		v := fs.Bool("v", false, "")
		pos, done, code := parseArgs(fs, tc.args)
		if !reflect.DeepEqual(pos, tc.pos) || done != tc.done || code != tc.code || (!done && *v != tc.v) {
			t.Errorf("parseArgs(%q) = %q %v %d (v %v)", tc.args, pos, done, code, *v)
		}
	}
}

// TestUnknownCommand: a near miss gets a suggestion (diag.Suggest), in
// process, on the writers given.
func TestUnknownCommand(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"chek"}, &out, &errb); code != exitUsage || !strings.Contains(errb.String(), `did you mean "check"?`) {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
	errb.Reset()
	if code := run([]string{"zzzzzz"}, &out, &errb); code != exitUsage || strings.Contains(errb.String(), "did you mean") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

// TestFlagsAfterFiles (issue 22): every command takes its flags after its
// file names as well as before them (cliflag.ParseFlags): the output is
// the same either way.
func TestFlagsAfterFiles(t *testing.T) {
	flow := testdata + "/examples/order_logistics.flow"
	bad := filepath.Join(t.TempDir(), "bad.flow")
	if err := os.WriteFile(bad, []byte("flow bad\nparam region: string = \"1\"\nask \"Pick for \" + region\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		before, after []string
		code          int
	}{
		{[]string{"fmt", "--to", "yaml", flow}, []string{"fmt", flow, "--to", "yaml"}, exitOK},
		{[]string{"check", "--json", flow, bad}, []string{"check", flow, bad, "--json"}, exitFailed},
		{[]string{"check", "--oneline", bad}, []string{"check", bad, "--oneline"}, exitFailed},
	} {
		var out1, err1, out2, err2 bytes.Buffer
		code1 := run(c.before, &out1, &err1)
		code2 := run(c.after, &out2, &err2)
		if code1 != c.code || code2 != c.code || out1.String() != out2.String() || err1.String() != err2.String() {
			t.Errorf("%q: exit %d, %q: exit %d\nstdout %q\nvs     %q\nstderr %q\nvs     %q", c.before, code1, c.after, code2, out1.String(), out2.String(), err1.String(), err2.String())
		}
		if out1.Len() == 0 {
			t.Errorf("%q: no output", c.before)
		}
	}
	// check --json: the counts and each diagnostic with its position and
	// the hint toward {{ }}
	var out, errb bytes.Buffer
	run([]string{"check", bad, "--json"}, &out, &errb)
	var got struct {
		Clean, Errors int
		Diagnostics   []diag.Item
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.Errors != 1 || len(got.Diagnostics) != 1 {
		t.Fatalf("check --json: %v %s", err, out.String())
	}
	if d := got.Diagnostics[0]; d.Line != 3 || d.Col != 17 || d.Severity != "error" || !strings.Contains(d.Detail, `"Pick for {{ region }}"`) {
		t.Errorf("diagnostic %+v", d)
	}
}
