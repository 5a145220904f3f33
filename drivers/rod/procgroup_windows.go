package rod

import "os/exec"

// setProcessGroup is a no-op on Windows: the browser gets a job object of
// its own when it starts instead (launch_windows.go).
func setProcessGroup(cmd *exec.Cmd) {}

// killProcessGroup ends the browser's job: the browser and every helper it
// started (launch_windows.go).
func killProcessGroup(cmd *exec.Cmd) { endJob(cmd) }
