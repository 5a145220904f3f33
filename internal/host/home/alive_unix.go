//go:build !windows

package home

import (
	"errors"
	"syscall"
)

// ProcessAlive reports whether a process with this pid exists (a zombie
// counts as gone; without /proc, as on macOS, whether kill(pid, 0) finds
// it). Used for the holders of profile locks, orphaned browsers and the
// local control registry (internal/host/localctl).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	if err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	return !isZombie(pid)
}
