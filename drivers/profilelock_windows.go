package drivers

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

// ProcessAlive reports whether a process with this pid is running
// (GetExitCodeProcess says STILL_ACTIVE). Used for lock holders and the
// local control registry (internal/localctl).
func ProcessAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	if windows.GetExitCodeProcess(h, &code) != nil {
		return false
	}
	return code == 259 // STILL_ACTIVE
}

// endOrphans is not implemented on Windows (Chromium's own lock file is
// released when its process dies).
func endOrphans(dir string) int { return 0 }
