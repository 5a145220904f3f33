package bench

import "os/exec"

// ownGroup does nothing on Windows (no process groups to signal).
func ownGroup(cmd *exec.Cmd) {}

// killGroup kills the browser process; its helpers end with it.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
