//go:build !windows

package drivers

import (
	"errors"
	"os"
	"syscall"
)

// errLocked reports a lock file held by another process.
var errLocked = errors.New("locked")

// lockFile takes an exclusive, non-blocking flock on f.
func lockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errLocked
		}
		return err
	}
}

// unlockFile releases f's flock.
func unlockFile(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// ProcessAlive reports whether a process with this pid exists (a zombie
// counts as gone; without /proc, as on macOS, whether kill(pid, 0) finds
// it). Used for lock holders, orphaned browsers and the local control
// registry (internal/localctl).
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
