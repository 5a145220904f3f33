package recorder

import "os/exec"

// setProcessGroup is a no-op on Windows (no process groups to signal).
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup is a no-op on Windows: the caller kills the process.
func killProcessGroup(cmd *exec.Cmd) {}
