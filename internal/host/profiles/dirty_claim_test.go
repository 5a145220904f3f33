package profiles

import (
	"os"
	"path/filepath"
	"testing"
)

// TestClaimWipesDirtyProfile: a claim of a folder marked dirty removes the
// history-like files and the marker and keeps the rest (logins); without
// the marker nothing is removed.
func TestClaimWipesDirtyProfile(t *testing.T) {
	gone := []string{"Default/History", "Default/History-journal", "Default/Sessions/Session_1",
		"Default/Current Session", "Default/Last Tabs", "Default/Top Sites", "Default/Visited Links",
		"Default/Network Action Predictor", "Default/Shortcuts-journal", "Default/Favicons",
		"Default/Cache/Cache_Data/f_0", "segmentation_platform/ukm_db", "segmentation_platform/ukm_db-wal",
		"Default/Web Data", "Default/Web Data-journal", "Default/Account Web Data", "Default/Account Web Data-journal",
		"Default/Login Data", "Default/Login Data-journal", "Default/Login Data For Account",
		"Default/Login Data For Account-journal", "Default/Code Cache/js/index",
		"Profile 1/History"}
	kept := []string{"Default/Cookies", "Default/Local Storage/leveldb/000003.log", "Default/IndexedDB/x/y",
		"Default/Preferences", "Local State", "Default/Historyish", "Default/Web Database/x"}
	for _, dirty := range []bool{false, true} {
		dir := t.TempDir()
		for _, f := range append(append([]string{}, gone...), kept...) {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if dirty {
			if err := MarkDirty(dir); err != nil {
				t.Fatal(err)
			}
		}
		l, err := Claim(dir)
		if err != nil {
			t.Fatal(err)
		}
		l.Unlock()
		for _, f := range gone {
			_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
			if dirty && err == nil {
				t.Errorf("dirty: %s kept", f)
			}
			if !dirty && err != nil {
				t.Errorf("clean: %s removed", f)
			}
		}
		for _, f := range kept {
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f))); err != nil {
				t.Errorf("dirty=%v: %s removed", dirty, f)
			}
		}
		if IsDirty(dir) {
			t.Errorf("dirty=%v: marker left", dirty)
		}
	}
}
