package main

import (
	"os"
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

// TestServeStdioBadLine: `rpa serve --stdio` answers a line that is not
// JSON with -32700 (id null) and goes on to answer the next call.
func TestServeStdioBadLine(t *testing.T) {
	t.Setenv("RPA_HOME", t.TempDir())
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
garbage
{"jsonrpc":"2.0","id":7,"method":"tools/list"}
`
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.WriteString(in); w.Close() }()
	old := os.Stdin
	os.Stdin = r
	defer func() { os.Stdin = old; r.Close() }()
	code, out, errOut := capture(t, "serve", "--stdio", "--flows", t.TempDir())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 answers, got %d:\n%s\nstderr: %s", len(lines), out, errOut)
	}
	// The refusal is written at once, so it may come before the
	// initialize answer.
	if !strings.Contains(out, `"id":1,"result"`) ||
		!strings.Contains(out, `"id":null,"error":{"code":-32700`) ||
		!strings.Contains(out, `"id":7,"result"`) {
		t.Errorf("answers:\n%s", out)
	}
}
