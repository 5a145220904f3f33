package profiles

import (
	"os"

	"golang.org/x/sys/unix"
)

// lockEvents signals (coalesced, on a channel with room for one) each
// change of the lock file path: its holder's unlock (a write), and its
// holder's death (the kernel closes the file: IN_CLOSE_WRITE). stop ends
// the watch.
func lockEvents(path string) (<-chan struct{}, func(), error) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, nil, os.NewSyscallError("inotify_init1", err)
	}
	mask := uint32(unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF)
	if _, err := unix.InotifyAddWatch(fd, path, mask); err != nil {
		_ = unix.Close(fd)
		return nil, nil, os.NewSyscallError("inotify_add_watch", err)
	}
	// A non-blocking descriptor in an *os.File reads through the runtime's
	// poller, so Close ends a blocked Read.
	f := os.NewFile(uintptr(fd), "inotify")
	ch := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			if _, err := f.Read(buf); err != nil {
				return
			}
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	return ch, func() { _ = f.Close(); <-done }, nil
}
