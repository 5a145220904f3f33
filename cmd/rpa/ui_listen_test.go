package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestUIBusyPort: a console address already taken is told at once, in one line with one
// "rpa ui:" prefix, before any flow is loaded (nothing else on stderr).
func TestUIBusyPort(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	flows := filepath.Join(home, "flows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "hello.flow"), []byte("flow hello \"Say hello\"\n\nlog \"hi\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	var out, errb bytes.Buffer
	code := runUI(context.Background(), []string{"--listen", busy.Addr().String(), "--flows", flows}, &out, &errb)
	got := errb.String()
	if code != exitUsage || !strings.HasPrefix(got, "rpa ui: cannot listen on "+busy.Addr().String()) ||
		strings.Contains(got, "ui: ui:") || strings.Count(strings.TrimSpace(got), "\n") != 0 || !strings.Contains(got, "--listen") {
		t.Errorf("exit %d, stderr:\n%s", code, got)
	}
}

// TestUIOpenNoDisplay: --open where there is no desktop display says that no browser could be
// opened, and the console's URL.
func TestUIOpenNoDisplay(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("the desktop display is an X11/Wayland matter")
	}
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	flows := filepath.Join(home, "flows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb lockedWriter
	done := make(chan int, 1)
	go func() {
		done <- runUI(ctx, []string{"--listen", "127.0.0.1:0", "--flows", flows, "--open"}, &out, &errb)
	}()
	waitFor(t, "the --open message", func() bool { return strings.Contains(errb.String(), "no browser could be opened") })
	cancel()
	<-done
	u := regexp.MustCompile(`http://127\.0\.0\.1:\d+/\?t=[0-9a-f]+`).FindString(out.String())
	if u == "" || !strings.Contains(errb.String(), "open "+u+" in a browser") || !strings.Contains(errb.String(), "no desktop display") {
		t.Errorf("stdout %q\nstderr %q", out.String(), errb.String())
	}
}
