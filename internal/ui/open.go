package ui

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// openWait is how long OpenBrowser waits for the opener to report a failure (xdg-open exits
// non-zero when it finds no browser; it usually returns at once when it found one).
const openWait = 5 * time.Second

// OpenBrowser shows url in the desktop's default browser (xdg-open on Linux and the BSDs, open
// on macOS, start on Windows). The error says why no browser could be opened: no desktop
// display (neither DISPLAY nor WAYLAND_DISPLAY is set, on Linux and the BSDs), no opener
// installed, or the opener failing within a few seconds (its exit status and output). An opener
// still running after that is left to run (and reaped).
func OpenBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "windows":
		cmd = exec.Command("cmd", "/c", "start", "", url)
	case "darwin":
		cmd = exec.Command("open", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return errors.New("there is no desktop display here (DISPLAY and WAYLAND_DISPLAY are not set)")
		}
		cmd = exec.Command("xdg-open", url)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }() // reaps it in any case
	select {
	case err := <-done:
		if err != nil {
			if msg := strings.TrimSpace(out.String()); msg != "" {
				return fmt.Errorf("%s: %v: %.200s", cmd.Args[0], err, msg)
			}
			return fmt.Errorf("%s: %v", cmd.Args[0], err)
		}
	case <-time.After(openWait):
	}
	return nil
}
