//go:build !windows

package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

func profileLock(dir string) (*Lock, error) {
	target, err := os.Readlink(filepath.Join(dir, "SingletonLock"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	l := &Lock{Owner: target}
	host, pid, ok := parseOwner(target)
	if !ok {
		return l, nil // unreadable owner: not live, Chromium replaces it
	}
	l.Host = host
	if host != hostname() {
		l.Live = true
		return l, nil
	}
	l.PID = pid
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return l, nil // gone
	}
	l.Command = command(pid)
	l.Live = l.Command == "" || looksLikeBrowser(l.Command)
	return l, nil
}

// command returns the program of pid from /proc ("" where /proc is absent):
// the executable's base name, else the comm line.
func command(pid int) string {
	p := "/proc/" + strconv.Itoa(pid)
	if exe, err := os.Readlink(p + "/exe"); err == nil {
		return filepath.Base(strings.TrimSuffix(exe, " (deleted)"))
	}
	if b, err := os.ReadFile(p + "/comm"); err == nil {
		return strings.TrimSpace(string(b))
	}
	return ""
}
