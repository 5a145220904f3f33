package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// TestDirtyProfile: a profile a crash left marked dirty (its rpa died
// before scrubbing the secrets its browser was given) fails the profiles
// check as "not scrubbed since a crash" with `rpa doctor --fix` as the
// fix; the fix removes its history-like files and the marker, keeps its
// cookies, and the check passes after it. A dirty profile a running rpa
// holds is that rpa's to scrub: in use, not failing, and --fix leaves it.
func TestDirtyProfile(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "profiles", "work")
	for _, f := range []string{"Default/Sessions/Session_1", "Default/History", "Default/Web Data", "Default/Login Data", "Default/Cookies"} {
		p := filepath.Join(work, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := profiles.MarkDirty(work); err != nil {
		t.Fatal(err)
	}
	c := CheckProfiles(home)
	wantStatus(t, c, Fail, "1 not scrubbed since a crash")
	if !strings.Contains(c.Detail, "work") || !strings.Contains(c.Fix, "rpa doctor --fix") {
		t.Fatalf("check = %+v; want the profile named and `rpa doctor --fix`", c)
	}

	// Held by a running rpa (here: this process): its holder scrubs it.
	l, err := profiles.LockDir(work)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, CheckProfiles(home), Note, "in use by a running rpa")
	if sc := scrubCheck(home); sc.Status != OK || !profiles.IsDirty(work) {
		t.Fatalf("--fix on a held profile: %+v, dirty %v", sc, profiles.IsDirty(work))
	}
	l.Unlock()

	sc := scrubCheck(home)
	if sc.Status != OK || !strings.Contains(sc.Detail, "scrubbed 1 profile(s) a crash left: work") {
		t.Fatalf("--fix: %+v", sc)
	}
	for _, f := range []string{"Default/Sessions", "Default/History", "Default/Web Data", "Default/Login Data", profiles.DirtyFileName} {
		if _, err := os.Stat(filepath.Join(work, filepath.FromSlash(f))); err == nil {
			t.Errorf("%s is still there after --fix", f)
		}
	}
	if _, err := os.Stat(filepath.Join(work, "Default", "Cookies")); err != nil {
		t.Errorf("--fix removed the cookies: %v", err)
	}
	wantStatus(t, CheckProfiles(home), OK, "none in use")
}
