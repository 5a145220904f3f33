package schedule

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
)

// start is a Monday, 07:59:30 UTC.
var start = time.Date(2026, 3, 2, 7, 59, 30, 0, time.UTC)

const siteFlow = `flow site_check "open the site"
param base_url: string = "http://127.0.0.1:8080"
param region: string = "110000"

open "{{ base_url }}/query?r={{ region }}"
`

type env struct {
	t     *testing.T
	home  string
	flow  string
	st    *runs.Store
	clock *FakeClock
}

func newEnv(t *testing.T) *env {
	t.Helper()
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	flows := filepath.Join(home, "flows")
	os.MkdirAll(flows, 0o755)
	p := filepath.Join(flows, "site_check.flow")
	if err := os.WriteFile(p, []byte(siteFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, home: home, flow: p, clock: NewFakeClock(start)}
	e.st = e.open()
	return e
}

func (e *env) open() *runs.Store {
	e.t.Helper()
	st, err := runs.Open(e.home, runs.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	return st
}

// add adds a schedule of the site_check flow.
func (e *env) add(d Def) *Def {
	e.t.Helper()
	if err := Prepare(&d, e.flow, "", e.clock.Now()); err != nil {
		e.t.Fatal(err)
	}
	if _, err := Add(e.st, &d, e.clock.Now()); err != nil {
		e.t.Fatal(err)
	}
	return &d
}

// fakeRunner records each attempt as a run in the store (as localrun
// does, with the schedule's name) and fails it while fail says so. When
// hold is set each run waits for a value on it.
type fakeRunner struct {
	st    *runs.Store
	mu    sync.Mutex
	calls []Job
	fail  func(n int, j Job) string // n: 1-based call number; "" passes
	busy  func(n int) string
	// busyPID is the Outcome's BusyPID when busy says busy.
	busyPID int
	hold    chan struct{}
	// started receives once per run that got past busy (when not nil).
	started chan struct{}
	live    atomic.Int32
	peak    atomic.Int32
}

func (r *fakeRunner) Run(ctx context.Context, j Job) Outcome {
	r.mu.Lock()
	r.calls = append(r.calls, j)
	n := len(r.calls)
	r.mu.Unlock()
	if r.busy != nil {
		if b := r.busy(n); b != "" {
			return Outcome{Busy: b, BusyPID: r.busyPID}
		}
	}
	live := r.live.Add(1)
	defer r.live.Add(-1)
	if r.started != nil {
		r.started <- struct{}{}
	}
	for {
		p := r.peak.Load()
		if live <= p || r.peak.CompareAndSwap(p, live) {
			break
		}
	}
	run := &runs.Run{Flow: j.Def.FlowName, Caller: runs.Caller{Kind: runs.CallerSchedule}, Schedule: j.Def.Name, RetryOf: j.RetryOf}
	if _, err := r.st.Begin(run); err != nil {
		return Outcome{Status: runs.StatusFailed, Error: err.Error()}
	}
	if j.Started != nil {
		j.Started(run.ID)
	}
	if r.hold != nil {
		select {
		case <-r.hold:
		case <-ctx.Done():
			r.st.Finish(run.ID, runs.Outcome{Status: runs.StatusCancelled})
			return Outcome{RunID: run.ID, Status: runs.StatusCancelled}
		}
	}
	msg := ""
	if r.fail != nil {
		msg = r.fail(n, j)
	}
	if msg != "" {
		r.st.Finish(run.ID, runs.Outcome{Status: runs.StatusFailed, ErrorKind: "timeout", ErrorMessage: msg, ErrorLine: 5, ErrorAction: "open"})
		return Outcome{RunID: run.ID, Status: runs.StatusFailed, Error: "line 5: timeout: " + msg}
	}
	r.st.Finish(run.ID, runs.Outcome{Status: runs.StatusOK})
	return Outcome{RunID: run.ID, Status: runs.StatusOK}
}

func (r *fakeRunner) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

type noticeLog struct {
	mu   sync.Mutex
	desk []string
}

func (e *env) scheduler(st *runs.Store, r Runner, program string) (*Scheduler, *noticeLog) {
	nl := &noticeLog{}
	s := New(Config{Store: st, Runner: r, Clock: e.clock, Program: program, MaxRunning: 4,
		Notify: &Notifier{Clock: e.clock, Desktop: func(title, text string) error {
			nl.mu.Lock()
			nl.desk = append(nl.desk, title+": "+text)
			nl.mu.Unlock()
			return nil
		}}})
	return s, nl
}

// tick runs one round and waits for what it started.
func tick(s *Scheduler) {
	s.Tick(context.Background())
	s.Wait()
}

func scheduledRuns(t *testing.T, st *runs.Store, name string) []*runs.Run {
	t.Helper()
	l, err := st.List(runs.Filter{Schedule: name, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A schedule fires at its due time, not before; the run is an ordinary
// run marked with its schedule.
func TestFiresAtDueTime(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "morning", Cron: "0 8 * * 1-5", TZ: "UTC"})
	r := &fakeRunner{st: e.st}
	s, _ := e.scheduler(e.st, r, "rpa schedule daemon")
	tick(s)
	if r.count() != 0 {
		t.Fatal("fired before its time")
	}
	if ok, holder := s.Leader(); !ok || !strings.Contains(holder, "rpa schedule daemon (pid") {
		t.Fatalf("leader %v %q", ok, holder)
	}
	e.clock.Set(time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC))
	tick(s) // queues the fire and starts it
	tick(s)
	if r.count() != 1 {
		t.Fatalf("%d runs at 08:00", r.count())
	}
	l := scheduledRuns(t, e.st, "morning")
	if len(l) != 1 || l[0].Status != runs.StatusOK || l[0].Caller.Kind != runs.CallerSchedule {
		t.Fatalf("runs: %+v", l)
	}
	fs, _ := e.st.Fires("morning", 0)
	if len(fs) != 1 || fs[0].State != runs.FireOK || fs[0].RunID != l[0].ID || fs[0].Site != "127.0.0.1:8080" || fs[0].Kind != runs.FireCron {
		t.Fatalf("fires: %+v", fs)
	}
	rec, _ := e.st.Schedule("morning")
	if want := time.Date(2026, 3, 3, 8, 0, 0, 0, time.UTC); !rec.Next.Equal(want) {
		t.Fatalf("next = %v, want %v", rec.Next, want)
	}
}

// Two schedulers on one run store (two processes: each its own
// connection), ticking at the same times: every due time runs once, and
// when the one holding the lease stops, the other takes over without a
// gap or a double.
func TestTwoSchedulersFireOnce(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "often", Every: Duration(time.Minute)})
	stA, stB := e.open(), e.open()
	ra, rb := &fakeRunner{st: stA}, &fakeRunner{st: stB}
	a, _ := e.scheduler(stA, ra, "rpa ui")
	b, _ := e.scheduler(stB, rb, "rpa schedule daemon")
	both := func() {
		var wg sync.WaitGroup
		for _, s := range []*Scheduler{a, b} {
			wg.Add(1)
			go func() { defer wg.Done(); tick(s) }()
		}
		wg.Wait()
	}
	// They tick every PollEvery, as Run does at the most.
	const minutes = 10
	for i := 0; i < minutes*int(time.Minute/PollEvery); i++ {
		e.clock.Advance(PollEvery)
		both()
	}
	if got := len(scheduledRuns(t, e.st, "often")); got != minutes {
		t.Fatalf("%d runs for %d due times (a: %d, b: %d)", got, minutes, ra.count(), rb.count())
	}
	if ra.count() > 0 && rb.count() > 0 {
		t.Fatalf("both ran fires while one held the lease: a %d, b %d", ra.count(), rb.count())
	}
	// The holder stops (gives the lease up, as Run does at its end); the
	// other one fires from the next due time on.
	leader, other, otherRunner := a, b, rb
	if rb.count() > 0 {
		leader, other, otherRunner = b, a, ra
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	leader.Run(ctx)
	for i := 0; i < 3*int(time.Minute/PollEvery); i++ {
		e.clock.Advance(PollEvery)
		tick(other)
	}
	if got := len(scheduledRuns(t, e.st, "often")); got != minutes+3 || otherRunner.count() != 3 {
		t.Fatalf("after the take-over: %d runs, the other ran %d", got, otherRunner.count())
	}
	fs, _ := e.st.Fires("often", 100)
	seen := map[time.Time]bool{}
	for _, f := range fs {
		if seen[f.Due] || f.State != runs.FireOK || len(f.Runs) != 1 {
			t.Fatalf("fire %+v (twice, or not one run)", f)
		}
		seen[f.Due] = true
	}
}

// Pause: no fires while paused, and times missed while paused are not
// made up on resume, whatever the policy.
func TestPauseResume(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "hourly", Cron: "0 * * * *", TZ: "UTC", Missed: MissedOnce})
	r := &fakeRunner{st: e.st}
	s, _ := e.scheduler(e.st, r, "rpa ui")
	if err := Pause(e.st, "hourly", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		e.clock.Advance(time.Hour)
		tick(s)
	}
	if r.count() != 0 {
		t.Fatalf("%d runs while paused", r.count())
	}
	if err := Resume(e.st, "hourly", e.clock.Now()); err != nil {
		t.Fatal(err)
	}
	tick(s)
	if r.count() != 0 {
		t.Fatalf("resume made up %d runs", r.count())
	}
	e.clock.Set(time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC))
	tick(s)
	tick(s)
	if r.count() != 1 {
		t.Fatalf("%d runs after resume at 11:00", r.count())
	}
}

// After a gap (no process up from 08:00 to 10:30), skip notes the missed
// times and runs nothing; once runs one catch-up.
func TestMissedPolicies(t *testing.T) {
	for _, c := range []struct {
		policy string
		runs   int
	}{{MissedSkip, 0}, {MissedOnce, 1}} {
		t.Run(c.policy, func(t *testing.T) {
			e := newEnv(t)
			e.add(Def{Name: "hourly", Cron: "0 * * * *", TZ: "UTC", Missed: c.policy})
			e.clock.Set(time.Date(2026, 3, 2, 10, 30, 0, 0, time.UTC))
			r := &fakeRunner{st: e.st}
			s, _ := e.scheduler(e.st, r, "rpa ui")
			tick(s)
			tick(s)
			if r.count() != c.runs {
				t.Fatalf("%d runs, want %d", r.count(), c.runs)
			}
			fs, _ := e.st.Fires("hourly", 0)
			var missed *runs.Fire
			for _, f := range fs {
				if f.Kind == runs.FireMissed {
					missed = f
				}
			}
			if missed == nil || missed.State != runs.FireSkipped || !strings.Contains(missed.Error, "missed 3 due times") {
				t.Fatalf("missed note: %+v", fs)
			}
			rec, _ := e.st.Schedule("hourly")
			if want := time.Date(2026, 3, 2, 11, 0, 0, 0, time.UTC); !rec.Next.Equal(want) {
				t.Fatalf("next %v", rec.Next)
			}
		})
	}
}

// A flow failing twice then passing is retried after 1m, then 2m: three
// runs in the history, each retry linked to the run it retries; no notice.
func TestRetriesWithBackoff(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "flaky", Every: Duration(time.Hour), Retries: 3, Backoff: Duration(time.Minute)})
	r := &fakeRunner{st: e.st, fail: func(n int, _ Job) string {
		if n <= 2 {
			return "the page did not load"
		}
		return ""
	}}
	s, nl := e.scheduler(e.st, r, "rpa ui")
	e.clock.Advance(time.Hour)
	tick(s)
	tick(s)
	if r.count() != 1 {
		t.Fatalf("%d attempts at the due time", r.count())
	}
	// Not before the backoff.
	e.clock.Advance(59 * time.Second)
	tick(s)
	if r.count() != 1 {
		t.Fatal("retried before its backoff")
	}
	fs, _ := e.st.Fires("flaky", 0)
	if fs[0].State != runs.FireQueued || !strings.Contains(fs[0].Waiting, "retry 2 of 4") {
		t.Fatalf("fire between attempts: %+v", fs[0])
	}
	e.clock.Advance(time.Second)
	tick(s)
	if r.count() != 2 {
		t.Fatalf("%d attempts after 1m", r.count())
	}
	e.clock.Advance(time.Minute) // the second backoff is 2m
	tick(s)
	if r.count() != 2 {
		t.Fatal("the second retry did not wait twice as long")
	}
	e.clock.Advance(time.Minute)
	tick(s)
	if r.count() != 3 {
		t.Fatalf("%d attempts after 1m+2m", r.count())
	}
	l := scheduledRuns(t, e.st, "flaky")
	if len(l) != 3 {
		t.Fatalf("%d runs", len(l))
	}
	// Newest first: ok, failed, failed; each retry names the one before.
	if l[0].Status != runs.StatusOK || l[1].Status != runs.StatusFailed || l[2].Status != runs.StatusFailed ||
		l[0].RetryOf != l[1].ID || l[1].RetryOf != l[2].ID || l[2].RetryOf != "" {
		t.Fatalf("runs not linked: %+v", l)
	}
	fs, _ = e.st.Fires("flaky", 0)
	if fs[0].State != runs.FireOK || fs[0].Attempt != 3 || len(fs[0].Runs) != 3 || fs[0].Notify != "" || len(nl.desk) != 0 {
		t.Fatalf("fire %+v, notices %q", fs[0], nl.desk)
	}
}

// A run that never passes: after its retries, exactly one failure notice
// reaches the webhook (JSON with the run ID and the summary, no argument
// values) and the desktop; later ticks send nothing more.
func TestFailureNotice(t *testing.T) {
	e := newEnv(t)
	var posts []map[string]any
	var mu sync.Mutex
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("webhook body %q: %v", b, err)
		}
		if strings.Contains(string(b), "330100") {
			t.Errorf("the notice holds an argument value: %s", b)
		}
		mu.Lock()
		posts = append(posts, m)
		mu.Unlock()
	}))
	defer hook.Close()
	e.add(Def{Name: "broken", Every: Duration(time.Hour), Retries: 1, Backoff: Duration(time.Minute), Notify: hook.URL + "/hook",
		Args: map[string]string{"region": "330100"}})
	r := &fakeRunner{st: e.st, fail: func(int, Job) string { return "wait: timed out after 10s waiting for #data" }}
	s, nl := e.scheduler(e.st, r, "rpa ui")
	e.clock.Advance(time.Hour)
	tick(s)
	tick(s)
	e.clock.Advance(time.Minute)
	tick(s) // the retry fails: final
	tick(s) // the notice goes out
	for i := 0; i < 3; i++ {
		e.clock.Advance(time.Second)
		tick(s)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(posts) != 1 || len(nl.desk) != 1 {
		t.Fatalf("%d webhook posts, %d desktop notices", len(posts), len(nl.desk))
	}
	p := posts[0]
	l := scheduledRuns(t, e.st, "broken")
	if p["event"] != "schedule.failed" || p["schedule"] != "broken" || p["runId"] != l[0].ID || p["attempts"] != 2.0 ||
		!strings.Contains(p["summary"].(string), "timed out") {
		t.Fatalf("notice %v", p)
	}
	if errm, _ := p["error"].(map[string]any); errm["kind"] != "timeout" || errm["line"] != 5.0 {
		t.Fatalf("notice error %v", p["error"])
	}
	fs, _ := e.st.Fires("broken", 0)
	if fs[0].State != runs.FireFailed || fs[0].Notify != "sent" {
		t.Fatalf("fire %+v", fs[0])
	}
	if !strings.Contains(nl.desk[0], "rpa: schedule broken: site_check failed after 2 attempt(s)") {
		t.Fatalf("desktop notice %q", nl.desk[0])
	}
}

// A webhook that cannot be reached at fire time is tried WebhookTries
// times with a doubling wait, then the fire says the notice failed.
func TestFailureNoticeUnreachable(t *testing.T) {
	e := newEnv(t)
	var hits atomic.Int32
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer hook.Close()
	e.add(Def{Name: "broken", Every: Duration(time.Hour), Notify: hook.URL})
	r := &fakeRunner{st: e.st, fail: func(int, Job) string { return "boom" }}
	s, _ := e.scheduler(e.st, r, "rpa ui")
	// Each wait between tries passes once the notice waits on the clock.
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-e.clock.Waiting():
				e.clock.Advance(time.Minute)
			}
		}
	}()
	e.clock.Advance(time.Hour)
	tick(s) // the run fails; its notice may go out in this tick or the next
	tick(s)
	fs, _ := e.st.Fires("broken", 0)
	if hits.Load() != WebhookTries || !strings.HasPrefix(fs[0].Notify, "failed: webhook "+hook.URL+": answered 503") {
		t.Fatalf("%d tries, notify %q", hits.Load(), fs[0].Notify)
	}
}

// A per-site limit of one holds with three due runs for that site: one
// runs, two wait saying why; as each ends the next starts.
func TestSiteLimit(t *testing.T) {
	e := newEnv(t)
	for _, n := range []string{"a", "b", "c"} {
		e.add(Def{Name: n, Cron: "0 8 * * *", TZ: "UTC", Limits: runs.Limits{Site: 1}})
	}
	r := &fakeRunner{st: e.st, hold: make(chan struct{})}
	s, _ := e.scheduler(e.st, r, "rpa ui")
	e.clock.Set(time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC))
	s.Tick(context.Background()) // queues the three fires, starts one
	s.Tick(context.Background())
	var waiting []string
	fs, _ := e.st.ActiveFires()
	for _, f := range fs {
		if f.State == runs.FireQueued {
			waiting = append(waiting, f.Waiting)
		}
	}
	if len(fs) != 3 || len(waiting) != 2 || !strings.Contains(waiting[0], "site 127.0.0.1:8080 has 1 scheduled run(s) running, its limit (--max-concurrent site=1)") {
		t.Fatalf("fires %d, waiting %q", len(fs), waiting)
	}
	for i := 0; i < 3; i++ {
		r.hold <- struct{}{}
		s.Wait()
		s.Tick(context.Background())
	}
	s.Wait()
	if r.count() != 3 || r.peak.Load() != 1 {
		t.Fatalf("%d runs, at most %d at once", r.count(), r.peak.Load())
	}
}

// TestIdleHoldsLease: a scheduler with no schedule yet holds the lease
// from its first tick, so the first schedule added is shown fired by it at
// once (it gave the lease up while idle: rpa schedule add and list said no
// process fires schedules until its next tick).
func TestIdleHoldsLease(t *testing.T) {
	e := newEnv(t)
	s, _ := e.scheduler(e.st, &fakeRunner{st: e.st}, "rpa ui")
	tick(s)
	if ok, holder := s.Leader(); !ok || !strings.Contains(holder, "rpa ui (pid") {
		t.Fatalf("an idle scheduler: leader %v %q", ok, holder)
	}
	e.add(Def{Name: "first", Every: Duration(time.Hour)})
	d, err := Show(e.st, "first", e.clock.Now(), 0)
	if err != nil || !strings.Contains(d.FiredBy, "rpa ui (pid") {
		t.Fatalf("the first schedule added: fired by %q, %v", d.FiredBy, err)
	}
}

// TestMaxRunningSaysWhy: a fire queued because the process already runs
// --max-running scheduled runs says so (rpa schedule show: "queued,
// waiting: ..."), and the log names an --every schedule's due time "on
// time", not "(cron)".
func TestMaxRunningSaysWhy(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "a", Every: Duration(time.Hour)})
	e.add(Def{Name: "b", Every: Duration(time.Hour)})
	r := &fakeRunner{st: e.st, hold: make(chan struct{})}
	var logMu sync.Mutex
	var logged []string
	s := New(Config{Store: e.st, Runner: r, Clock: e.clock, Program: "rpa schedule daemon", MaxRunning: 1,
		Log: func(m string) { logMu.Lock(); logged = append(logged, m); logMu.Unlock() }})
	s.Tick(context.Background()) // sets the first due times
	e.clock.Advance(time.Hour)
	s.Tick(context.Background()) // queues both, starts one
	s.Tick(context.Background())
	d, err := Show(e.st, "b", e.clock.Now(), 10)
	if err != nil {
		t.Fatal(err)
	}
	da, _ := Show(e.st, "a", e.clock.Now(), 10)
	if len(da.Active) == 1 && da.Active[0].State == runs.FireQueued {
		d = da // whichever of the two waits
	}
	var b strings.Builder
	if err := WriteDetail(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "queued, waiting: rpa schedule daemon runs 1 scheduled runs at once already, its most (--max-running 1)") {
		t.Errorf("show of the waiting fire:\n%s", b.String())
	}
	logMu.Lock()
	all := strings.Join(logged, "\n")
	logMu.Unlock()
	if !strings.Contains(all, "(on time)") || strings.Contains(all, "(cron)") {
		t.Errorf("log:\n%s", all)
	}
	for i := 0; i < 2; i++ {
		r.hold <- struct{}{}
		s.Wait()
		s.Tick(context.Background())
	}
	s.Wait()
	if r.count() != 2 {
		t.Fatalf("%d runs", r.count())
	}
}

// A run whose profile is in use waits BusyWait and runs then, the wait
// not counted as an attempt; a run-now is queued as a manual fire.
func TestBusyAndRunNow(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "once", Cron: "0 8 1 1 *", TZ: "UTC", Profile: "shop"})
	r := &fakeRunner{st: e.st, busy: func(n int) string {
		if n == 1 {
			return "profile shop is in use by rpa (pid 42)"
		}
		return ""
	}}
	s, _ := e.scheduler(e.st, r, "rpa ui")
	id, err := RunNow(e.st, "once", e.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	tick(s)
	f, _ := e.st.Fire(id)
	if f.State != runs.FireQueued || f.Attempt != 0 || !strings.Contains(f.Waiting, "in use") || f.Account != "profile:shop" || f.Kind != runs.FireManual {
		t.Fatalf("busy fire %+v", f)
	}
	tick(s)
	if r.count() != 1 {
		t.Fatal("retried before BusyWait")
	}
	e.clock.Advance(BusyWait)
	tick(s)
	f, _ = e.st.Fire(id)
	if r.count() != 2 || f.State != runs.FireOK || f.Attempt != 1 {
		t.Fatalf("after BusyWait: %d calls, %+v", r.count(), f)
	}
	if _, err := RunNow(e.st, "nope", e.clock.Now()); err == nil || !strings.Contains(err.Error(), "no such schedule") {
		t.Fatalf("run-now of an unknown schedule: %v", err)
	}
}

// A fire that waits longer than MaxWait is dropped with a notice.
func TestQueueBound(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "x", Cron: "0 8 1 1 *", TZ: "UTC", Profile: "shop"})
	r := &fakeRunner{st: e.st, busy: func(int) string { return "profile shop is in use by rpa (pid 42)" }}
	s, nl := e.scheduler(e.st, r, "rpa ui")
	id, _ := RunNow(e.st, "x", e.clock.Now())
	for i := 0; i < int(MaxWait/BusyWait)+2; i++ {
		tick(s)
		e.clock.Advance(BusyWait)
	}
	tick(s)
	tick(s)
	f, _ := e.st.Fire(id)
	if f.State != runs.FireDropped || !strings.Contains(f.Error, "waited longer than 1h to start") || !strings.Contains(f.Error, "in use") || f.Notify != "sent" || len(nl.desk) != 1 {
		t.Fatalf("fire %+v, notices %q", f, nl.desk)
	}
	// It never started: a failed run of the schedule says why (busy).
	l := scheduledRuns(t, e.st, "x")
	if len(l) != 1 || f.RunID != l[0].ID || l[0].Status != runs.StatusFailed || l[0].ErrorKind != "busy" || l[0].Profile != "shop" ||
		!strings.Contains(l[0].ErrorMessage, "the run did not start: it waited longer than 1h to start: profile shop is in use") {
		t.Fatalf("runs %+v, fire %+v", l, f)
	}
}

// Run stops cleanly: its runs are cancelled and queued again (not
// counted), the lease is given up.
func TestRunStops(t *testing.T) {
	e := newEnv(t)
	e.add(Def{Name: "x", Cron: "0 8 1 1 *", TZ: "UTC"})
	r := &fakeRunner{st: e.st, hold: make(chan struct{}), started: make(chan struct{}, 1)}
	s, _ := e.scheduler(e.st, r, "rpa ui")
	id, _ := RunNow(e.st, "x", e.clock.Now())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- s.Run(ctx) }()
	<-r.started
	cancel()
	<-done
	f, _ := e.st.Fire(id)
	if f.State != runs.FireQueued || f.Attempt != 0 || !strings.Contains(f.Waiting, "its process stopped") {
		t.Fatalf("fire after stop: %+v", f)
	}
	if _, ok, _ := e.st.LeaseHolder(LeaseName, e.clock.Now()); ok {
		t.Fatal("the lease is still held")
	}
}
