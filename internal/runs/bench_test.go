package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fill stores n finished runs of 12 steps each, in one transaction.
func fill(b *testing.B, s *Store, n int) {
	b.Helper()
	tx, err := s.db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	t0 := time.Now().Add(-time.Duration(n) * time.Second)
	for i := 0; i < n; i++ {
		id := NewID(t0.Add(time.Duration(i) * time.Second))
		st := StatusOK
		if i%10 == 0 {
			st = StatusFailed
		}
		if _, err := tx.Exec(`INSERT INTO runs (id, flow, args, caller_kind, start_ms, duration_ms, status, actions, bytes)
			VALUES (?,?,?,?,?,?,?,?,?)`, id, fmt.Sprintf("flow%d", i%20), `{"user":"ann","password":"***"}`, "mcp",
			t0.UnixMilli(), 900, st, 12, 3000); err != nil {
			b.Fatal(err)
		}
		for j := 1; j <= 12; j++ {
			if _, err := tx.Exec(`INSERT INTO steps (run_id, idx, action, line, status, duration_ms, target) VALUES (?,?,?,?,?,?,?)`,
				id, j, "click", j+3, "ok", 40, "#submit"); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkList10k is `rpa runs` (the newest 50) over 10,000 stored runs;
// goal under 50 ms.
func BenchmarkList10k(b *testing.B) {
	s, err := Open(b.TempDir(), Options{Keep: 20000})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	fill(b, s, 10000)
	for _, c := range []struct {
		name string
		f    Filter
	}{{"newest50", Filter{}}, {"failed", Filter{Failed: true}}, {"flow", Filter{Flow: "flow7"}}, {"all", Filter{Limit: 10000}}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := s.List(c.f); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkOpen10k is opening a store of 10,000 runs (what `rpa runs`
// and every `rpa run` do first): "clean" after its last process closed it
// (the usual case: no page read beyond the ones the open needs), "unclean"
// after a process holding it was killed (Open reads every page: PRAGMA
// quick_check, clean.go).
func BenchmarkOpen10k(b *testing.B) {
	home := b.TempDir()
	s, err := Open(home, Options{Keep: 20000})
	if err != nil {
		b.Fatal(err)
	}
	fill(b, s, 10000)
	s.Close()
	for _, unclean := range []bool{false, true} {
		name := "clean"
		if unclean {
			name = "unclean"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if unclean { // as a killed holder leaves it
					b.StopTimer()
					os.WriteFile(filepath.Join(home, "runs", holdersDir, fmt.Sprintf("%d-%d-1", os.Getpid(), self().start+1)), nil, 0o600)
					b.StartTimer()
				}
				s, err := Open(home, Options{Keep: 20000})
				if err != nil {
					b.Fatal(err)
				}
				if s.checked != unclean {
					b.Fatalf("checked %v", s.checked)
				}
				if _, err := s.List(Filter{}); err != nil {
					b.Fatal(err)
				}
				s.Close()
			}
		})
	}
}

// BenchmarkRecordRun records one 12-step run the way a recorder does
// (Begin, 12 AddStep, Finish) and reports the database growth per run
// (db-bytes/run, WAL checkpointed; goal with the artifacts under 50 KB).
func BenchmarkRecordRun(b *testing.B) {
	home := b.TempDir()
	s, err := Open(home, Options{Keep: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	size := func() int64 {
		s.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`)
		fi, err := os.Stat(filepath.Join(s.Dir(), DBName))
		if err != nil {
			b.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r := &Run{Flow: "reference", Hash: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
			Args: map[string]any{"user": "ann", "password": "***"}, Caller: Caller{Kind: CallerMCP, Session: "abc", Client: "bench"}}
		if _, err := s.Begin(r); err != nil {
			b.Fatal(err)
		}
		for j := 1; j <= 12; j++ {
			if err := s.AddStep(r.ID, Step{Index: j, Action: "click", Line: j + 3, Status: "ok", DurationMs: 40,
				Target: "#submit", Selector: "#submit", SelectorIndex: 0}); err != nil {
				b.Fatal(err)
			}
		}
		if err := s.Finish(r.ID, Outcome{Status: StatusOK, DurationMs: 800}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(size()-before)/float64(b.N), "db-bytes/run")
}
