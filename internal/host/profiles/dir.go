package profiles

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/rpa-dev/rpa/internal/host/home"
)

// Dir returns the user-data folder of the named profile,
// $RPA_HOME/profiles/ID (home.Dir), after checking id with ValidID (so a
// profile can never escape rpa's folder). The folder is not created.
func Dir(id string) (string, error) {
	if err := ValidID(id); err != nil {
		return "", err
	}
	return filepath.Join(home.Dir(), "profiles", id), nil
}

// Temp creates a fresh, empty user-data folder under $RPA_HOME/tmp (for
// `rpa run` without a profile), locked by this process (LockDir), and
// returns it with a cleanup func that unlocks and removes it (call it after
// the browser has closed; calling it twice is harmless). Temporary profiles
// left by killed runs are swept first (SweepTemp).
func Temp() (dir string, cleanup func(), err error) {
	SweepTemp()
	base := filepath.Join(home.Dir(), "tmp")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", nil, fmt.Errorf("temporary profile: %w", err)
	}
	dir, err = os.MkdirTemp(base, "profile-")
	if err != nil {
		return "", nil, fmt.Errorf("temporary profile: %w", err)
	}
	lock, err := LockDir(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("temporary profile: %w", err)
	}
	return dir, func() {
		lock.Unlock()
		_ = os.RemoveAll(dir)
	}, nil
}
