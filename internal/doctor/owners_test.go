package doctor

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// TestHelperHoldLock is not a test: run as a child with RPA_TEST_HOLD=DIR
// it is a live rpa process holding DIR's profile lock (profiles.LockDir)
// until its stdin closes.
func TestHelperHoldLock(t *testing.T) {
	dir := os.Getenv("RPA_TEST_HOLD")
	if dir == "" {
		t.Skip("a helper process")
	}
	l, err := profiles.LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	os.Stdout.WriteString("held\n")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the parent closes stdin
}

// holdLock starts a process that holds dir's rpa lock as a running rpa
// does, and returns its pid; it ends with the test.
func holdLock(t *testing.T, dir string) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHoldLock$")
	cmd.Env = append(os.Environ(), "RPA_TEST_HOLD="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "held\n" {
		t.Fatalf("helper: %q %v", line, err)
	}
	return cmd.Process.Pid
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
