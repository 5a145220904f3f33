//go:build !windows

package profiles

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

// probeFile reports whether another open file holds a lock on f: a
// shared, non-blocking flock fails then; one that succeeds is released at
// once.
func probeFile(f *os.File) bool {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		switch {
		case err == nil:
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			return false
		case errors.Is(err, syscall.EINTR):
			continue
		}
		return errors.Is(err, syscall.EWOULDBLOCK)
	}
}
