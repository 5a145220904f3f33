package main

import (
	"strings"
	"testing"
)

// TestServeFlagErrors: a flag given without its value gets a clear
// message naming the flag and the usage line (exit 2), never Go's default
// "Usage of serve:" dump.
func TestServeFlagErrors(t *testing.T) {
	t.Setenv("RPA_HOME", t.TempDir())
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--http"}, "--http needs an address"},
		{[]string{"serve", "--http", "--token", "x"}, "--http needs an address"},
		{[]string{"serve", "--flows"}, "flag needs an argument: -flows"},
		{[]string{"serve", "--nope"}, "flag provided but not defined: -nope"},
	} {
		code, _, errOut := capture(t, tc.args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2", tc.args, code)
		}
		if !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "usage: rpa serve") {
			t.Errorf("%v: stderr %q, want %q and the usage line", tc.args, errOut, tc.want)
		}
		if strings.Contains(errOut, "Usage of serve") {
			t.Errorf("%v: Go's default usage: %q", tc.args, errOut)
		}
	}
}
