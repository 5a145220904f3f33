package report

import (
	"os"
	"path/filepath"

	"github.com/rpa-dev/rpa/internal/runs"
)

// Ensure returns the path of run id's report in s, writing it (default
// Options) when the run's folder has none: `rpa runs report`.
func Ensure(s *runs.Store, id string) (string, error) {
	path := filepath.Join(s.RunDir(id), FileName)
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	return WriteFile(s, id, Options{})
}

// Copy writes a copy of run id's report (Ensure) to dest: `rpa runs report
// ID -o FILE`.
func Copy(s *runs.Store, id, dest string) error {
	path, err := Ensure(s, id)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return os.WriteFile(dest, b, 0o644)
}
