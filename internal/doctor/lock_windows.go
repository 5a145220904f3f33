//go:build windows

package doctor

import (
	"errors"
	"os"
	"path/filepath"
)

func profileLock(dir string) (*Lock, error) {
	p := filepath.Join(dir, "lockfile")
	if _, err := os.Stat(p); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	l := &Lock{Owner: "lockfile", Host: hostname()}
	// A running Chromium holds the file open without sharing: opening it
	// for writing then fails (ERROR_SHARING_VIOLATION).
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		l.Live = true
		return l, nil
	}
	f.Close()
	return l, nil
}
