package doctor

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/testutil/holder"

	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// TestMain lets a test start this binary as a live rpa process holding a
// profile's rpa lock (holdLock).
func TestMain(m *testing.M) {
	holder.Serve(map[string]holder.Hold{"lock": func(dir string) (func(), error) {
		l, err := profiles.LockDir(dir)
		if err != nil {
			return nil, err
		}
		return func() { l.Unlock() }, nil
	}})
	os.Exit(m.Run())
}

// holdLock starts a process that holds dir's rpa lock as a running rpa
// does, and returns its pid; it ends with the test.
func holdLock(t *testing.T, dir string) int {
	t.Helper()
	return holder.Start(t, "lock", dir).PID()
}

// TestProfileOwners (issue 22): a profile whose browser a live rpa
// process owns (it holds the profile's rpa lock) is in use, a note that
// names that process and never advises a kill; so is one the rpa holds
// between browsers. A browser no live rpa owns (its rpa died, the lock
// file names a dead pid) is an orphan: a failure that names its pid.
func TestProfileOwners(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SingletonLock is the Unix lock")
	}
	host, _ := os.Hostname()
	home := t.TempDir()
	served := filepath.Join(home, "profiles", "served")
	rpaPID := holdLock(t, served)
	browserPID := fakeBrowser(t)
	lockProfile(t, home, "served", host+"-"+itoa(browserPID))
	idle := filepath.Join(home, "profiles", "idle")
	idlePID := holdLock(t, idle)

	c := CheckProfiles(home)
	wantStatus(t, c, Note, "2 in use by a running rpa: ")
	for _, want := range []string{"served (rpa pid " + itoa(rpaPID) + ", its browser pid " + itoa(browserPID) + ")", "idle (rpa pid " + itoa(idlePID) + ")"} {
		if !strings.Contains(c.Detail, want) {
			t.Errorf("detail %q does not say %q", c.Detail, want)
		}
	}
	if strings.Contains(c.Fix, "kill") || strings.Contains(c.Detail, "kill") {
		t.Errorf("advises killing a browser a live rpa owns: %q", c.Fix)
	}
	r := Run(context.Background(), Options{Home: home, NoLaunch: true, ConnectEnv: "-", Getenv: noEnv, LookPath: noTools})
	if got := find(t, r, "profiles"); got.Status != Note {
		t.Errorf("report: %+v", got)
	}

	// An orphan: a live browser on a profile whose rpa died (its lock
	// file names a dead pid, nobody holds it).
	orphanPID := fakeBrowser(t)
	lockProfile(t, home, "orphan", host+"-"+itoa(orphanPID))
	if err := os.WriteFile(filepath.Join(home, "profiles", "orphan", profiles.LockFileName), []byte(itoa(deadPID(t))+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = CheckProfiles(home)
	wantStatus(t, c, Fail, "1 held by a browser no rpa process owns: orphan (pid "+itoa(orphanPID))
	if !strings.Contains(c.Fix, "kill "+itoa(orphanPID)) || strings.Contains(c.Fix, itoa(browserPID)) {
		t.Errorf("fix %q: want a kill of the orphan %d only", c.Fix, orphanPID)
	}
	if !strings.Contains(c.Detail, "2 in use by a running rpa") {
		t.Errorf("detail %q leaves out the profiles in use", c.Detail)
	}

	// Holder itself: held by the helper, not held once the helper is gone
	// (the kernel drops the lock with the process).
	if pid, held := profiles.Holder(served); !held || pid != rpaPID {
		t.Errorf("Holder(served) = %d %v", pid, held)
	}
	if _, held := profiles.Holder(filepath.Join(home, "profiles", "orphan")); held {
		t.Error("Holder(orphan) held")
	}
}
