package mcpserver

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openTTY opens the controlling terminal in non-blocking mode, so reads
// honour deadlines.
func openTTY() (*os.File, error) {
	return os.OpenFile("/dev/tty", os.O_RDWR|syscall.O_NONBLOCK, 0)
}

// noEcho turns terminal echo off on f and returns the function restoring
// it, or nil when f is not a terminal.
// (It goes through SyscallConn: f.Fd would switch f to blocking mode and
// stop read deadlines.)
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
