package runs

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestInterruptedDuration: an interrupted run lasts from its start to its
// last sign of life: the latest file time of its folder (the recorder's
// heartbeat keeps events.jsonl's fresh) or the last event's own time.
func TestInterruptedDuration(t *testing.T) {
	home := t.TempDir()
	s := openT(t, home, Options{})
	start := time.Now().Add(-time.Minute).Truncate(time.Millisecond)
	cases := []struct {
		id       string
		events   string
		eventsAt time.Duration // events.jsonl's modification time, after start
		shotAt   time.Duration // a screenshot's (0: none)
		want     int64
	}{
		// killed in a long step: the heartbeat touched the file at 9 s
		{"20261201T120000000-aaa1", `{"kind":"started","t":300}` + "\n", 9 * time.Second, 0, 9000},
		// a screenshot written last
		{"20261201T120000000-aaa2", `{"kind":"started","t":300}` + "\n", 400 * time.Millisecond, 8 * time.Second, 8000},
		// file times lost (a copied folder): the last whole event line counts
		{"20261201T120000000-aaa3", `{"kind":"started","t":300}` + "\n" + `{"kind":"finished","t":9500}` + "\n" + `{"kind":"sta`, 0, 0, 9500},
	}
	for _, tc := range cases {
		if _, err := s.db.Exec(`INSERT INTO runs (id, flow, start_ms, status, owner_pid, owner_start) VALUES (?,?,?,?,?,?)`,
			tc.id, "f", start.UnixMilli(), StatusRunning, os.Getpid(), s.me.start+12345); err != nil { // a reused pid: dead
			t.Fatal(err)
		}
		dir := s.RunDir(tc.id)
		if err := os.MkdirAll(filepath.Join(dir, "screenshots"), 0o700); err != nil {
			t.Fatal(err)
		}
		ev := filepath.Join(dir, "events.jsonl")
		if err := os.WriteFile(ev, []byte(tc.events), 0o600); err != nil {
			t.Fatal(err)
		}
		at := start.Add(tc.eventsAt)
		if err := os.Chtimes(ev, at, at); err != nil {
			t.Fatal(err)
		}
		if tc.shotAt > 0 {
			shot := filepath.Join(dir, "screenshots", "2.png")
			os.WriteFile(shot, []byte("png"), 0o600)
			at := start.Add(tc.shotAt)
			if err := os.Chtimes(shot, at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	s.Close()
	s = openT(t, home, Options{})
	for _, tc := range cases {
		r, err := s.Get(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != StatusInterrupted || r.DurationMs != tc.want {
			t.Errorf("%s: %s after %d ms, want interrupted after %d ms", tc.id, r.Status, r.DurationMs, tc.want)
		}
	}
}
