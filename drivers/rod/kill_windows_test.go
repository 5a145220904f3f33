package rod_test

import "os"

// killGroup kills the browser process pid; its helper processes end with it
// (Windows has no process groups to signal).
func killGroup(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}
