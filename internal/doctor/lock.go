package doctor

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Lock is what a browser profile's lock says about who holds it.
type Lock struct {
	// Owner is the lock's raw content: "HOST-PID" from a SingletonLock
	// symlink, or "lockfile" on Windows.
	Owner string
	// Host and PID are parsed from Owner; PID is 0 when unknown (Windows,
	// or a lock held on another host).
	Host string
	PID  int
	// Live is true when the holder is a running browser: on this host, the
	// process exists and (where /proc tells) is a Chromium-family program;
	// on another host (a profile on a shared disk) it cannot be checked and
	// counts as live, as Chromium itself refuses such a profile.
	Live bool
	// Command is the holder's program name where known (Linux /proc).
	Command string
}

// ProfileLock reads the lock Chromium keeps in the user-data folder dir
// while a browser runs on it, without touching it: the SingletonLock
// symlink (Linux, macOS: its target is "HOST-PID") or, on Windows, the
// "lockfile" the browser holds open without sharing. It returns nil, nil
// when there is no lock. A lock whose process is gone, or whose PID now
// belongs to something that is not a browser, is returned with Live false
// (Chromium's process_singleton treats both as stale and takes them over).
func ProfileLock(dir string) (*Lock, error) {
	return profileLock(dir)
}

// parseOwner splits "HOST-PID" (the host may itself contain dashes).
func parseOwner(s string) (host string, pid int, ok bool) {
	i := strings.LastIndexByte(s, '-')
	if i <= 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(s[i+1:])
	if err != nil || pid <= 0 {
		return "", 0, false
	}
	return s[:i], pid, true
}

// looksLikeBrowser reports whether a program name is a Chromium-family
// browser (chromium, chrome, chrome-headless-shell, google-chrome, ...).
func looksLikeBrowser(name string) bool {
	n := strings.ToLower(filepath.Base(name))
	return strings.Contains(n, "chrom")
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}
