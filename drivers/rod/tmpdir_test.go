package rod

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// TestKilledBrowserLeavesNoTemp: a browser killed with SIGKILL leaves
// nothing in the system's temporary folder (TMPDIR, set by the test): its
// own temporary folders live inside its user-data dir (one short enough
// for Chromium's SingletonSocket there: t.TempDir's names are too long).
func TestKilledBrowserLeavesNoTemp(t *testing.T) {
	top, err := os.MkdirTemp("", "rpa-t")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(top) })
	sysTmp := t.TempDir()
	t.Setenv("TMPDIR", sysTmp)
	udd := filepath.Join(top, "p")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	br, err := New().Launch(ctx, drivers.LaunchOptions{UserDataDir: udd})
	if err != nil {
		t.Fatal(err)
	}
	b := br.(*browser)
	p, err := b.NewPage(ctx, "data:text/html,<p>hi</p>")
	if err != nil {
		t.Fatal(err)
	}
	_ = p
	b.kill() // SIGKILL to its process group
	select {
	case <-b.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the browser did not exit")
	}
	if ents, _ := os.ReadDir(sysTmp); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR: %v", names)
	}
	if _, err := os.Stat(filepath.Join(udd, browserTempDir)); err != nil {
		t.Errorf("no temporary folder in the user-data dir: %v", err)
	}
	// A user-data dir too deep for the socket keeps the system's folder
	// (the browser must start).
	deep := filepath.Join(top, strings.Repeat("d", 90))
	br2, err := New().Launch(ctx, drivers.LaunchOptions{UserDataDir: deep})
	if err != nil {
		t.Fatalf("a deep user-data dir: %v", err)
	}
	_ = br2.Close()
}
