//go:build !windows

package main

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

// interruptSelf sends this process SIGINT, as Ctrl-C does.
func interruptSelf(t *testing.T) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
}

// ownGroup makes cmd (before Start) the leader of a process group of its
// own, for killGroup.
func ownGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup kills the process group pid leads (ownGroup), its children too.
func killGroup(pid int) { _ = syscall.Kill(-pid, syscall.SIGKILL) }
