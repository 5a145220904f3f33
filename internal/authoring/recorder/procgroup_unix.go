//go:build !windows

package recorder

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the browser in a process group of its own, so
// killProcessGroup also ends its helper processes.
func setProcessGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killProcessGroup kills the browser's whole process group.
func killProcessGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
