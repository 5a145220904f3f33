package main

import (
	"os"
	"os/exec"
	"testing"
)

// interruptSelf: Windows has no SIGINT a process can send itself; the test
// is skipped.
func interruptSelf(t *testing.T) {
	t.Helper()
	t.Skip("no SIGINT to this process on Windows")
}

// ownGroup does nothing on Windows (killGroup kills the process alone).
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills process pid.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}
