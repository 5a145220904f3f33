package runs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorruptStoreMovedAside: a run store whose database is damaged (not
// a database at all, or a sound header over damaged pages) no longer
// stops Open: CheckStore names the damage without touching the file, Open
// moves the file aside under a name it gives and starts an empty store
// that records runs.
func TestCorruptStoreMovedAside(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"not a database", func(b []byte) []byte { return bytes.Repeat([]byte("garbage!"), len(b)/8) }},
		{"damaged pages", func(b []byte) []byte {
			out := bytes.Clone(b)
			for i := 4096 + 16; i < len(out); i++ { // page 1 (the header and schema) stays
				out[i] = byte(i * 7)
			}
			return out
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			home := t.TempDir()
			s, err := Open(home, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 40; i++ {
				r := &Run{Flow: "f", Args: map[string]any{"n": strings.Repeat("x", 500)}}
				if _, err := s.Begin(r); err != nil {
					t.Fatal(err)
				}
				if err := s.Finish(r.ID, Outcome{Status: StatusOK}); err != nil {
					t.Fatal(err)
				}
			}
			s.Close()
			path := filepath.Join(home, "runs", DBName)
			good, err := os.ReadFile(path)
			if err != nil || len(good) < 3*4096 {
				t.Fatalf("the store's file: %d bytes, %v", len(good), err)
			}
			bad := c.damage(good)
			if err := os.WriteFile(path, bad, 0o600); err != nil {
				t.Fatal(err)
			}

			if err := CheckStore(home); !IsCorrupt(err) {
				t.Fatalf("CheckStore on a damaged store: %v", err)
			}
			if now, _ := os.ReadFile(path); !bytes.Equal(now, bad) {
				t.Fatal("CheckStore changed the file")
			}
			s, err = Open(home, Options{})
			if err != nil {
				t.Fatalf("Open on a damaged store: %v", err)
			}
			defer s.Close()
			moved := s.MovedAside()
			if !strings.HasPrefix(moved, path+".corrupt-") {
				t.Fatalf("MovedAside = %q", moved)
			}
			if kept, err := os.ReadFile(moved); err != nil || !bytes.Equal(kept, bad) {
				t.Fatalf("the damaged file was not kept as it was at %s: %v", moved, err)
			}
			if list, err := s.List(Filter{}); err != nil || len(list) != 0 {
				t.Fatalf("the fresh store lists %d runs, %v", len(list), err)
			}
			r := &Run{Flow: "after"}
			if _, err := s.Begin(r); err != nil {
				t.Fatal(err)
			}
			if err := s.Finish(r.ID, Outcome{Status: StatusOK}); err != nil {
				t.Fatal(err)
			}
			if err := CheckStore(home); err != nil {
				t.Fatalf("CheckStore on the fresh store: %v", err)
			}
		})
	}
	if err := CheckStore(t.TempDir()); err != nil {
		t.Errorf("CheckStore without a store: %v", err)
	}
}

// TestPruneKeepsRunning: retention never removes a run still running,
// however old (issue 21's Low list: rpa runs prune must not delete it).
func TestPruneKeepsRunning(t *testing.T) {
	s, err := Open(t.TempDir(), Options{Keep: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	live := &Run{Flow: "long"}
	if _, err := s.Begin(live); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		r := &Run{Flow: "short"}
		if _, err := s.Begin(r); err != nil {
			t.Fatal(err)
		}
		if err := s.Finish(r.ID, Outcome{Status: StatusOK}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Prune(); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Get(live.ID); err != nil || r.Status != StatusRunning {
		t.Fatalf("the running run after prune: %v %v", r, err)
	}
	if _, err := os.Stat(s.RunDir(live.ID)); err != nil {
		t.Fatalf("the running run's folder: %v", err)
	}
}
