package rod

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// TestSweepControlDirs: the control folder of a recording killed before
// its close (kill -9: folder, lock file and socket file left) is removed
// by the next recording; a recording's live folder (its lock held) and a
// folder just made (within the grace) stay, and so does what is not ours.
func TestSweepControlDirs(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	old := time.Now().Add(-2 * controlDirGrace)
	mk := func(name string, mtime time.Time, files ...string) string {
		dir := filepath.Join(tmp, name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if err := os.WriteFile(filepath.Join(dir, f), nil, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chtimes(dir, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	killed := mk(controlDirPrefix+"111", old, "lock", "cdp")
	live := mk(controlDirPrefix+"222", old, "lock", "cdp")
	held := flock.New(filepath.Join(live, "lock"))
	if ok, err := held.TryLock(); !ok || err != nil {
		t.Fatal(ok, err)
	}
	defer held.Unlock()
	fresh := mk(controlDirPrefix+"333", time.Now())
	other := mk("other-111", old, "lock")

	c, err := serveControl(&cdpMux{})
	if err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]bool{killed: false, live: true, fresh: true, other: true, c.dir: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
	// This recording's own folder is held: a sweep, even long after, leaves it.
	sweepControlDirs(tmp, time.Now().Add(time.Hour))
	if _, err := os.Stat(c.dir); err != nil {
		t.Errorf("the live recording's folder was swept: %v", err)
	}
	c.close()
	if _, err := os.Stat(c.dir); !os.IsNotExist(err) {
		t.Errorf("close left its folder: %v", err)
	}
}
