package main

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"testing"
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
