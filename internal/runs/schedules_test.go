package runs

import (
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)

func addSched(t *testing.T, s *Store, name string, next time.Time) {
	t.Helper()
	err := s.AddSchedule(&ScheduleRecord{Name: name, Flow: "f", Def: []byte(`{"cron":"0 8 * * *"}`), Next: next, Created: t0, Updated: t0})
	if err != nil {
		t.Fatal(err)
	}
}

// An old database (runs without the schedule columns) gets them at Open,
// keeps its rows, and a second Open changes nothing.
func TestMigrateAddsColumns(t *testing.T) {
	home := t.TempDir()
	dir := filepath.Join(home, "runs")
	old := strings.Replace(schema, "PRAGMA user_version = 1;", "", 1)
	if err := mkdirDB(dir, old, `INSERT INTO runs(id, flow, start_ms, status) VALUES ('20260101T000000000-abcd','old',1,'ok')`); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		s := openT(t, home, Options{})
		r, err := s.Get("20260101T000000000-abcd")
		if err != nil || r.Flow != "old" || r.Schedule != "" {
			t.Fatalf("open %d: %+v %v", i, r, err)
		}
		nr := &Run{Flow: "new", Schedule: "daily", RetryOf: "20260101T000000000-abcd", Caller: Caller{Kind: CallerSchedule}}
		if _, err := s.Begin(nr); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(nr.ID)
		if err != nil || got.Schedule != "daily" || got.RetryOf != "20260101T000000000-abcd" {
			t.Fatalf("new run: %+v %v", got, err)
		}
		l, err := s.List(Filter{Schedule: "daily"})
		if err != nil || len(l) != i+1 {
			t.Fatalf("List(schedule) = %d runs, %v", len(l), err)
		}
		s.Close()
	}
}

func mkdirDB(dir, schema, insert string) error {
	s, err := Open(filepath.Dir(dir), Options{}) // creates the folder and a current database
	if err != nil {
		return err
	}
	s.Close()
	db, err := sql.Open("sqlite", filepath.Join(dir, DBName))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, q := range []string{`DROP TABLE runs`, schema, insert} {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	return nil
}

// Several stores (as several processes) advancing the same due time: one
// wins, its fire is stored once.
func TestAdvanceScheduleOnce(t *testing.T) {
	home := t.TempDir()
	first := openT(t, home, Options{})
	addSched(t, first, "daily", t0)
	const n = 4
	stores := []*Store{first}
	for i := 1; i < n; i++ {
		stores = append(stores, openT(t, home, Options{}))
	}
	var wg sync.WaitGroup
	wins := make(chan bool, n)
	for _, s := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := s.AdvanceSchedule("daily", t0, t0.Add(24*time.Hour), []Fire{{Due: t0, Kind: FireCron, Flow: "f", MaxAttempts: 2}}, t0)
			if err != nil {
				t.Error(err)
			}
			wins <- ok
		}()
	}
	wg.Wait()
	close(wins)
	won := 0
	for ok := range wins {
		if ok {
			won++
		}
	}
	fs, err := first.Fires("daily", 0)
	if err != nil {
		t.Fatal(err)
	}
	if won != 1 || len(fs) != 1 || fs[0].State != FireQueued || fs[0].MaxAttempts != 2 {
		t.Fatalf("won %d, fires %+v", won, fs)
	}
	r, _ := first.Schedule("daily")
	if !r.Next.Equal(t0.Add(24 * time.Hour)) {
		t.Fatalf("next = %v", r.Next)
	}
}

// A per-site limit of one: of three queued fires for one site one starts;
// the others wait, saying why, until it ends.
func TestClaimFireLimit(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	addSched(t, s, "a", t0)
	var ids []int64
	for i := 0; i < 3; i++ {
		id, err := s.QueueFire(Fire{Schedule: "a", Flow: "f", Site: "example.com", MaxAttempts: 2, Limits: Limits{Site: 1}}, t0)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	h := Me("tok", "test")
	c, err := s.ClaimFire(ids[0], h, t0)
	if err != nil || !c.Started || c.Fire.Attempt != 1 {
		t.Fatalf("first claim: %+v %v", c, err)
	}
	for _, id := range ids[1:] {
		c, err := s.ClaimFire(id, h, t0)
		if err != nil || c.Started || !strings.Contains(c.Waiting, "site example.com") {
			t.Fatalf("claim over the limit: %+v %v", c, err)
		}
		f, _ := s.Fire(id)
		if f.Waiting != c.Waiting || f.State != FireQueued {
			t.Fatalf("waiting fire = %+v", f)
		}
	}
	// Another holder cannot end it; its holder can.
	if ok, _ := s.EndFire(ids[0], Me("other", "x"), FireEnd{State: FireOK}, t0); ok {
		t.Fatal("EndFire by a non-holder succeeded")
	}
	if ok, err := s.EndFire(ids[0], h, FireEnd{State: FireOK, RunID: "20260302T080000000-aaaa"}, t0); !ok || err != nil {
		t.Fatalf("EndFire: %v %v", ok, err)
	}
	c, err = s.ClaimFire(ids[1], h, t0)
	if err != nil || !c.Started {
		t.Fatalf("claim after the first ended: %+v %v", c, err)
	}
	// A retry waits for its backoff, then keeps the runs of both attempts.
	if err := s.StartRun(ids[1], h, "20260302T080000000-bbbb"); err != nil {
		t.Fatal(err)
	}
	if f, _ := s.Fire(ids[1]); f.RunID != "20260302T080000000-bbbb" || len(f.Runs) != 1 {
		t.Fatalf("after StartRun: %+v", f)
	}
	ok, err := s.EndFire(ids[1], h, FireEnd{State: FireQueued, RunID: "20260302T080000000-bbbb", NotBefore: t0.Add(time.Minute), Error: "boom"}, t0)
	if !ok || err != nil {
		t.Fatal(ok, err)
	}
	if c, _ := s.ClaimFire(ids[1], h, t0.Add(30*time.Second)); c.Started || !strings.Contains(c.Waiting, "retry 2 of 2") {
		t.Fatalf("claim before the backoff: %+v", c)
	}
	if c, _ := s.ClaimFire(ids[1], h, t0.Add(time.Minute)); !c.Started || c.Fire.Attempt != 2 {
		t.Fatalf("claim after the backoff: %+v", c.Fire)
	}
	s.EndFire(ids[1], h, FireEnd{State: FireFailed, RunID: "20260302T080100000-cccc", Error: "boom", Notify: true}, t0.Add(time.Minute))
	f, _ := s.Fire(ids[1])
	if f.State != FireFailed || strings.Join(f.Runs, ",") != "20260302T080000000-bbbb,20260302T080100000-cccc" ||
		f.RunID != "20260302T080100000-cccc" || f.Notify != "pending" {
		t.Fatalf("failed fire = %+v", f)
	}
	// The notice is handed out once.
	n1, _ := s.PendingNotices(h)
	n2, _ := s.PendingNotices(Me("other", "x"))
	if len(n1) != 1 || len(n2) != 0 {
		t.Fatalf("notices: %d then %d", len(n1), len(n2))
	}
	s.NoticeDone(ids[1], "sent")
	if f, _ := s.Fire(ids[1]); f.Notify != "sent" {
		t.Fatalf("notify = %q", f.Notify)
	}
}

func TestLease(t *testing.T) {
	home := t.TempDir()
	a, b := openT(t, home, Options{}), openT(t, home, Options{})
	ha, hb := Me("a", "rpa ui"), Me("b", "rpa schedule daemon")
	if ok, cur, err := a.TakeLease("scheduler", ha, t0, 30*time.Second); !ok || err != nil || cur.Program != "rpa ui" {
		t.Fatal(ok, cur, err)
	}
	if ok, cur, _ := b.TakeLease("scheduler", hb, t0.Add(10*time.Second), 30*time.Second); ok || cur.Program != "rpa ui" {
		t.Fatalf("b took a held lease: %v %+v", ok, cur)
	}
	if ok, _, _ := a.TakeLease("scheduler", ha, t0.Add(20*time.Second), 30*time.Second); !ok {
		t.Fatal("renewal refused")
	}
	if ok, _, _ := b.TakeLease("scheduler", hb, t0.Add(49*time.Second), 30*time.Second); ok {
		t.Fatal("b took the lease before the renewed one ran out")
	}
	if ok, _, _ := b.TakeLease("scheduler", hb, t0.Add(51*time.Second), 30*time.Second); !ok {
		t.Fatal("b could not take a lease that ran out")
	}
	if h, ok, _ := a.LeaseHolder("scheduler", t0.Add(52*time.Second)); !ok || h.Program != "rpa schedule daemon" {
		t.Fatalf("holder = %+v %v", h, ok)
	}
	// A dead holder's lease is free at once.
	dead := hb
	dead.PID, dead.Token = 1<<22+12345, "dead"
	b.ReleaseLease("scheduler", hb)
	if ok, _, _ := b.TakeLease("scheduler", dead, t0.Add(60*time.Second), time.Hour); !ok {
		t.Fatal("no lease for the dead holder")
	}
	if ok, _, _ := a.TakeLease("scheduler", ha, t0.Add(61*time.Second), 30*time.Second); !ok {
		t.Fatal("a lease of a dead process was not taken over")
	}
}

func TestScheduleCRUD(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	v0, _ := s.SchedulesVersion()
	addSched(t, s, "daily", t0)
	if err := s.AddSchedule(&ScheduleRecord{Name: "daily", Def: []byte(`{}`)}); !errors.Is(err, ErrScheduleExists) {
		t.Fatalf("duplicate: %v", err)
	}
	if err := s.PauseSchedule("daily", true, time.Time{}, t0); err != nil {
		t.Fatal(err)
	}
	if r, _ := s.Schedule("daily"); !r.Paused || !r.Next.IsZero() {
		t.Fatalf("paused = %+v", r)
	}
	// A paused schedule does not advance.
	if ok, _ := s.AdvanceSchedule("daily", time.Time{}, t0, nil, t0); ok {
		t.Fatal("a paused schedule advanced")
	}
	if err := s.PauseSchedule("daily", false, t0.Add(time.Hour), t0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.QueueFire(Fire{Schedule: "nope"}, t0); !errors.Is(err, ErrNoSchedule) {
		t.Fatalf("QueueFire(unknown) = %v", err)
	}
	id1, _ := s.QueueFire(Fire{Schedule: "daily"}, t0)
	id2, _ := s.QueueFire(Fire{Schedule: "daily"}, t0)
	if id1 == 0 || id2 == 0 || id1 == id2 {
		t.Fatalf("two fires in one millisecond: %d %d", id1, id2)
	}
	if v, _ := s.SchedulesVersion(); v != v0+5 {
		t.Fatalf("version %d -> %d", v0, v)
	}
	if err := s.RemoveSchedule("daily"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Schedule("daily"); !errors.Is(err, ErrNoSchedule) {
		t.Fatalf("after rm: %v", err)
	}
	if fs, _ := s.ActiveFires(); len(fs) != 0 {
		t.Fatalf("fires left: %+v", fs)
	}
	if err := s.RemoveSchedule("daily"); !errors.Is(err, ErrNoSchedule) {
		t.Fatalf("rm twice: %v", err)
	}
}

// A fire left running by a process that died (kill -9) is handed to the
// next holder, and its run is marked interrupted; a live owner's is not.
func TestOrphanFires(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	addSched(t, s, "a", t0)
	id, _ := s.QueueFire(Fire{Schedule: "a", MaxAttempts: 2}, t0)
	dead := Me("dead", "rpa ui")
	if c, _ := s.ClaimFire(id, dead, t0); !c.Started {
		t.Fatal("no claim")
	}
	r := &Run{Flow: "f", Schedule: "a", Caller: Caller{Kind: CallerSchedule}}
	s.Begin(r)
	if got, _ := s.OrphanFires(Me("next", "rpa schedule daemon")); len(got) != 0 {
		t.Fatalf("a live owner's fire was taken: %+v", got)
	}
	if act, _ := s.ActiveFires(); len(act) != 1 || act[0].Orphan {
		t.Fatalf("a live owner's fire shown as an orphan: %+v", act)
	}
	s.db.Exec(`UPDATE schedule_fires SET owner_pid=? WHERE id=?`, 1<<22+12345, id)
	s.db.Exec(`UPDATE runs SET owner_pid=? WHERE id=?`, 1<<22+12345, r.ID)
	// Before any process takes it over, the board shows it as what it is.
	if act, _ := s.ActiveFires(); len(act) != 1 || !act[0].Orphan || act[0].State != FireRunning {
		t.Fatalf("a dead owner's fire not shown as an orphan: %+v", act)
	}
	next := Me("next", "rpa schedule daemon")
	got, err := s.OrphanFires(next)
	if err != nil || len(got) != 1 || got[0].ID != id || got[0].Attempt != 1 {
		t.Fatalf("orphans: %+v %v", got, err)
	}
	if ok, _ := s.EndFire(id, dead, FireEnd{State: FireOK}, t0); ok {
		t.Fatal("the dead holder still ends it")
	}
	if ok, _ := s.EndFire(id, next, FireEnd{State: FireQueued, Error: "interrupted"}, t0); !ok {
		t.Fatal("the new holder cannot end it")
	}
	if run, _ := s.Get(r.ID); run.Status != StatusInterrupted {
		t.Fatalf("run %+v", run)
	}
}
