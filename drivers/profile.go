package drivers

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Home returns rpa's data folder: $RPA_HOME when set, else ~/.rpa
// (PROTOCOL.md, "Browser profiles and silent mode"). Every browser
// user-data folder lives under it. The folder is not created here. When the
// user's home directory cannot be determined it falls back to ./.rpa.
func Home() string {
	if h := os.Getenv("RPA_HOME"); h != "" {
		if abs, err := filepath.Abs(h); err == nil {
			return abs
		}
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		if abs, err := filepath.Abs(".rpa"); err == nil {
			return abs
		}
		return ".rpa"
	}
	return filepath.Join(home, ".rpa")
}

// ValidProfileID reports why id cannot name a profile folder, or nil: it
// must be non-empty, at most 64 bytes, not "." or "..", contain no path
// separator, no NUL and no leading dot.
func ValidProfileID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("profile id is empty")
	case len(id) > 64:
		return fmt.Errorf("profile id %q is longer than 64 bytes", id)
	case id == "." || id == ".." || strings.HasPrefix(id, "."):
		return fmt.Errorf("profile id %q may not start with a dot", id)
	case strings.ContainsAny(id, `/\`+"\x00") || strings.ContainsRune(id, filepath.Separator):
		return fmt.Errorf("profile id %q may not contain a path separator", id)
	}
	return nil
}

// ProfileDir returns the user-data folder of the named profile,
// Home()/profiles/ID, after checking id with ValidProfileID (so a profile
// can never escape Home()). The folder is not created.
func ProfileDir(id string) (string, error) {
	if err := ValidProfileID(id); err != nil {
		return "", err
	}
	return filepath.Join(Home(), "profiles", id), nil
}

// TempProfile creates a fresh, empty user-data folder under
// Home()/tmp (for `rpa run` without a profile), locked by this process
// (LockProfile), and returns it with a cleanup func that unlocks and
// removes it (call it after the browser has closed; calling it twice is
// harmless). Temporary profiles left by killed runs are swept first
// (SweepTempProfiles).
func TempProfile() (dir string, cleanup func(), err error) {
	SweepTempProfiles()
	base := filepath.Join(Home(), "tmp")
	if err := os.MkdirAll(base, 0o700); err != nil {
		return "", nil, fmt.Errorf("temporary profile: %w", err)
	}
	dir, err = os.MkdirTemp(base, "profile-")
	if err != nil {
		return "", nil, fmt.Errorf("temporary profile: %w", err)
	}
	lock, err := LockProfile(dir)
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("temporary profile: %w", err)
	}
	return dir, func() {
		lock.Unlock()
		_ = os.RemoveAll(dir)
	}, nil
}
