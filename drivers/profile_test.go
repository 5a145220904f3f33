package drivers

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHomeAndProfiles(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	if Home() != home {
		t.Fatalf("Home = %q", Home())
	}
	d, err := ProfileDir("work")
	if err != nil || d != filepath.Join(home, "profiles", "work") {
		t.Errorf("ProfileDir = %q, %v", d, err)
	}
	for _, bad := range []string{"", ".", "..", "../x", "a/b", `a\b`, ".hidden", strings.Repeat("x", 65), "a\x00b"} {
		if _, err := ProfileDir(bad); err == nil {
			t.Errorf("ProfileDir(%q) accepted", bad)
		}
	}
	dir, cleanup, err := TempProfile()
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
	t.Setenv("RPA_HOME", "")
	t.Setenv("HOME", "/tmp/somehome")
	if Home() != "/tmp/somehome/.rpa" {
		t.Errorf("default Home = %q", Home())
	}
}
