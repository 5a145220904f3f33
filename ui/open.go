package ui

import (
	"os/exec"
	"runtime"
)

// OpenBrowser shows url in the desktop's default browser (xdg-open on
// Linux, open on macOS, start on Windows) without waiting for it; the error
// is the opener's start failing (none installed, no desktop).
func OpenBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "windows":
		cmd = exec.Command("cmd", "/c", "start", "", url)
	case "darwin":
		cmd = exec.Command("open", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reap it
	return nil
}
