package profiles

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// errLocked reports a lock file held by another process.
var errLocked = errors.New("locked")

// lockFile takes an exclusive, non-blocking LockFileEx lock on f's first
// byte.
func lockFile(f *os.File) error {
	ol := new(windows.Overlapped)
	err := windows.LockFileEx(windows.Handle(f.Fd()),
		windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING) {
		return errLocked
	}
	return err
}

// probeFile reports whether another handle holds the lock on f's first
// byte: a shared, non-blocking LockFileEx fails then; one that succeeds is
// released at once.
func probeFile(f *os.File) bool {
	err := windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
	if err == nil {
		_ = unlockFile(f)
		return false
	}
	return errors.Is(err, windows.ERROR_LOCK_VIOLATION) || errors.Is(err, windows.ERROR_IO_PENDING)
}

// unlockFile releases f's lock.
func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// endOrphans is not implemented on Windows (Chromium's own lock file is
// released when its process dies).
func endOrphans(dir string) int { return 0 }
