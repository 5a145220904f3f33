package schedule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
)

// Scheduler timings and bounds.
const (
	// LeaseName is the lease in the run store that makes one process the
	// scheduler.
	LeaseName = "scheduler"
	// LeaseTTL is how long the lease holds without a renewal; the holder
	// renews it at every tick (at most PollEvery apart). A holder whose
	// process died loses it at once.
	LeaseTTL = 30 * time.Second
	// PollEvery is the longest a scheduler sleeps: it then looks for
	// schedules other processes changed, a lease to take over, and a
	// clock that jumped (a machine that slept).
	PollEvery = 5 * time.Second
	// BusyWait is how long a run that could not start because its profile
	// was in use waits before it tries again (not counted as an attempt).
	BusyWait = 30 * time.Second
	// MaxWait bounds how long a fire waits in the queue (limits, busy
	// profiles, no free slot) before it is dropped, with a failure notice.
	MaxWait = time.Hour
	// MaxQueued bounds the waiting fires of one schedule; a newer one
	// beyond it is dropped (noted in the fire, without a notice).
	MaxQueued = 8
	// DefaultMaxRunning is how many scheduled runs one process runs at
	// once.
	DefaultMaxRunning = 2
)

// Runner runs one attempt of a fire. The desktop's is LocalRunner (the
// path `rpa run` takes); a cluster's would run it on a linked desktop.
type Runner interface {
	Run(ctx context.Context, j Job) Outcome
}

// Job is one attempt to run.
type Job struct {
	Def  *Def
	Fire *runs.Fire
	// RetryOf is the failed run this attempt retries ("" for the first).
	RetryOf string
	// Started, when set, is told the run's ID as soon as its record
	// begins, so a fire whose process dies mid-run still names its run.
	Started func(runID string)
}

// Outcome is how an attempt went.
type Outcome struct {
	RunID  string // its run ("" when none started)
	Status string // runs.StatusOK, StatusFailed or StatusCancelled
	// Error is the failure summary, masked ("click: #go is covered ..."),
	// or why the run could not start.
	Error string
	// Busy, when set, says why the run could not start now for a reason
	// that passes (its profile is in use): it is tried again after
	// BusyWait and the attempt does not count.
	Busy string
	// BusyPID is the process on this machine that keeps it Busy (the
	// holder of its account or profile), 0 when not known: once that
	// process has ended, rpa schedule show no longer names it.
	BusyPID int
	// Kind is the error kind (core.Kind) of an attempt that failed before
	// its run was recorded (RunID ""): the scheduler records such an
	// attempt as a failed run of the schedule with Error ("" is
	// core.KindBrowser, the default kind).
	Kind string
}

// Lease decides which process fires the schedules. The desktop's is a
// row in the run store (StoreLease); a cluster's would live in its shared
// store. Take is called at every tick: it takes or renews the lease and
// says whether this process holds it, and who does.
type Lease interface {
	Take(now time.Time) (held bool, holder string, err error)
	Release() error
}

// StoreLease is the lease as a row of the run store: held until
// LeaseTTL after its last renewal, or until its process dies.
type StoreLease struct {
	Store *runs.Store
	Me    runs.Holder
}

// Take takes or renews the lease (runs.Store.TakeLease).
func (l *StoreLease) Take(now time.Time) (bool, string, error) {
	ok, h, err := l.Store.TakeLease(LeaseName, l.Me, now, LeaseTTL)
	return ok, HolderText(h), err
}

// Release gives the lease up.
func (l *StoreLease) Release() error { return l.Store.ReleaseLease(LeaseName, l.Me) }

// HolderText is "rpa ui (pid 42)".
func HolderText(h runs.Holder) string { return fmt.Sprintf("%s (pid %d)", h.Program, h.PID) }

// Store is where a scheduler keeps schedules and fires: the run store
// (*runs.Store) on a desktop. Every method is one atomic step (the
// conditional updates that make a due time fire once and a fire start
// once, whoever else is looking); a cluster's store (schedules in a
// key-value bucket, fires in a durable work queue) would implement it.
type Store interface {
	Schedules() ([]*runs.ScheduleRecord, error)
	Schedule(name string) (*runs.ScheduleRecord, error)
	AdvanceSchedule(name string, from, to time.Time, fires []runs.Fire, now time.Time) (bool, error)
	ActiveFires() ([]*runs.Fire, error)
	Fire(id int64) (*runs.Fire, error)
	ClaimFire(id int64, h runs.Holder, now time.Time) (*runs.Claim, error)
	StartRun(id int64, h runs.Holder, runID string) error
	EndFire(id int64, h runs.Holder, e runs.FireEnd, now time.Time) (bool, error)
	DropFire(id int64, state, reason string, notify bool, runID string, now time.Time) (bool, error)
	// WaitFire says why a queued fire waits (runs.Store.WaitFire).
	WaitFire(id int64, why string) error
	// RecordUnstarted records an attempt that ended before its flow ran
	// as a run (runs.Store.RecordUnstarted).
	RecordUnstarted(r *runs.Run, o runs.Outcome) (string, error)
	OrphanFires(h runs.Holder) ([]*runs.Fire, error)
	PendingNotices(h runs.Holder) ([]*runs.Fire, error)
	NoticeDone(id int64, outcome string) error
	// Get is a run's record (for a failure notice's error).
	Get(id string) (*runs.Run, error)
}

var _ Store = (*runs.Store)(nil)

// Config is a scheduler's wiring. Store and Runner are required; Lease
// too unless Store is a *runs.Store.
type Config struct {
	Store  Store
	Runner Runner
	// Clock is the time (nil: SystemClock).
	Clock Clock
	// Program names this process in the lease and in `rpa schedule list`
	// ("rpa ui").
	Program string
	// Lease (nil: a StoreLease in Store, a *runs.Store).
	Lease Lease
	// Notify sends failure notices (nil: Notifier{} with the system's
	// desktop notification and webhooks).
	Notify NoticeSender
	// MaxRunning is how many scheduled runs this process runs at once
	// (0: DefaultMaxRunning).
	MaxRunning int
	// Log receives one line per event (fired, started, ended, missed);
	// nil drops them.
	Log func(string)
}

// NoticeSender delivers one failure notice (Notifier).
type NoticeSender interface {
	Send(ctx context.Context, d *Def, n *Notice) error
}

// Scheduler fires the schedules of one run store: while it holds the
// lease it queues due times (and missed ones, by policy), starts queued
// fires within their limits, retries failed ones with backoff and sends
// failure notices. Start it with Run; it is idle (no lease taken, only a
// poll of the store) while there are no schedules.
type Scheduler struct {
	c     Config
	clock Clock
	me    runs.Holder
	lease Lease
	wake  chan struct{}

	mu      sync.Mutex
	running map[int64]bool // fires whose attempt runs in this process
	sending map[int64]bool // notices being sent
	// busyUntil holds back fires whose run found its profile in use.
	busyUntil map[int64]time.Time
	leader    bool
	holder    string // the lease's holder, as text
	wg        sync.WaitGroup
	stopped   bool
}

// New makes a scheduler of c.
func New(c Config) *Scheduler {
	if c.Clock == nil {
		c.Clock = SystemClock{}
	}
	if c.MaxRunning <= 0 {
		c.MaxRunning = DefaultMaxRunning
	}
	if c.Notify == nil {
		c.Notify = &Notifier{Clock: c.Clock}
	}
	if c.Program == "" {
		c.Program = "rpa"
	}
	var tok [8]byte
	_, _ = rand.Read(tok[:])
	s := &Scheduler{c: c, clock: c.Clock, wake: make(chan struct{}, 1), running: map[int64]bool{}, sending: map[int64]bool{},
		busyUntil: map[int64]time.Time{}}
	s.me = runs.Me(hex.EncodeToString(tok[:]), c.Program)
	s.lease = c.Lease
	if rs, ok := c.Store.(*runs.Store); ok && s.lease == nil {
		s.lease = &StoreLease{Store: rs, Me: s.me}
	}
	return s
}

// Holder is this scheduler's identity in the store (fires it runs).
func (s *Scheduler) Holder() runs.Holder { return s.me }

// Kick wakes the scheduler now (a schedule was added or run by hand in
// this process).
func (s *Scheduler) Kick() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Scheduler) log(format string, a ...any) {
	if s.c.Log != nil {
		s.c.Log(fmt.Sprintf(format, a...))
	}
}

// Run ticks until ctx ends, sleeping until the next due time, retry,
// renewal or poll (at most PollEvery), or a Kick. Then it stops the runs
// it started (they are cancelled: their fires are queued again for the
// next scheduler, not counted as attempts), waits for them and gives up
// the lease.
func (s *Scheduler) Run(ctx context.Context) error {
	for {
		wait := s.Tick(ctx)
		select {
		case <-ctx.Done():
			s.mu.Lock()
			s.stopped = true
			s.mu.Unlock()
			s.wg.Wait()
			if s.isLeader() {
				_ = s.lease.Release()
			}
			return nil
		case <-s.wake:
		case <-s.clock.After(wait):
		}
	}
}

// Wait blocks until the runs and notices this scheduler started have
// ended (tests: after a Tick).
func (s *Scheduler) Wait() { s.wg.Wait() }

func (s *Scheduler) isLeader() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leader
}

// Leader says whether this scheduler holds the lease, and who does.
func (s *Scheduler) Leader() (bool, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leader, s.holder
}

// Tick does one round at the clock's time and returns how long to sleep:
// take or renew the lease (nothing more without it), end the attempts of
// fires whose process died, queue the due times, start what may start,
// send due notices. The lease is held while there is no schedule too: the
// process is the one that fires the first schedule added (rpa schedule add
// and list name it at once; it gave the lease up while idle, so they said
// nobody fires until its next tick, up to PollEvery later).
func (s *Scheduler) Tick(ctx context.Context) time.Duration {
	now := s.clock.Now()
	held, holder, err := s.lease.Take(now)
	if err != nil {
		s.log("schedules: lease: %v", err)
		return PollEvery
	}
	s.setLeader(held, holder)
	if !held {
		return PollEvery
	}
	recs, err := s.c.Store.Schedules()
	if err != nil {
		s.log("schedules: %v", err)
		return PollEvery
	}
	wait := PollEvery
	defs := map[string]*Def{}
	for _, r := range recs {
		d, err := DecodeDef(r.Def)
		if err != nil {
			s.log("schedule %s: %v", r.Name, err)
			continue
		}
		defs[r.Name] = d
		if next := s.advance(r, d, now); !next.IsZero() {
			wait = min(wait, max(next.Sub(now), 0))
		}
	}
	s.orphans(defs, now)
	if w := s.dispatch(ctx, defs, now); w > 0 {
		wait = min(wait, w)
	}
	s.notices(ctx, defs)
	return wait
}

func (s *Scheduler) setLeader(held bool, holder string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if held != s.leader {
		if held {
			s.logLocked("this process (%s) now fires the schedules", s.c.Program)
		}
	}
	s.leader, s.holder = held, holder
}

func (s *Scheduler) logLocked(format string, a ...any) {
	if s.c.Log != nil {
		s.c.Log(fmt.Sprintf(format, a...))
	}
}

// DecodeDef reads a definition the store holds.
func DecodeDef(b []byte) (*Def, error) {
	var d Def
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, fmt.Errorf("the stored definition is damaged: %v", err)
	}
	if d.Missed == "" {
		d.Missed = MissedSkip
	}
	return &d, nil
}

// advance queues r's due times up to now (Due) and returns its next due
// time after that (zero when paused or none).
func (s *Scheduler) advance(r *runs.ScheduleRecord, d *Def, now time.Time) time.Time {
	if r.Paused {
		return time.Time{}
	}
	w, err := d.When()
	if err != nil {
		s.log("schedule %s: %v", r.Name, err)
		return time.Time{}
	}
	if r.Next.IsZero() || now.Before(r.Next) {
		if r.Next.IsZero() {
			next := w.Next(now)
			if _, err := s.c.Store.AdvanceSchedule(r.Name, r.Next, next, nil, now); err != nil {
				s.log("schedule %s: %v", r.Name, err)
			}
			return next
		}
		return r.Next
	}
	plan := Due(w, d, r.Next, now)
	tmpl := FireTemplate(d)
	var fires []runs.Fire
	for _, f := range plan.Fires {
		f.Flow, f.Site, f.Account, f.Limits, f.MaxAttempts = tmpl.Flow, tmpl.Site, tmpl.Account, tmpl.Limits, tmpl.MaxAttempts
		fires = append(fires, f)
	}
	ok, err := s.c.Store.AdvanceSchedule(r.Name, r.Next, plan.Next, fires, now)
	if err != nil {
		s.log("schedule %s: %v", r.Name, err)
		return time.Time{}
	}
	if ok {
		for _, f := range fires {
			switch f.Kind {
			case runs.FireMissed:
				s.log("schedule %s: %s", r.Name, f.Error)
			default:
				s.log("schedule %s: fired for %s (%s)", r.Name, FormatDue(f.Due), KindText(f.Kind))
			}
		}
		s.Kick()
	}
	return plan.Next
}

// Plan is what a schedule does at a tick: the fires to queue (on time,
// a catch-up, a note of missed times) and its next due time after now.
type Plan struct {
	Fires []runs.Fire
	Next  time.Time
}

// maxDueSteps bounds the due times Due walks through after a long gap.
const maxDueSteps = 1 << 20

// Due is what a schedule due at next (not after now) does at now. Its
// due times up to now that are at most d.Grace old are on time: the
// latest of them fires, once (several fall in the window only when the
// scheduler was held up: they are one run, not a queue of them). Older
// ones were missed (no process was up, the machine slept): policy skip
// notes them (a FireMissed), policy once notes them and, unless one fires
// on time now, queues one catch-up run (FireCatchUp, due at the latest
// missed time).
func Due(w *When, d *Def, next, now time.Time) Plan {
	grace := d.Grace.D()
	var lastMissed, lastOnTime time.Time
	missed := 0
	t, n := next, 0
	for ; !t.IsZero() && !t.After(now) && n < maxDueSteps; n++ {
		if now.Sub(t) <= grace {
			lastOnTime = t
		} else {
			lastMissed = t
			missed++
		}
		t = w.Next(t)
	}
	if n == maxDueSteps {
		t = w.Next(now)
	}
	p := Plan{Next: t}
	onTime := !lastOnTime.IsZero()
	if onTime {
		p.Fires = append(p.Fires, runs.Fire{Due: lastOnTime, Kind: runs.FireCron})
	}
	if missed > 0 {
		what := "missed its due time " + FormatDue(lastMissed)
		if missed > 1 {
			what = fmt.Sprintf("missed %d due times from %s to %s", missed, FormatDue(next), FormatDue(lastMissed))
		}
		what += " (no rpa process was up to fire it in time, or the machine slept)"
		switch {
		case d.Missed == MissedOnce && !onTime:
			what += "; policy once: one run makes up for it"
			p.Fires = append(p.Fires, runs.Fire{Due: lastMissed, Kind: runs.FireCatchUp})
		case d.Missed == MissedOnce:
			what += "; policy once: the run on time now makes up for it"
		default:
			what += "; policy skip: not run"
		}
		p.Fires = append(p.Fires, runs.Fire{Due: lastMissed, Kind: runs.FireMissed, Error: what})
	}
	return p
}

// FormatDue is a due time in local time for people: "2026-03-02 08:00",
// with seconds when it has them ("08:00:07", an --every schedule).
func FormatDue(t time.Time) string {
	if t.Second() != 0 {
		return t.Local().Format("2006-01-02 15:04:05")
	}
	return t.Local().Format("2006-01-02 15:04")
}

// FireTemplate is what every fire of d carries: its flow's name, site
// (Site, from the flow as it is now) and account (AccountKey), its limits
// and its attempts (1 + retries).
func FireTemplate(d *Def) runs.Fire {
	f := runs.Fire{Flow: d.FlowName, Limits: d.Limits, MaxAttempts: 1 + d.Retries, Account: AccountKey(d)}
	if fl, ds := lang.LoadFile(d.Flow); fl != nil && !ds.HasErrors() {
		if args, err := typedArgs(fl, withAccount(fl.File, d, withStandIns(d.Args, d.SecretEnv))); err == nil {
			f.Site = Site(fl.File, args.Map())
		}
	}
	return f
}

// AccountKey is the per-account limit's key of d: its account, else its
// profile ("profile:ID"), else "" (a temporary profile: no limit).
func AccountKey(d *Def) string {
	switch {
	case d.Account != "":
		return d.Account
	case d.Profile != "":
		return "profile:" + d.Profile
	}
	return ""
}

// orphans ends the attempts of fires whose process died: as failed
// attempts (retried while they have attempts left).
func (s *Scheduler) orphans(defs map[string]*Def, now time.Time) {
	fs, err := s.c.Store.OrphanFires(s.me)
	if err != nil {
		s.log("schedules: %v", err)
	}
	for _, f := range fs {
		s.log("schedule %s: the process running its fire %d ended before the run did", f.Schedule, f.ID)
		// Its run, when it began, is marked interrupted by the store; none
		// is recorded for it here (whether it began is not known).
		s.end(f, defs[f.Schedule], Outcome{Status: runs.StatusFailed, RunID: f.RunID,
			Error: "interrupted: the process running it ended before the run finished"}, now, false)
	}
}

// dispatch drops the fires that waited too long and starts the queued
// fires that may start; it returns when to look again (0: PollEvery).
func (s *Scheduler) dispatch(ctx context.Context, defs map[string]*Def, now time.Time) time.Duration {
	active, err := s.c.Store.ActiveFires()
	if err != nil {
		s.log("schedules: %v", err)
		return 0
	}
	var wait time.Duration
	queued := map[string]int{}
	sort.SliceStable(active, func(i, j int) bool { return active[i].Due.Before(active[j].Due) })
	for _, f := range active {
		if f.State != runs.FireQueued {
			continue
		}
		d := defs[f.Schedule]
		queued[f.Schedule]++
		switch {
		case d == nil:
			s.drop(f, runs.FireCancelled, "its schedule is gone", false, now)
			continue
		case queued[f.Schedule] > MaxQueued:
			// No notice for each: a schedule that fires faster than its runs
			// end would send one at every due time.
			s.drop(f, runs.FireDropped, fmt.Sprintf("the queue holds %d fires of this schedule already (the most)", MaxQueued), false, now)
			continue
		case now.Before(f.NotBefore):
			if w := f.NotBefore.Sub(now); wait == 0 || w < wait {
				wait = w
			}
			continue
		case now.Sub(readyAt(f)) > MaxWait:
			why := "it waited longer than " + FormatDuration(MaxWait) + " to start"
			if f.Waiting != "" {
				why += ": " + f.Waiting
			}
			s.dropWaited(f, d, why, now)
			continue
		case s.heldBack(f.ID, now):
			continue
		}
		if ctx.Err() != nil {
			continue
		}
		if s.slots() == 0 {
			why := fmt.Sprintf("%s runs %d scheduled runs at once already, its most (--max-running %d)", s.c.Program, s.c.MaxRunning, s.c.MaxRunning)
			if f.Waiting != why {
				if err := s.c.Store.WaitFire(f.ID, why); err != nil {
					s.log("schedule %s: %v", f.Schedule, err)
				}
			}
			continue
		}
		c, err := s.c.Store.ClaimFire(f.ID, s.me, now)
		if err != nil {
			s.log("schedule %s: %v", f.Schedule, err)
			continue
		}
		if !c.Started {
			continue
		}
		s.start(ctx, c.Fire, d)
	}
	return wait
}

// KindText is a fire's kind for people: "on time" (runs.FireCron, the
// stored kind of any due time, an --every schedule's too), "catching up
// missed times", "run now", "missed".
func KindText(kind string) string {
	switch kind {
	case runs.FireCron:
		return "on time"
	case runs.FireCatchUp:
		return "catching up missed times"
	case runs.FireManual:
		return "run now"
	}
	return kind
}

// readyAt is when queued fire f could first start: its retry's time, else
// when it was queued. MaxWait counts from there.
func readyAt(f *runs.Fire) time.Time {
	if !f.NotBefore.IsZero() {
		return f.NotBefore
	}
	return f.Queued
}

// heldBack reports whether fire id waits (until BusyWait after its run
// found its profile in use) and forgets the ones whose wait is over.
func (s *Scheduler) heldBack(id int64, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	until, ok := s.busyUntil[id]
	if ok && now.Before(until) {
		return true
	}
	delete(s.busyUntil, id)
	return false
}

func (s *Scheduler) slots() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return 0
	}
	return s.c.MaxRunning - len(s.running)
}

// dropWaited drops fire f of d that waited longer than MaxWait (a limit,
// its profile in use), with a notice and a failed run saying why, as an
// attempt that could not start has.
func (s *Scheduler) dropWaited(f *runs.Fire, d *Def, why string, now time.Time) {
	s.dropRun(f, runs.FireDropped, why, true, s.unstarted(f, d, runs.StatusFailed, string(core.KindBusy), why, now), now)
}

func (s *Scheduler) drop(f *runs.Fire, state, why string, notify bool, now time.Time) {
	s.dropRun(f, state, why, notify, "", now)
}

func (s *Scheduler) dropRun(f *runs.Fire, state, why string, notify bool, run string, now time.Time) {
	ok, err := s.c.Store.DropFire(f.ID, state, why, notify, run, now)
	if err != nil {
		s.log("schedule %s: %v", f.Schedule, err)
	}
	if ok {
		s.log("schedule %s: fire %d %s: %s", f.Schedule, f.ID, state, why)
	}
}

// start runs attempt f.Attempt of f in a goroutine.
func (s *Scheduler) start(ctx context.Context, f *runs.Fire, d *Def) {
	s.mu.Lock()
	s.running[f.ID] = true
	s.mu.Unlock()
	s.wg.Add(1)
	retryOf := ""
	if f.Attempt > 1 {
		retryOf = f.RunID
	}
	s.log("schedule %s: run %d of %d starts (%s, due %s)", f.Schedule, f.Attempt, f.MaxAttempts, d.FlowName, FormatDue(f.Due))
	go func() {
		defer s.wg.Done()
		started := func(id string) {
			if err := s.c.Store.StartRun(f.ID, s.me, id); err != nil {
				s.log("schedule %s: %v", f.Schedule, err)
			}
			s.log("schedule %s: run %s began", f.Schedule, id)
		}
		out := s.c.Runner.Run(ctx, Job{Def: d, Fire: f, RetryOf: retryOf, Started: started})
		s.end(f, d, out, s.clock.Now(), ctx.Err() != nil)
		s.mu.Lock()
		delete(s.running, f.ID)
		s.mu.Unlock()
		s.Kick()
	}()
}

// Backoff is the wait before attempt n+1 after attempt n failed: base,
// doubling with each attempt, at most MaxBackoff.
func Backoff(base time.Duration, n int) time.Duration {
	if base <= 0 {
		base = DefaultBackoff
	}
	d := base
	for i := 1; i < n && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// end records how f's attempt went: ok, a retry after its backoff, the
// final failure (with a notice), or back to the queue when it did not
// start for a busy profile or this process stopped it (stopping).
func (s *Scheduler) end(f *runs.Fire, d *Def, out Outcome, now time.Time, stopping bool) {
	if out.RunID == "" && out.Busy == "" && out.Status != runs.StatusOK && !stopping {
		out.RunID = s.unstarted(f, d, out.Status, out.Kind, out.Error, now)
	}
	e := runs.FireEnd{RunID: out.RunID, Error: out.Error}
	switch {
	case out.Busy != "":
		// Held back in memory (heldBack), so MaxWait still counts from
		// when it was queued.
		e.State, e.Uncount, e.Waiting, e.WaitingPID = runs.FireQueued, true, out.Busy, out.BusyPID
		s.mu.Lock()
		s.busyUntil[f.ID] = now.Add(BusyWait)
		s.mu.Unlock()
	case stopping && out.Status != runs.StatusOK:
		e.State, e.Uncount, e.Waiting = runs.FireQueued, true, "its process stopped before the run ended; it runs again when a scheduler is up"
	case out.Status == runs.StatusOK:
		e.State = runs.FireOK
	case f.Attempt < f.MaxAttempts:
		base := DefaultBackoff
		if d != nil {
			base = d.Backoff.D()
		}
		e.State, e.NotBefore = runs.FireQueued, now.Add(Backoff(base, f.Attempt))
		e.Waiting = fmt.Sprintf("retry %d of %d after its backoff", f.Attempt+1, f.MaxAttempts)
	default:
		e.State, e.Notify = runs.FireFailed, true
	}
	ok, err := s.c.Store.EndFire(f.ID, s.me, e, now)
	if err != nil {
		s.log("schedule %s: %v", f.Schedule, err)
		return
	}
	if !ok {
		return
	}
	switch e.State {
	case runs.FireOK:
		s.log("schedule %s: run %s ok", f.Schedule, out.RunID)
	case runs.FireFailed:
		s.log("schedule %s: run %s failed after %d attempt(s): %s", f.Schedule, out.RunID, f.Attempt, out.Error)
	default:
		// A busy account or profile has no error beside its reason.
		if out.Error == "" {
			s.log("schedule %s: %s", f.Schedule, e.Waiting)
		} else {
			s.log("schedule %s: %s (%s)", f.Schedule, e.Waiting, out.Error)
		}
	}
}

// unstarted records an attempt of f that ended before its flow ran (its
// flow or account missing, a secret's variable not set, the browser not
// starting, a fire dropped after waiting too long for its profile) as a
// run of the schedule with status (failed, or cancelled), kind and why,
// so `rpa runs` lists it and the fire links it. It returns the run's ID,
// "" when it could not be recorded (logged).
func (s *Scheduler) unstarted(f *runs.Fire, d *Def, status, kind, why string, now time.Time) string {
	if status != runs.StatusCancelled {
		status = runs.StatusFailed
	}
	if kind == "" {
		kind = string(core.KindBrowser)
	}
	r := &runs.Run{Flow: f.Flow, Caller: runs.Caller{Kind: runs.CallerSchedule}, Start: now, Schedule: f.Schedule}
	if f.Attempt > 1 {
		r.RetryOf = f.RunID
	}
	if d != nil {
		r.Flow, r.FlowPath, r.Profile = d.FlowName, d.Flow, d.Profile
		if len(d.Args) > 0 {
			r.Args = map[string]any{}
			for k, v := range d.Args {
				r.Args[k] = v
			}
		}
	}
	id, err := s.c.Store.RecordUnstarted(r, runs.Outcome{Status: status, ErrorKind: kind, ErrorMessage: "the run did not start: " + why})
	if err != nil {
		s.log("schedule %s: the attempt that did not start is not recorded: %v", f.Schedule, err)
		return ""
	}
	return id
}

// notices sends the failure notices that are due, each once.
func (s *Scheduler) notices(ctx context.Context, defs map[string]*Def) {
	fs, err := s.c.Store.PendingNotices(s.me)
	if err != nil {
		s.log("schedules: %v", err)
		return
	}
	for _, f := range fs {
		d := defs[f.Schedule]
		if d == nil {
			_ = s.c.Store.NoticeDone(f.ID, "failed: its schedule is gone")
			continue
		}
		s.mu.Lock()
		s.sending[f.ID] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			n := s.notice(f, d)
			res := "sent"
			if err := s.c.Notify.Send(ctx, d, n); err != nil {
				res = "failed: " + err.Error()
				s.log("schedule %s: the failure notice was not delivered: %v", f.Schedule, err)
			}
			if err := s.c.Store.NoticeDone(f.ID, res); err != nil {
				s.log("schedule %s: %v", f.Schedule, err)
			}
			s.mu.Lock()
			delete(s.sending, f.ID)
			s.mu.Unlock()
		}()
	}
}

// notice is the failure notice of f: what the run store says of its last
// run (masked there).
func (s *Scheduler) notice(f *runs.Fire, d *Def) *Notice {
	n := &Notice{Event: "schedule.failed", Schedule: f.Schedule, Flow: d.FlowName, Status: f.State, RunID: f.RunID,
		Runs: f.Runs, Attempts: f.Attempt, Due: f.Due, Summary: f.Error}
	if f.State == runs.FireDropped {
		n.Event = "schedule.dropped"
	}
	if f.RunID != "" {
		if r, err := s.c.Store.Get(f.RunID); err == nil {
			n.Error = &NoticeError{Kind: r.ErrorKind, Message: r.ErrorMessage, Line: r.ErrorLine, Action: r.ErrorAction}
		}
	}
	return n
}

// RunOne runs fire id (queued by RunNow) in this process without taking
// the lease: `rpa schedule run-now` when no scheduler is up. It claims the
// fire as any scheduler does (so a scheduler started meanwhile cannot run
// it too), waits for its limits and backoffs on the clock, runs its
// attempts and sends its failure notice, and returns the fire as it
// ended. A fire another process took is followed until it ends.
func (s *Scheduler) RunOne(ctx context.Context, id int64) (*runs.Fire, error) {
	for {
		now := s.clock.Now()
		f, err := s.c.Store.Fire(id)
		if err != nil {
			return nil, err
		}
		switch f.State {
		case runs.FireQueued:
		case runs.FireRunning:
			// Another process runs it: follow it.
		default:
			if f.Notify == "pending" {
				s.notices(ctx, s.defsOf(f.Schedule))
				s.Wait()
				if f, err = s.c.Store.Fire(id); err != nil {
					return nil, err
				}
			}
			return f, nil
		}
		wait := PollEvery
		if f.State == runs.FireQueued {
			if now.Before(f.NotBefore) {
				wait = f.NotBefore.Sub(now)
			} else if !s.heldBack(id, now) {
				defs := s.defsOf(f.Schedule)
				d := defs[f.Schedule]
				if d == nil {
					s.drop(f, runs.FireCancelled, "its schedule is gone", false, now)
					continue
				}
				c, err := s.c.Store.ClaimFire(id, s.me, now)
				if err != nil {
					return nil, err
				}
				if c.Started {
					s.start(ctx, c.Fire, d)
					s.Wait()
					continue
				}
			}
		}
		select {
		case <-ctx.Done():
			return f, ctx.Err()
		case <-s.clock.After(wait):
		}
	}
}

// defsOf is the definition of schedule name, by name (empty when gone).
func (s *Scheduler) defsOf(name string) map[string]*Def {
	defs := map[string]*Def{}
	if r, err := s.c.Store.Schedule(name); err == nil {
		if d, err := DecodeDef(r.Def); err == nil {
			defs[name] = d
		}
	}
	return defs
}
