package main

import (
	"os"
	"sync"
	"testing"
)

// TestMain runs the package's tests and benchmarks, then removes the
// directories binDir made for the rpa binaries they built: a run leaves
// no temporary directory behind (each held a 40-60 MB binary).
func TestMain(m *testing.M) {
	code := m.Run()
	binDirs.Lock()
	for _, d := range binDirs.list {
		_ = os.RemoveAll(d)
	}
	binDirs.Unlock()
	os.Exit(code)
}

// binDirs are the directories binDir made.
var binDirs struct {
	sync.Mutex
	list []string
}

// binDir makes a temporary directory (os.MkdirTemp, name prefix prefix)
// for a binary a test builds; TestMain removes it after the run.
func binDir(prefix string) (string, error) {
	d, err := os.MkdirTemp("", prefix)
	if err == nil {
		binDirs.Lock()
		binDirs.list = append(binDirs.list, d)
		binDirs.Unlock()
	}
	return d, err
}
