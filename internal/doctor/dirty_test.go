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

// TestStaleTempProfile: a temporary profile a killed run left under
// home/tmp (a lock file nobody holds) is reported, even with no profiles
// folder, as possibly holding what the run typed; --fix removes it. On the
// old code doctor said "no profiles yet" and --fix left it (tester 3: a
// killed scheduled run's typed secret stayed in its Sessions).
func TestStaleTempProfile(t *testing.T) {
	home := t.TempDir()
	tmp := filepath.Join(home, "tmp", "profile-123")
	if err := os.MkdirAll(filepath.Join(tmp, "Default", "Sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{profiles.LockFileName, "Default/Sessions/Session_1"} {
		if err := os.WriteFile(filepath.Join(tmp, filepath.FromSlash(f)), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := CheckProfiles(home)
	wantStatus(t, c, Fail, "1 temporary profile(s) left by runs that were killed")
	if !strings.Contains(c.Detail, "profile-123") || !strings.Contains(c.Fix, "rpa doctor --fix") {
		t.Fatalf("check = %+v; want the folder named and `rpa doctor --fix`", c)
	}
	// held by a live rpa (this process): not reported, not removed
	l, err := profiles.LockDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if c := CheckProfiles(home); strings.Contains(c.Detail, "temporary") {
		t.Errorf("a held temporary profile reported: %+v", c)
	}
	scrubCheck(home)
	if _, err := os.Stat(tmp); err != nil {
		t.Fatalf("--fix removed a held temporary profile: %v", err)
	}
	l.Unlock()
	sc := scrubCheck(home)
	if sc.Status != OK || !strings.Contains(sc.Detail, "removed 1 temporary profile(s)") {
		t.Fatalf("--fix: %+v", sc)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Fatalf("the temporary profile is still there: %v", err)
	}
	wantStatus(t, CheckProfiles(home), OK, "")
}
