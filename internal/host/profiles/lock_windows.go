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

// unlockFile releases f's lock.
func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, new(windows.Overlapped))
}

// endOrphans is not implemented on Windows (Chromium's own lock file is
// released when its process dies).
func endOrphans(dir string) int { return 0 }
