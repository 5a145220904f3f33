// Package home is rpa's data folder on this machine: $RPA_HOME, else ~/.rpa
// (PROTOCOL.md, "Browser profiles and silent mode"), which holds the
// browser profiles, the runs, the served flows, the vault and the local
// control registry; and the one check of whether a process that left its
// pid there (a profile's lock file, the registry) still lives.
package home

import (
	"os"
	"path/filepath"
)

// Dir returns rpa's data folder: $RPA_HOME when set (made absolute), else
// ~/.rpa; ./.rpa when the user's home directory cannot be determined. The
// folder is not created here.
func Dir() string {
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
