package report

import (
	"os"
	"path/filepath"

	"github.com/rpa-dev/rpa/runs"
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
