package profiles_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// TestScrubAfter: a persistent folder is marked until the scrub, which
// removes a plain file holding the secret and clears the mark; a temporary
// profile, no folder or no secret is left alone and unmarked.
func TestScrubAfter(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	dir := filepath.Join(home, "profiles", "p")
	os.MkdirAll(filepath.Join(dir, "Default", "Sessions"), 0o700)
	held := filepath.Join(dir, "Default", "Sessions", "Session_1")
	os.WriteFile(held, []byte("https://x.test/?pw=hunter22"), 0o600)
	scrub, err := profiles.ScrubAfter(dir, []string{"hunter22"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, profiles.DirtyFileName)); err != nil {
		t.Fatalf("not marked before the scrub: %v", err)
	}
	if err := scrub(); err != nil {
		t.Fatal(err)
	}
	if hits := grepProfile(t, dir, "hunter22"); len(hits) > 0 {
		t.Errorf("secret left in %v", hits)
	}
	if _, err := os.Stat(filepath.Join(dir, profiles.DirtyFileName)); !os.IsNotExist(err) {
		t.Errorf("mark left after a clean scrub: %v", err)
	}

	tmp := filepath.Join(home, "tmp", "run-1")
	os.MkdirAll(tmp, 0o700)
	for _, c := range []struct {
		dir     string
		secrets []string
	}{{tmp, []string{"hunter22"}}, {"", []string{"hunter22"}}, {dir, nil}} {
		scrub, err := profiles.ScrubAfter(c.dir, c.secrets)
		if err != nil || scrub() != nil {
			t.Errorf("ScrubAfter(%q, %q): %v", c.dir, c.secrets, err)
		}
		if c.dir != "" {
			if _, err := os.Stat(filepath.Join(c.dir, profiles.DirtyFileName)); !os.IsNotExist(err) {
				t.Errorf("%s marked: %v", c.dir, err)
			}
		}
	}
}
