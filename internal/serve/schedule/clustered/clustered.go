// Package clustered runs schedules in a cluster of `rpa gateway` replicas (docs/gateway.md,
// "Several gateways"; docs/schedules.md, "In a gateway cluster"): a schedule names a tool that
// linked desktops offer (a published flow) and either one desktop (its device id) or "any
// desktop offering the tool", and its time (a cron in a zone, or an interval, read as
// package schedule reads them).
//
// Every replica runs a Scheduler on the cluster's NATS (package cluster):
//
//   - the schedules are kept in the JetStream key-value bucket Bucket, one key per schedule
//     holding its definition, its next due time and how its last fire went;
//   - a due time fires once across replicas: the replica that sees it due queues a job whose id
//     is the schedule and the due time (a second Add of that id is one job: the queue's
//     deduplication window) and then moves the schedule's next time on with a conditional
//     update (its revision): of replicas that look at once, one moves it, the others' jobs
//     were the same job;
//   - the job is handled by one replica (the durable work queue QueueName, redelivered when
//     the replica handling it dies, at most MaxDeliver tries; Landing at once per replica):
//     it waits until the desktop (or one offering the tool) is linked to any replica, at most
//     until the due time plus the schedule's grace window, and calls the tool there through the
//     gateway (Lander). A desktop
//     that links within the window gets the call; past it the fire is noted as missed. The call's
//     id is the job's, so a redelivered job sent to a desktop that already ran it gets the kept
//     answer, not a second run;
//   - a call whose result is an error is tried again (Def.Retries) as a new job that waits out
//     its backoff, with an id of its own; one that still fails, or a missed fire, sends the
//     schedule's failure notice (Def.Notify, schedule.Notifier's webhook).
//
// Agents read the schedules at the gateway as the MCP resource URI (AddResource).
//
// The time is a schedule.Clock (a FakeClock in tests).
package clustered

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/rpa-dev/rpa/internal/link/cluster"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// Bucket is the key-value bucket of the cluster's schedules; QueueName the work queue of their
// fires.
const (
	Bucket    = "rpa_schedules"
	QueueName = "schedule_fires"
)

// MaxDeliver bounds the tries of one fire (a replica that dies mid-call, a desktop that drops
// mid-call): the queue hands it to another replica up to this many times.
const MaxDeliver = 5

// Landing is how many fires one replica lands at once: a fire waiting for its desktop to link
// does not hold up the fires behind it.
const Landing = 16

// DefaultPoll is how often a Scheduler looks for due schedules, and a waiting fire for its
// desktop.
const DefaultPoll = time.Second

// Def is a schedule of the cluster. Durations are Go duration strings in JSON ("15m").
type Def struct {
	Name string `json:"name"` // as schedule.CheckName
	// Tool is the MCP tool to call; Device the desktop (its --device-id) that must run it, ""
	// for any linked desktop offering Tool (the first by device id).
	Tool   string `json:"tool"`
	Device string `json:"device,omitempty"`
	// Args are the tool's arguments (JSON values). A schedule is stored in the cluster: no
	// secret goes here (a flow reads its secrets on the desktop).
	Args map[string]json.RawMessage `json:"args,omitempty"`
	// Cron in zone TZ, or Every counted from Anchor (set by Add when zero): schedule.Def's.
	Cron   string            `json:"cron,omitempty"`
	TZ     string            `json:"tz,omitempty"`
	Every  schedule.Duration `json:"every,omitempty"`
	Anchor time.Time         `json:"anchor,omitzero"`
	// Grace is how long after its due time a fire may still land (default schedule.DefaultGrace):
	// a desktop offline at the due time gets it when it links within the window. Missed is
	// schedule.MissedSkip (default) or schedule.MissedOnce, for due times no replica saw in time.
	Grace  schedule.Duration `json:"grace"`
	Missed string            `json:"missed"`
	Paused bool              `json:"paused,omitempty"`
	// Retries calls the tool this many more times when its result is an error (or the
	// desktop drops every try of a call), the first after Backoff (default
	// schedule.DefaultBackoff), each next one after twice the wait before, at most
	// schedule.MaxBackoff: schedule.Backoff, as a desktop's schedules. Each retry is a call of
	// its own on the desktop (its id ends "-try-N") and a job of the queue: a replica that dies
	// while one waits leaves it to another.
	Retries int               `json:"retries,omitempty"`
	Backoff schedule.Duration `json:"backoff,omitempty"`
	// Notify is a webhook (an http or https URL, no user or password in it) that gets one JSON
	// schedule.Notice (a POST, tried as schedule.Notifier does) when a fire fails after its
	// retries ("schedule.failed") or is missed ("schedule.dropped", status "missed").
	Notify string `json:"notify,omitempty"`
}

// Fired is how one fire of a schedule went.
type Fired struct {
	Due    time.Time `json:"due"`
	Kind   string    `json:"kind"`             // runs.FireCron, FireCatchUp, FireMissed
	State  string    `json:"state"`            // "ok", "failed", "missed"
	Device string    `json:"device,omitempty"` // the desktop that ran it
	By     string    `json:"by,omitempty"`     // the replica that called it
	Error  string    `json:"error,omitempty"`  // why it failed or was missed
	Ended  time.Time `json:"ended"`
	// Attempt is the try this was (1 for the first; Def.Retries); Notice how the failure
	// notice went ("sent", "failed: why"; "" when none was due or Def.Notify is empty).
	Attempt int    `json:"attempt,omitempty"`
	Notice  string `json:"notice,omitempty"`
}

// Record is a schedule as the bucket keeps it.
type Record struct {
	Def  Def       `json:"def"`
	Next time.Time `json:"next,omitzero"` // its next due time (zero: never again)
	Last *Fired    `json:"last,omitempty"`
}

// job is a fire as the queue carries it.
type job struct {
	Name     string                     `json:"name"`
	Tool     string                     `json:"tool"`
	Device   string                     `json:"device,omitempty"`
	Args     map[string]json.RawMessage `json:"args,omitempty"`
	Due      time.Time                  `json:"due"`
	Kind     string                     `json:"kind"`
	Deadline time.Time                  `json:"deadline"` // it lands by then or is missed
	// Attempt is 1 (or 0) for a fire's first try, N for its retry N-1, which waits until
	// NotBefore; Retries, Backoff and Notify are the schedule's when it fired.
	Attempt   int               `json:"attempt,omitempty"`
	NotBefore time.Time         `json:"notBefore,omitzero"`
	Retries   int               `json:"retries,omitempty"`
	Backoff   schedule.Duration `json:"backoff,omitempty"`
	Notify    string            `json:"notify,omitempty"`
}

// Lander calls a tool on a linked desktop: *gateway.Gateway.
type Lander interface {
	// Offered is the device id of a linked desktop offering tool (device itself, or any when
	// device is ""), "" when none.
	Offered(tool, device string) string
	// CallTool runs the tool there; id names the call on the desktop.
	CallTool(ctx context.Context, id, device, tool string, args map[string]json.RawMessage) (*mcp.CallToolResult, error)
}

// Config is a Scheduler's wiring. Node and Lander are required.
type Config struct {
	Node   *cluster.Node
	Lander Lander
	// Clock is the time (nil: schedule.SystemClock).
	Clock schedule.Clock
	// Poll (DefaultPoll when 0).
	Poll time.Duration
	// Log receives one line per event (fired, landed, waiting, missed); nil: Logger's Info.
	Log    func(string)
	Logger *slog.Logger
}

// Scheduler fires the cluster's schedules from one replica (every replica runs one).
type Scheduler struct {
	c     Config
	clock schedule.Clock
	kv    jetstream.KeyValue
	q     *cluster.Queue
	kick  chan struct{}

	mu sync.Mutex
}

// Open returns the replica's Scheduler, creating the bucket and the queue when missing
// (JetStream not ready: retried until ctx ends).
func Open(ctx context.Context, c Config) (*Scheduler, error) {
	if c.Node == nil || c.Lander == nil {
		return nil, errors.New("clustered: a Node and a Lander are required")
	}
	if c.Clock == nil {
		c.Clock = schedule.SystemClock{}
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	// Fresh: a schedule is changed by compare-and-set from every replica and read back at once
	// (an add, then a show, through one replica's API).
	kv, err := c.Node.Bucket(ctx, Bucket, cluster.BucketOptions{Fresh: true, Description: "rpa schedules of the gateway cluster"})
	if err != nil {
		return nil, err
	}
	q, err := c.Node.Queue(ctx, QueueName, cluster.QueueOptions{MaxDeliver: MaxDeliver, Workers: Landing})
	if err != nil {
		return nil, err
	}
	return &Scheduler{c: c, clock: c.Clock, kv: kv, q: q, kick: make(chan struct{}, 1)}, nil
}

func (s *Scheduler) log(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	if s.c.Log != nil {
		s.c.Log(msg)
		return
	}
	s.c.Logger.Info(msg, "replica", s.c.Node.Name())
}

func key(name string) string { return "s." + cluster.Key(name) }

// check reports the first problem of d, naming the flag.
func (d *Def) check() error {
	if d.Tool == "" {
		return errors.New("--tool: which tool does the schedule call?")
	}
	if d.Missed == "" {
		d.Missed = schedule.MissedSkip
	}
	if d.Grace == 0 {
		d.Grace = schedule.Duration(schedule.DefaultGrace)
	}
	sd := schedule.Def{Name: d.Name, Cron: d.Cron, TZ: d.TZ, Every: d.Every, Anchor: d.Anchor, Missed: d.Missed, Grace: d.Grace,
		Retries: d.Retries, Backoff: d.Backoff, Notify: d.Notify}
	return sd.Check()
}

func (d *Def) when() (*schedule.When, error) {
	sd := schedule.Def{Cron: d.Cron, TZ: d.TZ, Every: d.Every, Anchor: d.Anchor}
	return sd.When()
}

// Add stores a new schedule (its first due time after now) and returns it. An existing name is
// an error.
func (s *Scheduler) Add(ctx context.Context, d Def) (*Record, error) {
	now := s.clock.Now()
	if d.Every > 0 && d.Anchor.IsZero() {
		d.Anchor = now
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	w, err := d.when()
	if err != nil {
		return nil, err
	}
	r := &Record{Def: d, Next: w.Next(now)}
	b, _ := json.Marshal(r)
	if _, err := s.kv.Create(ctx, key(d.Name), b); err != nil {
		if errors.Is(err, jetstream.ErrKeyExists) {
			return nil, fmt.Errorf("schedule %s: a schedule of that name exists", d.Name)
		}
		return nil, fmt.Errorf("schedule %s: %w", d.Name, err)
	}
	s.Kick()
	return r, nil
}

// Remove deletes a schedule (a fire already queued still lands).
func (s *Scheduler) Remove(ctx context.Context, name string) error {
	if _, err := s.get(ctx, name); err != nil {
		return err
	}
	return s.kv.Delete(ctx, key(name))
}

// SetPaused pauses or resumes a schedule; resumed, it fires next at its first due time after
// now (times passed while paused are not made up).
func (s *Scheduler) SetPaused(ctx context.Context, name string, paused bool) (*Record, error) {
	return s.update(ctx, name, func(r *Record) error {
		r.Def.Paused = paused
		if !paused {
			w, err := r.Def.when()
			if err != nil {
				return err
			}
			r.Next = w.Next(s.clock.Now())
		}
		return nil
	})
}

// Get returns one schedule (as a replica's copy has it: a write an instant ago may not be in
// it yet).
func (s *Scheduler) Get(ctx context.Context, name string) (*Record, error) {
	e, err := s.get(ctx, name)
	if err != nil {
		return nil, err
	}
	var r Record
	return &r, json.Unmarshal(e.Value(), &r)
}

func (s *Scheduler) get(ctx context.Context, name string) (jetstream.KeyValueEntry, error) {
	e, err := s.kv.Get(ctx, key(name))
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, fmt.Errorf("schedule %s: no such schedule", schedule.ShowName(name))
	}
	return e, err
}

// List returns the schedules, by name.
func (s *Scheduler) List(ctx context.Context) ([]*Record, error) {
	lister, err := s.kv.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []*Record
	for k := range lister.Keys() {
		if !strings.HasPrefix(k, "s.") {
			continue
		}
		e, err := s.kv.Get(ctx, k)
		if err != nil {
			continue // removed meanwhile
		}
		var r Record
		if json.Unmarshal(e.Value(), &r) == nil {
			out = append(out, &r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Def.Name < out[j].Def.Name })
	return out, nil
}

// update applies f to a schedule's record with a conditional write, again when another
// replica wrote it meanwhile (or the read was of a copy a little behind), and returns the
// record written.
func (s *Scheduler) update(ctx context.Context, name string, f func(*Record) error) (*Record, error) {
	wait := 5 * time.Millisecond
	for range 40 { // about 10 s in all
		if wait > 5*time.Millisecond {
			time.Sleep(wait) // a copy behind the write catches up; others' writes end
		}
		wait = min(wait*2, 500*time.Millisecond)
		e, err := s.get(ctx, name)
		if err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal(e.Value(), &r); err != nil {
			return nil, fmt.Errorf("schedule %s: bad record: %w", name, err)
		}
		if err := f(&r); err != nil {
			return nil, err
		}
		b, _ := json.Marshal(r)
		if _, err = s.kv.Update(ctx, key(name), b, e.Revision()); err == nil {
			return &r, nil
		} else if !wrongRevision(err) {
			return nil, fmt.Errorf("schedule %s: %w", name, err)
		}
	}
	return nil, fmt.Errorf("schedule %s: written by others too often to update", name)
}

// wrongRevision reports a conditional write that lost: another write came first (JetStream's
// 10071, or 10164 on a replicated stream).
func wrongRevision(err error) bool {
	if errors.Is(err, jetstream.ErrKeyExists) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant)
}

// errDupInProcess is JetStream's "duplicate message id is in process": another replica is
// queuing the same fire at this moment.
const errDupInProcess = 10158

func dupInProcess(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.ErrorCode == errDupInProcess
}

// Kick makes Run look at the schedules now.
func (s *Scheduler) Kick() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// Run fires the schedules and handles fires until ctx ends: it looks every Poll (and when
// kicked), and works the queue of fires with the other replicas.
func (s *Scheduler) Run(ctx context.Context) error {
	done := make(chan error, 1)
	go func() { done <- s.q.Work(ctx, s.handle) }()
	for {
		// The next look is set before this one: the clock moving on while Tick reads the
		// schedules (a FakeClock advanced meanwhile) does not wait for yet another Poll.
		next := s.clock.After(s.c.Poll)
		if err := s.Tick(ctx); err != nil && ctx.Err() == nil {
			s.log("schedules: %v", err)
		}
		select {
		case <-ctx.Done():
			return <-done
		case <-s.kick:
		case <-next:
		}
	}
}

// Tick fires every schedule due at the clock's now, once across replicas (see the package
// comment).
func (s *Scheduler) Tick(ctx context.Context) error {
	s.mu.Lock() // one tick at a time in a replica
	defer s.mu.Unlock()
	rs, err := s.List(ctx)
	if err != nil {
		return err
	}
	now := s.clock.Now()
	for _, r := range rs {
		if r.Def.Paused || r.Next.IsZero() || r.Next.After(now) {
			continue
		}
		if err := s.fire(ctx, r.Def.Name, now); err != nil {
			s.log("schedule %s: %v", r.Def.Name, err)
		}
	}
	return nil
}

// fire queues the due fires of one schedule and moves its next time on.
func (s *Scheduler) fire(ctx context.Context, name string, now time.Time) error {
	e, err := s.get(ctx, name)
	if err != nil {
		return err
	}
	var r Record
	if err := json.Unmarshal(e.Value(), &r); err != nil {
		return err
	}
	if r.Def.Paused || r.Next.IsZero() || r.Next.After(now) {
		return nil // another replica moved it on
	}
	w, err := r.Def.when()
	if err != nil {
		return err
	}
	plan := schedule.Due(w, &schedule.Def{Missed: r.Def.Missed, Grace: r.Def.Grace}, r.Next, now)
	var queued []job
	var missed []job
	for _, f := range plan.Fires {
		if f.Kind == runs.FireMissed {
			r.Last = &Fired{Due: f.Due, Kind: f.Kind, State: "missed", Error: f.Error, Ended: now, By: s.c.Node.Name()}
			missed = append(missed, job{Name: name, Tool: r.Def.Tool, Due: f.Due, Kind: f.Kind, Notify: r.Def.Notify})
			continue
		}
		deadline := f.Due.Add(r.Def.Grace.D())
		if f.Kind != runs.FireCron {
			deadline = now.Add(r.Def.Grace.D()) // a catch-up run: its window starts now
		}
		j := job{Name: name, Tool: r.Def.Tool, Device: r.Def.Device, Args: r.Def.Args, Due: f.Due, Kind: f.Kind, Deadline: deadline,
			Retries: r.Def.Retries, Backoff: r.Def.Backoff, Notify: r.Def.Notify}
		b, _ := json.Marshal(j)
		// Queued before the next time moves on: a replica that dies between the two leaves
		// the schedule due, and the one that fires it again queues the same job id (one job).
		if _, err := s.q.Add(ctx, jobID(j), b); dupInProcess(err) {
			return nil // another replica queues this fire now, and moves the schedule on
		} else if err != nil {
			return err
		}
		queued = append(queued, j)
	}
	r.Next = plan.Next
	nb, _ := json.Marshal(r)
	if _, err := s.kv.Update(ctx, key(name), nb, e.Revision()); err != nil {
		if wrongRevision(err) {
			return nil // another replica fired it: its jobs had the same ids
		}
		return err
	}
	for _, j := range queued {
		s.log("schedule %s: fired for %s (%s), for %s", name, j.Due.UTC().Format(time.RFC3339), j.Kind, target(j.Tool, j.Device))
	}
	for _, j := range missed { // this replica moved the schedule on: its notice, once
		go s.notice(context.WithoutCancel(ctx), j, Fired{State: "missed", Error: "the due time was missed (no replica fired it in time)"})
	}
	return nil
}

// jobID is a fire's id in the queue and, on the desktop, its call's id; a retry's ends
// "-try-N".
func jobID(j job) string {
	id := fmt.Sprintf("schedule-%s-%s-%d", cluster.Key(j.Name), j.Kind, j.Due.UnixMilli())
	if j.Attempt > 1 {
		id += fmt.Sprintf("-try-%d", j.Attempt)
	}
	return id
}

func target(tool, device string) string {
	if device == "" {
		return fmt.Sprintf("any desktop offering %s", tool)
	}
	return fmt.Sprintf("%s on desktop %s", tool, device)
}

// handle lands one fire: wait for its desktop (until its deadline), call the tool, note how it
// went. An error has the queue hand the fire again (a desktop that dropped mid-call).
func (s *Scheduler) handle(ctx context.Context, qj cluster.Job) error {
	var j job
	if err := json.Unmarshal(qj.Data, &j); err != nil {
		s.log("schedules: a fire that cannot be read (dropped): %v", err)
		return nil
	}
	if wait := j.NotBefore.Sub(s.clock.Now()); wait > 0 { // a retry waits out its backoff
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.clock.After(wait):
		}
	}
	device, said := "", false
	tick := time.NewTicker(s.c.Poll)
	defer tick.Stop()
	for {
		if device = s.c.Lander.Offered(j.Tool, j.Device); device != "" {
			break
		}
		if now := s.clock.Now(); now.After(j.Deadline) {
			why := fmt.Sprintf("no linked desktop offered %s within the grace window (until %s)", target(j.Tool, j.Device), j.Deadline.UTC().Format(time.RFC3339))
			s.log("schedule %s: missed its fire for %s: %s", j.Name, j.Due.UTC().Format(time.RFC3339), why)
			s.note(ctx, j, s.notice(ctx, j, Fired{State: "missed", Error: why}))
			return nil
		}
		if !said {
			s.log("schedule %s: waiting for %s", j.Name, target(j.Tool, j.Device))
			said = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
	}
	res, err := s.c.Lander.CallTool(ctx, jobID(j), device, j.Tool, j.Args)
	if err != nil {
		if ctx.Err() != nil || qj.Attempt < MaxDeliver {
			s.log("schedule %s: the call on desktop %s did not end (%v); it is handed again", j.Name, device, err)
			return err
		}
		s.note(ctx, j, s.failed(ctx, j, Fired{State: "failed", Device: device, Error: err.Error()}))
		return nil // not handed again: a retry (Retries) is a job of its own
	}
	f := Fired{State: "ok", Device: device, Attempt: max(j.Attempt, 1)}
	if res.IsError {
		f.State, f.Error = "failed", resultText(res)
	}
	s.log("schedule %s: landed on desktop %s: %s", j.Name, device, f.State)
	if f.State == "failed" {
		f = s.failed(ctx, j, f)
	}
	s.note(ctx, j, f)
	return nil
}

// failed follows a failed try of j: its retry is queued (after its backoff) while it has
// retries left, else the failure notice is sent. It returns f as noted.
func (s *Scheduler) failed(ctx context.Context, j job, f Fired) Fired {
	attempt := max(j.Attempt, 1)
	f.Attempt = attempt
	if attempt > j.Retries {
		return s.notice(ctx, j, f)
	}
	r := j
	r.Attempt = attempt + 1
	r.NotBefore = s.clock.Now().Add(schedule.Backoff(j.Backoff.D(), attempt))
	r.Deadline = r.NotBefore.Add(j.Deadline.Sub(j.Due)) // its landing window starts at its time
	if j.Kind != runs.FireCron {
		r.Deadline = r.NotBefore.Add(max(j.Deadline.Sub(j.Due), schedule.DefaultGrace))
	}
	b, _ := json.Marshal(r)
	if _, err := s.q.Add(context.WithoutCancel(ctx), jobID(r), b); err != nil {
		f.Error += fmt.Sprintf("; its retry could not be queued: %v", err)
		return s.notice(ctx, j, f)
	}
	f.Error += fmt.Sprintf(" (retry %d of %d at %s)", attempt, j.Retries, r.NotBefore.UTC().Format(time.RFC3339))
	s.log("schedule %s: try %d failed; retry %d of %d after its backoff", j.Name, attempt, attempt, j.Retries)
	return f
}

// notice sends fire j's failure notice (f failed after its retries, or was missed) to the
// schedule's webhook, and returns f with how it went. A gateway shows no desktop notification.
func (s *Scheduler) notice(ctx context.Context, j job, f Fired) Fired {
	if j.Notify == "" {
		return f
	}
	n := &schedule.Notice{Event: "schedule.failed", Schedule: j.Name, Flow: j.Tool, Status: f.State,
		Attempts: max(j.Attempt, 1), Due: j.Due, Summary: f.Error}
	if f.State == "missed" {
		n.Event, n.Attempts = "schedule.dropped", 0
	}
	nt := &schedule.Notifier{Clock: s.clock, Desktop: func(string, string) error { return nil }}
	if err := nt.Send(context.WithoutCancel(ctx), &schedule.Def{Name: j.Name, FlowName: j.Tool, Notify: j.Notify}, n); err != nil {
		f.Notice = "failed: " + err.Error()
		s.log("schedule %s: its failure notice was not delivered: %v", j.Name, err)
	} else {
		f.Notice = "sent"
	}
	return f
}

// note records how a fire went as its schedule's Last, unless Last already tells of a later
// fire or a later try of this one: a retry is queued before its try's note is written and may
// be handled by another worker first, so the notes of one fire can arrive out of order.
func (s *Scheduler) note(ctx context.Context, j job, f Fired) {
	f.Due, f.Kind, f.By, f.Ended = j.Due, j.Kind, s.c.Node.Name(), s.clock.Now()
	_, err := s.update(context.WithoutCancel(ctx), j.Name, func(r *Record) error {
		if r.Last == nil || f.Due.After(r.Last.Due) || (f.Due.Equal(r.Last.Due) && f.Attempt >= r.Last.Attempt) {
			r.Last = &f
		}
		return nil
	})
	if err != nil {
		s.log("schedule %s: %v", j.Name, err)
	}
}

// resultText is a failed result's text, cut to 300 bytes.
func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	s := b.String()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
