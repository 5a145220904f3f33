package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirAndTemp: a profile's folder is under $RPA_HOME/profiles, its id
// checked; a temporary one is made under $RPA_HOME and removed once.
func TestDirAndTemp(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	d, err := Dir("work")
	if err != nil || d != filepath.Join(home, "profiles", "work") {
		t.Errorf("Dir = %q, %v", d, err)
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", `a\b`, ".hidden", strings.Repeat("x", 65), "a\x00b"} {
		if _, err := Dir(bad); err == nil {
			t.Errorf("Dir(%q) accepted", bad)
		}
	}
	dir, cleanup, err := Temp()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(dir, home+string(filepath.Separator)) {
		t.Errorf("temp profile %q not under %q", dir, home)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("temp profile missing: %v", err)
	}
	cleanup()
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temp profile not removed: %v", err)
	}
}
