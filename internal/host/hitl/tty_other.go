//go:build !linux

package hitl

import (
	"os"
	"runtime"
)

// openTTY opens the console (CONIN$/CONOUT$ on Windows, /dev/tty elsewhere).
func openTTY() (*os.File, *os.File, error) {
	if runtime.GOOS == "windows" {
		in, err := os.OpenFile("CONIN$", os.O_RDWR, 0)
		if err != nil {
			return nil, nil, err
		}
		out, err := os.OpenFile("CONOUT$", os.O_RDWR, 0)
		if err != nil {
			in.Close()
			return nil, nil, err
		}
		return in, out, nil
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, err
	}
	return f, f, nil
}

// noEcho returns nil outside Linux: passwords go through x/term's
// ReadPassword instead.
func noEcho(*os.File) func() { return nil }
