package profiles

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// DirtyFileName is the marker file a profile folder holds while its
// browser has been given secrets that are not yet scrubbed from it (the
// profiles Pool's Lease.AddSecrets writes it, a clean scrub removes it).
// It holds no secret. A process that claims a profile (Claim) and
// finds it knows the previous owner died before scrubbing: the secrets
// are gone with it, so the history-like files are removed whole
// (WipeHistory).
const DirtyFileName = "rpa-dirty"

// MarkDirty writes dir's DirtyFileName marker (temp file + rename).
func MarkDirty(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, DirtyFileName)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte("secrets were given to this profile's browser; not scrubbed yet\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// ClearDirty removes dir's DirtyFileName marker (none: no error).
func ClearDirty(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.Remove(filepath.Join(dir, DirtyFileName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// IsDirty reports whether dir holds the DirtyFileName marker.
func IsDirty(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, DirtyFileName))
	return err == nil
}

// historyFiles are the names (filepath.Match patterns; "sub/pattern" for
// a file of a sub-folder) of the files of a Chromium profile folder such
// as Default that record addresses visited, page titles, sessions (with
// the values typed into a tab's form fields) and typed values: Web Data's
// autocomplete table keeps what was typed into a submitted form's
// non-password fields (a secret param filled into a text field, a
// credential's username), Login Data the passwords and usernames
// Chromium's password manager saved. Nothing rpa needs lives in those two:
// besides autocomplete, Web Data holds the search engines (keywords, back
// to Chromium's defaults when the file is recreated), addresses and cards
// saved for autofill, and the sync token service, none of which rpa uses;
// logins are cookies, which stay. Cookies, Local Storage, IndexedDB and
// the rest stay, so logins survive a wipe. These are the files a clean
// scrub (Scrub) finds a secret in after a run; a crash wipe cannot look
// for the secrets (they died with the process), so it removes them whole.
var historyFiles = []string{
	"History", "History-*",
	"Sessions", "Current Session", "Current Tabs", "Last Session", "Last Tabs",
	"Top Sites", "Top Sites-*", "Visited Links",
	"Favicons", "Favicons-*",
	"Network Action Predictor", "Network Action Predictor-*",
	"Shortcuts", "Shortcuts-*",
	"Web Data", "Web Data-*", "Account Web Data", "Account Web Data-*",
	"Login Data", "Login Data-*", "Login Data For Account", "Login Data For Account-*",
	"Cache", "Code Cache",
	"segmentation_platform/ukm_db", "segmentation_platform/ukm_db-*",
}

// WipeHistory removes the history-like files (History, Sessions, Top
// Sites, Visited Links, Favicons, the HTTP cache, Web Data's autocomplete,
// Login Data, ...: addresses and typed values that may hold a secret) of
// the user-data dir dir: in dir itself and in each
// profile folder directly under it (Default, Profile 1, ...). Call it only
// while holding dir's lock with no browser running on it. It returns the
// paths removed, relative to dir.
func WipeHistory(dir string) ([]string, error) {
	roots := []string{dir}
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			if e.IsDir() {
				roots = append(roots, filepath.Join(dir, e.Name()))
			}
		}
	}
	var removed []string
	var errs []error
	for _, root := range roots {
		for _, pat := range historyFiles {
			sub, name := path.Split(pat)
			folder := filepath.Join(root, filepath.FromSlash(sub))
			ents, err := os.ReadDir(folder)
			if err != nil {
				continue
			}
			for _, e := range ents {
				if ok, _ := filepath.Match(name, e.Name()); !ok {
					continue
				}
				m := filepath.Join(folder, e.Name())
				if err := os.RemoveAll(m); err != nil {
					errs = append(errs, err)
					continue
				}
				rel, _ := filepath.Rel(dir, m)
				removed = append(removed, rel)
			}
		}
	}
	return removed, errors.Join(errs...)
}

// wipeIfDirty is Claim's step: a marker left by a dead owner means
// its secrets were never scrubbed; the history-like files go, then the
// marker.
func wipeIfDirty(dir string) {
	if !IsDirty(dir) {
		return
	}
	if _, err := WipeHistory(dir); err == nil {
		_ = ClearDirty(dir)
	}
}

// WipeDirty scrubs the profile folder dir when it is marked dirty
// (DirtyFileName: its browser was given secrets and its rpa process died
// before scrubbing them) and no process uses it: it takes the folder's
// lock (an *InUseError when another rpa process, or this one, holds it:
// its holder scrubs the folder when it closes the browser), refuses when a
// browser runs on it (its SingletonLock names a live process of this
// host), removes its history-like files (WipeHistory) and the marker. A
// folder not marked is left alone (wiped false). This is what the next
// claim of the folder does (Claim); `rpa doctor --fix` does it at once.
func WipeDirty(dir string) (wiped bool, err error) {
	if !IsDirty(dir) {
		return false, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	locksMu.Lock()
	mine := locks[abs] != nil
	locksMu.Unlock()
	if mine {
		return false, &InUseError{Profile: filepath.Base(abs), PID: os.Getpid()}
	}
	l, err := LockDir(abs)
	if err != nil {
		return false, err
	}
	defer l.Unlock()
	if !IsDirty(abs) {
		return false, nil
	}
	if browserRuns(l.dir) {
		return false, errors.New("a browser still runs on it; close it first")
	}
	if _, err := WipeHistory(l.dir); err != nil {
		return false, err
	}
	return true, ClearDirty(l.dir)
}
