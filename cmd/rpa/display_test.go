package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestNoDisplay: asking for a browser window where there is no display
// fails at once (exit 2) saying so and how to run headless, instead of
// Chromium's X11 errors.
func TestNoDisplay(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("these systems always have a display")
	}
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("RPA_HOME", t.TempDir())
	dir := t.TempDir()
	flow := filepath.Join(dir, "ok.flow")
	os.WriteFile(flow, []byte("flow ok \"x\"\n\nopen \"about:blank\"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--show", flow}, "drop --show to run headless"},
		{[]string{"record", "http://127.0.0.1:1/", "-o", filepath.Join(dir, "r.flow")}, "--headless"},
		{[]string{"serve", "--show", "--flows", dir}, "drop --show to run headless"},
	} {
		code, _, errOut := capture(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, "no display") || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "ozone") {
			t.Errorf("rpa %s: exit %d\n%s", strings.Join(c.args, " "), code, errOut)
		}
	}
}
