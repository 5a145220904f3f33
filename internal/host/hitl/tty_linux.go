package hitl

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openTTY opens /dev/tty non-blocking, so reads honour deadlines.
func openTTY() (*os.File, *os.File, error) {
	f, err := os.OpenFile("/dev/tty", os.O_RDWR|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	return f, f, nil
}

// noEcho turns echo off on the terminal f and returns the function that
// restores it, or nil when f is not a terminal. It goes through
// SyscallConn: f.Fd would switch f to blocking mode and stop deadlines.
func noEcho(f *os.File) func() {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	var old *unix.Termios
	_ = rc.Control(func(fd uintptr) {
		o, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		if err != nil {
			return
		}
		t := *o
		t.Lflag &^= unix.ECHO
		if unix.IoctlSetTermios(int(fd), unix.TCSETS, &t) == nil {
			old = o
		}
	})
	if old == nil {
		return nil
	}
	return func() {
		_ = rc.Control(func(fd uintptr) { _ = unix.IoctlSetTermios(int(fd), unix.TCSETS, old) })
	}
}
