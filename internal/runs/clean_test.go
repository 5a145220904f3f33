package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestOpenChecksOnlyWhenNeeded: Open reads every page (quick_check) of a
// store that was not closed cleanly, and only then: a fresh store, a store
// a process was killed holding (its entry left in runs/open), a copy of a
// store taken while it was open (what kill -9 leaves: a write-ahead log),
// a file changed since its clean close; not a store its last process
// closed, nor one another live process holds.
func TestOpenChecksOnlyWhenNeeded(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "runs")
	open := func(home, what string, want bool) *Store {
		t.Helper()
		s, err := Open(home, Options{})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if s.checked != want {
			t.Errorf("%s: checked %v, want %v", what, s.checked, want)
		}
		return s
	}
	record := func(s *Store) string {
		t.Helper()
		r := &Run{Flow: "f"}
		if _, err := s.Begin(r); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(r.ID, Outcome{Status: StatusOK}); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}

	s := open(home, "a fresh store", true)
	first := record(s)
	s.Close()
	if _, err := os.Stat(filepath.Join(dir, cleanName)); err != nil {
		t.Fatalf("no clean marker after the last Close: %v", err)
	}
	a := open(home, "after a clean close", false)
	b := open(home, "while another live Store holds it", false)
	record(b)
	b.Close()
	if ents, _ := os.ReadDir(filepath.Join(dir, holdersDir)); len(ents) != 1 {
		t.Errorf("runs/open holds %d entries with one Store open", len(ents))
	}

	// A copy taken now is what kill -9 of every holder leaves: the log beside the file.
	cp := t.TempDir()
	os.MkdirAll(filepath.Join(cp, "runs"), 0o700)
	for _, f := range []string{DBName, DBName + "-wal", cleanName} {
		if data, err := os.ReadFile(filepath.Join(dir, f)); err == nil {
			os.WriteFile(filepath.Join(cp, "runs", f), data, 0o600)
		}
	}
	c := open(cp, "a copy taken while open (a write-ahead log left)", true)
	if _, err := c.Get(first); err != nil {
		t.Errorf("the copy lost a run: %v", err)
	}
	c.Close()

	// A holder that is gone: this pid with another start time (a reused pid).
	deadName := fmt.Sprintf("%d-%d-1", os.Getpid(), self().start+12345)
	os.WriteFile(filepath.Join(dir, holdersDir, deadName), nil, 0o600)
	a.Close() // not the last: the dead entry stays
	s = open(home, "after a holder was killed", true)
	if _, err := os.Stat(filepath.Join(dir, holdersDir, deadName)); err == nil {
		t.Error("the dead holder's entry stayed after the check")
	}
	s.Close()
	open(home, "after that check and a clean close", false).Close()

	// A file changed since its clean close.
	later := time.Now().Add(time.Hour)
	os.Chtimes(filepath.Join(dir, DBName), later, later)
	open(home, "a file touched since its clean close", true).Close()
	open(home, "closed cleanly again", false).Close()
}
