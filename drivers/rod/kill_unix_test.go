//go:build !windows

package rod_test

import "syscall"

// killGroup kills the process group led by pid (a browser and its helpers),
// as a crash would end them.
func killGroup(pid int) error { return syscall.Kill(-pid, syscall.SIGKILL) }
