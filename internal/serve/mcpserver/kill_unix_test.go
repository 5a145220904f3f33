//go:build !windows

package mcpserver

import "syscall"

// killPID kills process pid (SIGKILL).
func killPID(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }
