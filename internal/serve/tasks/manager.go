package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

// Options configure a Manager. Zero values take the defaults.
type Options struct {
	// Store keeps the tasks (a MemStore when nil).
	Store Store
	// Node names this process in the records it writes
	// (runs.ThisProcess when ""); Alive tells whether another record's
	// node still runs (runs.ProcessRunning when nil).
	Node  string
	Alive func(node string) bool
	// TTL is the time to live of a task whose caller asks for none
	// (DefaultTTL); MaxTTL bounds the one a caller asks for
	// (DefaultMaxTTL).
	TTL, MaxTTL time.Duration
	// Max bounds the live tasks of this Manager (DefaultMax).
	Max int
	// Poll is the poll interval suggested to callers (DefaultPoll).
	Poll time.Duration
	// Life bounds every task's work (the server's lifetime); nil: never
	// ends by itself (Close still cancels).
	Life context.Context
	// Orphan, when set, is asked about a live task whose node is gone
	// (Recover, Get): true keeps it live (the gateway waits for a
	// relayed answer), false (and a nil Orphan) fails it, "interrupted".
	Orphan func(r *Record) bool
	// Changed, when set, is called after each change of a task's state
	// a caller can observe (status, questions, the end), with the new
	// record; it must not block for long (notifications/tasks/status).
	Changed func(r *Record)
	// Log gets one line per task created and ended (tool, owner, status;
	// never arguments or answers). Nil: discard.
	Log *slog.Logger
	// KeepOnClose leaves the tasks live in the store when Close stops
	// their works (unless their caller cancelled them), for the next
	// process to take over (Adopt): the gateway's tasks run on desktops,
	// which keep running them while the gateway restarts. False: Close
	// stores how each work ended.
	KeepOnClose bool
	// Forward, when several Managers share one Store (the replicas of a
	// cluster of gateways), carries what a caller did through this
	// Manager to a live task whose work runs under another one (its
	// Record.Node): a cancel (cancel true; the record already says
	// cancelled) or answers to its questions. The other Manager applies
	// them with Deliver. Nil: nothing is forwarded (a cancel still stops
	// the work at its next write to the store).
	Forward func(ctx context.Context, r *Record, cancel bool, responses mcp.InputResponseMap) error
}

// Spec is what a new task is.
type Spec struct {
	Owner runs.Owner // the creating request's caller
	Tool  string
	Era   string // protocol version of the creating request
	// TTL is the time to live the caller asked for (0: the default; cut
	// to MaxTTL).
	TTL time.Duration
	// RunID is the run the task is ("" : a new run ID).
	RunID string
	// Relay is stored in the record (see Record.Relay).
	Relay string
}

// Work is the work of a task: it runs in its own goroutine with a context
// that ends when the task is cancelled or the Manager closes, and returns
// the tools/call result, or a JSON-RPC error (*jsonrpc.Error; any other
// error becomes -32603).
type Work func(ctx context.Context, h *Handle) (*mcp.CallToolResult, error)

// Manager runs tasks and answers for them. It is safe for concurrent use.
type Manager struct {
	o      Options
	life   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	live    map[string]*liveTask
	idle    chan struct{} // closed while no task is live
	wg      sync.WaitGroup
	closing atomic.Bool

	sweepOnce sync.Once
	stopSweep chan struct{}
}

// liveTask is a task whose work runs in this process.
type liveTask struct {
	id        string
	runID     string
	cancel    context.CancelFunc
	cancelled atomic.Bool
	takenOver atomic.Bool // another process runs it now (Adopt there): this work stops, silent

	mu      sync.Mutex
	n       int                    // questions asked so far (their keys are q1, q2, ...)
	asks    map[string]*pendingAsk // outstanding
	order   []string
	msg     string    // the latest statusMessage of the work (SetMessage)
	outcome string    // the statusMessage once the work returned a result (Outcome); "" clears it
	waiting string    // while questions are outstanding: what the newest asks
	written time.Time // when msg was last written to the store
	changed chan struct{}
	done    chan struct{} // closed once the work ended and how it ended is stored
}

type pendingAsk struct {
	key   string
	req   mcp.InputRequest
	resp  chan askResult // buffered 1
	taken bool           // being asked through a 2025-11-25 tasks/result
}

type askResult struct {
	resp mcp.InputResponse
	err  error
}

// Errors of a Manager (besides ErrNotFound).
var (
	// ErrExpired: the task's time to live passed.
	ErrExpired = errors.New("task has expired")
)

// TerminalError refuses a cancel of a task that already ended.
type TerminalError struct{ Status string }

func (e *TerminalError) Error() string {
	return fmt.Sprintf("already in terminal status '%s'", e.Status)
}

// BusyError refuses a task beyond Options.Max.
type BusyError struct{ Max int }

func (e *BusyError) Error() string {
	return fmt.Sprintf("too many tasks: %d are running (--max-tasks); try again when one has ended", e.Max)
}

// ElsewhereError is Await's answer for a task that waits for an answer
// while its work runs in another process on this machine that this
// Manager cannot pass answers to (no Options.Forward: a second `rpa
// serve` on the same run store): the caller is told at once where the
// question can be answered (the console's Questions page) instead of
// waiting for the question's timeout. JSON-RPC -32004 with data
// {"kind": "elsewhere", "runId", "pid"?}.
type ElsewhereError struct{ Task *Record }

// KindElsewhere is ElsewhereError's data.kind.
const KindElsewhere = "elsewhere"

// Error says where the task's question can be answered.
func (e *ElsewhereError) Error() string {
	where := "another rpa process on this machine"
	if pid := e.pid(); pid > 0 {
		where = fmt.Sprintf("another rpa process on this machine (pid %d)", pid)
	}
	return fmt.Sprintf("task %s is %s, and its run goes on in %s, which this connection cannot pass an answer to: "+
		"answer it on the Questions page of the rpa ui console on that machine (start `rpa ui` if none is open; "+
		"it shows the question within a second), then call tasks/result again for the result",
		e.Task.ID, strings.TrimSpace(e.Task.Message), where)
}

// pid is the process a record's Node ("pid:start", runs.ThisProcess)
// names, 0 when it names none.
func (e *ElsewhereError) pid() int {
	p, _, ok := strings.Cut(e.Task.Node, ":")
	n, err := strconv.Atoi(p)
	if !ok || err != nil {
		return 0
	}
	return n
}

// RPC is e as a JSON-RPC error.
func (e *ElsewhereError) RPC() *jsonrpc.Error {
	data := map[string]any{"kind": KindElsewhere, "runId": e.Task.RunID}
	if pid := e.pid(); pid > 0 {
		data["pid"] = pid
	}
	b, _ := json.Marshal(data)
	return &jsonrpc.Error{Code: CodeElsewhere, Message: e.Error(), Data: b}
}

// CodeElsewhere is the JSON-RPC code of an ElsewhereError (the -32004 of
// a call that cannot be served now, PROTOCOL.md).
const CodeElsewhere = -32004

// TTLError refuses a time to live that is not a positive number of
// milliseconds.
type TTLError struct{ Got string }

func (e *TTLError) Error() string {
	return fmt.Sprintf("task.ttl: %s is not a time to live; want a positive whole number of milliseconds", e.Got)
}

// New returns a Manager. Call Recover once before serving, and Close at
// the end.
func New(o Options) *Manager {
	if o.Store == nil {
		o.Store = &MemStore{}
	}
	if o.Node == "" {
		o.Node = runs.ThisProcess()
	}
	if o.Alive == nil {
		o.Alive = runs.ProcessRunning
	}
	if o.TTL <= 0 {
		o.TTL = DefaultTTL
	}
	if o.MaxTTL <= 0 {
		o.MaxTTL = DefaultMaxTTL
	}
	if o.TTL > o.MaxTTL {
		o.TTL = o.MaxTTL
	}
	if o.Max <= 0 {
		o.Max = DefaultMax
	}
	if o.Poll <= 0 {
		o.Poll = DefaultPoll
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	life := o.Life
	if life == nil {
		life = context.Background()
	}
	m := &Manager{o: o, live: map[string]*liveTask{}, idle: make(chan struct{}), stopSweep: make(chan struct{})}
	close(m.idle)
	m.life, m.cancel = context.WithCancel(life)
	return m
}

// Options returns the options in force (defaults filled in).
func (m *Manager) Options() Options { return m.o }

// Store returns the Manager's store.
func (m *Manager) Store() Store { return m.o.Store }

// Recover fails the live tasks of processes that are gone ("interrupted",
// with their run ID; Options.Orphan may keep some), deletes expired
// tasks, and starts sweeping expired ones every minute.
func (m *Manager) Recover(ctx context.Context) error {
	live, err := m.o.Store.Live(ctx)
	if err != nil {
		return fmt.Errorf("tasks: %w", err)
	}
	for _, r := range live {
		if r.Node != m.o.Node && !m.o.Alive(r.Node) {
			m.orphaned(ctx, r)
		}
	}
	if _, err := m.o.Store.Sweep(ctx, time.Now()); err != nil {
		return fmt.Errorf("tasks: %w", err)
	}
	m.sweepOnce.Do(func() { go m.sweep() })
	return nil
}

func (m *Manager) sweep() {
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-m.stopSweep:
			return
		case now := <-t.C:
			if n, err := m.o.Store.Sweep(context.Background(), now); err != nil {
				m.o.Log.Warn("tasks: sweeping expired tasks failed", "error", err.Error())
			} else if n > 0 {
				m.o.Log.Info("tasks: expired tasks deleted", "count", n)
			}
		}
	}
}

// orphaned handles a live record whose node is gone: kept when Orphan
// says so, else failed as interrupted. It returns the record as it is now.
func (m *Manager) orphaned(ctx context.Context, r *Record) *Record {
	if m.o.Orphan != nil && m.o.Orphan(r) {
		if r.Status == InputRequired {
			// Its questions were the dead process's: whoever takes the task over asks them
			// again; meanwhile nobody can answer them.
			r.Status, r.Inputs = Working, nil
			r.Message = "waiting to be taken over (the process running it ended)"
		}
		return r
	}
	nr, err := m.o.Store.Update(ctx, r.ID, func(x *Record) error {
		if Terminal(x.Status) {
			return nil
		}
		Interrupt(x, time.Now())
		return nil
	})
	if err != nil {
		m.o.Log.Warn("tasks: cannot mark an interrupted task", "task", r.ID, "error", err.Error())
		return r
	}
	m.o.Log.Info("tasks: interrupted (its process is gone)", "task", nr.ID, "run", nr.RunID)
	m.changed(nr)
	return nr
}

// Interrupt makes r a failed task whose process died before it ended: a
// JSON-RPC -32603 error of kind "interrupted" naming the run.
func Interrupt(r *Record, now time.Time) {
	msg := "interrupted: the process running the task ended before it finished"
	if r.RunID != "" {
		msg += " (run " + r.RunID + ")"
	}
	data, _ := json.Marshal(map[string]any{"kind": "interrupted", "runId": r.RunID})
	r.Status, r.Message, r.Inputs = Failed, msg, nil
	r.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg, Data: data}
	r.Ended, r.Updated = now.UTC(), now.UTC()
	r.TTLMs = max(r.TTLMs, r.Expires().Sub(r.Created).Milliseconds())
}

// TTL returns the time to live of a task whose caller asked for ttl (0:
// the default; cut to MaxTTL).
func (m *Manager) TTL(ttl time.Duration) time.Duration {
	switch {
	case ttl <= 0:
		return m.o.TTL
	case ttl > m.o.MaxTTL:
		return m.o.MaxTTL
	}
	return ttl
}

// Start creates a task and starts its work. The record is durably stored
// (Store.Create returned) before Start returns it, so the caller's
// tasks/get finds it. Beyond Options.Max live tasks it is a *BusyError.
func (m *Manager) Start(ctx context.Context, spec Spec, work Work) (*Record, error) {
	now := time.Now().UTC()
	runID := spec.RunID
	if runID == "" {
		runID = runs.NewID(now)
	}
	r := &Record{
		ID: NewID(runID), RunID: runID, Owner: spec.Owner, Tool: spec.Tool, Era: spec.Era,
		Status: Working, Message: "starting", Created: now, Updated: now,
		TTLMs: m.TTL(spec.TTL).Milliseconds(), PollMs: m.o.Poll.Milliseconds(),
		Node: m.o.Node, Relay: spec.Relay,
	}
	lt, wctx, err := m.enter(r)
	if err != nil {
		return nil, err
	}
	if err := m.o.Store.Create(ctx, r); err != nil {
		lt.cancel()
		m.forget(lt)
		m.wg.Done()
		return nil, fmt.Errorf("tasks: %w", err)
	}
	m.o.Log.Info("task created", "task", r.ID, "tool", r.Tool, "owner", OwnerKey(r.Owner), "ttl", time.Duration(r.TTLMs)*time.Millisecond)
	m.run(lt, wctx, work)
	return r, nil
}

// enter makes r a live task of this Manager (within Max); the caller
// starts it (run) or undoes it (forget, wg.Done).
func (m *Manager) enter(r *Record) (*liveTask, context.Context, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.live[r.ID]; ok {
		return nil, nil, fmt.Errorf("tasks: task %s is already live here", r.ID)
	}
	if len(m.live) >= m.o.Max {
		return nil, nil, &BusyError{Max: m.o.Max}
	}
	wctx, cancel := context.WithCancel(m.life)
	lt := &liveTask{id: r.ID, runID: r.RunID, cancel: cancel, asks: map[string]*pendingAsk{}, msg: r.Message,
		written: time.Now(), changed: make(chan struct{}), done: make(chan struct{})}
	if len(m.live) == 0 {
		m.idle = make(chan struct{})
	}
	m.live[r.ID] = lt
	m.wg.Add(1)
	return lt, wctx, nil
}

// run runs a live task's work and stores how it ended.
func (m *Manager) run(lt *liveTask, wctx context.Context, work Work) {
	h := &Handle{m: m, lt: lt}
	go func() {
		defer m.wg.Done()
		defer lt.cancel()
		res, err := runWork(wctx, work, h)
		m.finish(lt, res, err)
		close(lt.done)
		m.forget(lt)
	}()
}

// Adopt takes over a live task whose process is gone (one Options.Orphan
// kept): this Manager's node runs it from now on, with work. A task that
// ended meanwhile is left as it is (nil error).
func (m *Manager) Adopt(ctx context.Context, r *Record, work Work) error {
	lt, wctx, err := m.enter(r)
	if err != nil {
		return err
	}
	nr, err := m.o.Store.Update(ctx, r.ID, func(x *Record) error {
		if Terminal(x.Status) || x.Node != r.Node {
			return errStop // ended, or another process took it over first
		}
		// Its questions were the old process's: they are asked again.
		x.Node, x.Updated = m.o.Node, time.Now().UTC()
		if x.Status == InputRequired {
			x.Status, x.Inputs = Working, nil
		}
		return nil
	})
	if err != nil {
		lt.cancel()
		m.forget(lt)
		m.wg.Done()
		if errors.Is(err, errStop) {
			return nil
		}
		return fmt.Errorf("tasks: %w", err)
	}
	lt.mu.Lock() // tasks/get may read it already: enter made it live
	lt.msg, lt.n = nr.Message, nr.Asked
	lt.mu.Unlock()
	m.o.Log.Info("task taken over from a process that is gone", "task", nr.ID, "tool", nr.Tool)
	m.run(lt, wctx, work)
	return nil
}

// runWork runs work, turning a panic into an error (a task never takes the
// server down).
func runWork(ctx context.Context, work Work, h *Handle) (res *mcp.CallToolResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("the task's work failed: %v", p)}
		}
	}()
	return work(ctx, h)
}

func (m *Manager) forget(lt *liveTask) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.live, lt.id)
	if len(m.live) == 0 {
		close(m.idle)
	}
}

// finish stores how the work ended. A task cancelled meanwhile stays
// cancelled (keeping the result the work returned, if any). With
// KeepOnClose, a work stopped by Close leaves its task as it is.
func (m *Manager) finish(lt *liveTask, res *mcp.CallToolResult, err error) {
	if m.o.KeepOnClose && m.closing.Load() && !lt.cancelled.Load() {
		m.o.Log.Info("task left live for the next process", "task", lt.id)
		return
	}
	lt.mu.Lock()
	outcome := lt.outcome
	lt.mu.Unlock()
	var raw json.RawMessage
	if err == nil && res != nil {
		b, merr := json.Marshal(res)
		if merr != nil {
			err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "cannot encode the result: " + merr.Error()}
		} else {
			raw = b
		}
	}
	if err == nil && res == nil {
		err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the task's work returned no result"}
	}
	if lt.takenOver.Load() {
		m.o.Log.Info("task left to the process that took it over", "task", lt.id)
		return
	}
	now := time.Now().UTC()
	r, uerr := m.o.Store.Update(context.Background(), lt.id, func(r *Record) error {
		if r.Node != m.o.Node {
			lt.takenOver.Store(true)
			return errStop
		}
		r.Inputs, r.Updated = nil, now
		if r.Ended.IsZero() {
			r.Ended = now
		}
		if r.Status == Cancelled {
			if raw != nil {
				r.Result, r.IsError = raw, res.IsError
			}
		} else if !Terminal(r.Status) {
			if err != nil {
				r.Status, r.Error = Failed, RPCError(err)
				r.Message = "failed: " + r.Error.Message
			} else {
				// What the work said while it worked (its step, "waiting for an answer: ...",
				// a queue) is over: a completed task says its outcome, or nothing.
				r.Status, r.Result, r.IsError, r.Message = Completed, raw, res.IsError, outcome
			}
		}
		r.TTLMs = max(r.TTLMs, r.Expires().Sub(r.Created).Milliseconds())
		return nil
	})
	if errors.Is(uerr, errStop) {
		m.o.Log.Info("task left to the process that took it over", "task", lt.id)
		return
	}
	if uerr != nil {
		m.o.Log.Error("tasks: cannot store how a task ended", "task", lt.id, "error", uerr.Error())
		return
	}
	m.o.Log.Info("task ended", "task", r.ID, "tool", r.Tool, "status", r.Status, "isError", r.IsError)
	lt.notify()
	m.changed(r)
}

// RPCError is err as the JSON-RPC error a task carries (a *jsonrpc.Error
// as is, anything else as -32603).
func RPCError(err error) *jsonrpc.Error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

func (m *Manager) changed(r *Record) {
	if m.o.Changed != nil && r != nil {
		m.o.Changed(r)
	}
}

func (lt *liveTask) notify() {
	lt.mu.Lock()
	close(lt.changed)
	lt.changed = make(chan struct{})
	lt.mu.Unlock()
}

// changes is the channel notify closes next.
func (lt *liveTask) changes() chan struct{} {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return lt.changed
}

// closed is a channel that is closed.
var closed = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Changed returns a channel closed at the next change of what tasks/get
// shows of task id while its work runs in this Manager: its status, its
// questions, its statusMessage, its end. For a task whose work does not
// run here (it ended, or it is another process's) the channel is closed
// already: its state is the store's (read it again; another process's
// task changes without a word to this one). Get it before reading the
// task, then wait on it: a change in between closes it.
func (m *Manager) Changed(id string) <-chan struct{} {
	if lt := m.liveTask(id); lt != nil {
		return lt.changes()
	}
	return closed
}

func (m *Manager) liveTask(id string) *liveTask {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live[id]
}

// Live is the number of tasks whose work runs in this Manager now.
func (m *Manager) Live() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.live)
}

// WaitIdle waits until no task is live or ctx ends.
func (m *Manager) WaitIdle(ctx context.Context) error {
	m.mu.Lock()
	idle := m.idle
	m.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close cancels every live task's work, waits for them to store how they
// ended, and stops sweeping.
func (m *Manager) Close() {
	m.closing.Store(true)
	m.cancel()
	m.wg.Wait()
	m.sweepOnce.Do(func() {})
	select {
	case <-m.stopSweep:
	default:
		close(m.stopSweep)
	}
}

// Get returns task id as who sees it: ErrNotFound when there is no such
// task or who does not reach it (Who.Reaches; the two are not told
// apart), ErrExpired when its time to live passed. A live task of a process that is gone is failed
// ("interrupted") first; a live task of this process shows its latest
// statusMessage.
func (m *Manager) Get(ctx context.Context, who Who, id string) (*Record, error) {
	r, err := m.o.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	if !who.Reaches(r.Owner) {
		return nil, ErrNotFound
	}
	if exp := r.Expires(); !exp.IsZero() && time.Now().After(exp) {
		return nil, ErrExpired
	}
	return m.current(ctx, r), nil
}

// current is stored record r as it is now, what Get and List show: a live
// task of this process with its latest statusMessage (the store has it
// only every messageEvery), a live task of a process that is gone failed
// ("interrupted") first.
func (m *Manager) current(ctx context.Context, r *Record) *Record {
	if Terminal(r.Status) {
		return r
	}
	if lt := m.liveTask(r.ID); lt != nil {
		lt.mu.Lock()
		r.Message = lt.message()
		lt.mu.Unlock()
	} else if r.Node != m.o.Node && !m.o.Alive(r.Node) {
		r = m.orphaned(ctx, r)
	}
	return r
}

// List returns the tasks who lists (Who.Lists: by its bearer token, else
// its device, else an unbound caller its own session's) after cursor (""
// from the first), at most limit (0: 50), and the cursor of the next page
// ("" at the end). Each shows what Get shows.
func (m *Manager) List(ctx context.Context, who Who, cursor string, limit int) ([]*Record, string, error) {
	if limit <= 0 {
		limit = 50
	}
	rs, err := m.o.Store.List(ctx, OwnerKey(who.Owner), cursor, limit+1)
	if err != nil {
		return nil, "", err
	}
	var out []*Record
	now := time.Now()
	for _, r := range rs {
		if exp := r.Expires(); !exp.IsZero() && now.After(exp) || !who.Lists(r.Owner) {
			continue
		}
		out = append(out, m.current(ctx, r))
	}
	next := ""
	if len(rs) > limit {
		out = out[:min(len(out), limit)]
		next = rs[limit-1].ID
	}
	return out, next, nil
}

// Cancel cancels task id for who: its status is cancelled (stored) when
// Cancel returns, and its work is told to stop. A task that already ended
// is a *TerminalError.
func (m *Manager) Cancel(ctx context.Context, who Who, id string) (*Record, error) {
	if _, err := m.Get(ctx, who, id); err != nil {
		return nil, err
	}
	now := time.Now().UTC()
	r, err := m.o.Store.Update(ctx, id, func(r *Record) error {
		if Terminal(r.Status) {
			return &TerminalError{Status: r.Status}
		}
		r.Status, r.Message, r.Inputs = Cancelled, "cancelled by its caller", nil
		r.Ended, r.Updated = now, now
		r.TTLMs = max(r.TTLMs, r.Expires().Sub(r.Created).Milliseconds())
		return nil
	})
	if err != nil {
		return nil, err
	}
	if lt := m.liveTask(id); lt != nil {
		lt.cancelled.Store(true)
		lt.cancel()
		lt.notify()
	} else if m.o.Forward != nil && r.Node != m.o.Node {
		if err := m.o.Forward(ctx, r, true, nil); err != nil {
			m.o.Log.Info("tasks: the cancel did not reach the task's process now; it stops at its next write", "task", id, "node", r.Node, "error", err.Error())
		}
	}
	m.o.Log.Info("task cancelled", "task", id)
	m.changed(r)
	return r, nil
}

// Answer delivers responses to the outstanding questions of task id for
// who (2026-07-28 tasks/update). Keys that are not outstanding (never
// asked, answered already) are ignored, as the extension says. A question
// of a run in another process this Manager cannot reach is an
// *ElsewhereError.
func (m *Manager) Answer(ctx context.Context, who Who, id string, responses mcp.InputResponseMap) error {
	r, err := m.Get(ctx, who, id)
	if err != nil {
		return err
	}
	lt := m.liveTask(id)
	if lt == nil {
		if m.o.Forward != nil && r.Node != m.o.Node && !Terminal(r.Status) {
			return m.o.Forward(ctx, r, false, responses)
		}
		if r.Status == InputRequired && r.Node != m.o.Node {
			return &ElsewhereError{Task: r} // the answer cannot reach the run: say so, never drop it silently
		}
		return nil
	}
	for key, resp := range responses {
		lt.answer(key, askResult{resp: resp})
	}
	return nil
}

// Deliver applies to task id what a caller did through another Manager
// sharing the Store (Options.Forward): a cancel, or answers to its
// outstanding questions (keys not outstanding are ignored). It reports
// whether the task's work runs under this Manager.
func (m *Manager) Deliver(id string, cancel bool, responses mcp.InputResponseMap) bool {
	lt := m.liveTask(id)
	if lt == nil {
		return false
	}
	if cancel {
		lt.cancelled.Store(true)
		lt.cancel()
		lt.notify()
		return true
	}
	for key, resp := range responses {
		lt.answer(key, askResult{resp: resp})
	}
	return true
}

// answer hands one result to the question key, once.
func (lt *liveTask) answer(key string, a askResult) bool {
	lt.mu.Lock()
	pa := lt.asks[key]
	if pa != nil {
		delete(lt.asks, key)
	}
	lt.mu.Unlock()
	if pa == nil {
		return false
	}
	pa.resp <- a
	return true
}

// Await waits until task id (as who sees it) ends or ctx ends, and returns it
// (2025-11-25 tasks/result). While it waits, the task's questions are put
// to the caller through ask (an elicitation or sampling request on the
// tasks/result request's own stream), one at a time; when ask fails (the
// caller's session or link closed, it refused the request), Await returns
// that error and the question stays, for the caller's next tasks/result
// (or another channel, or the question's timeout).
func (m *Manager) Await(ctx context.Context, who Who, id string, ask func(ctx context.Context, key string, r mcp.InputRequest) (mcp.InputResponse, error)) (*Record, error) {
	var asked map[string]bool // questions of a task of another Manager put to the caller here
	for {
		r, err := m.Get(ctx, who, id)
		if err != nil {
			return nil, err
		}
		lt := m.liveTask(id)
		if r.Status == Cancelled && r.Result == nil && lt != nil {
			// Cancelled, and its work, here, is stopping: its result is
			// the cancelled run's, stored when the work returns.
			select {
			case <-lt.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		if Terminal(r.Status) {
			return r, nil
		}
		if lt == nil && m.o.Forward == nil && r.Status == InputRequired && r.Node != m.o.Node {
			// Its work runs in another live process (current failed it
			// otherwise) that this Manager cannot pass an answer to.
			return nil, &ElsewhereError{Task: r}
		}
		if lt == nil && ask != nil && m.o.Forward != nil && r.Status == InputRequired && r.Node != m.o.Node {
			// Its work runs under another Manager (a replica): its stored
			// questions are asked here, each once, and the answers forwarded.
			if asked == nil {
				asked = map[string]bool{}
			}
			if key, req := nextInput(r, asked); req != nil {
				asked[key] = true
				resp, err := ask(ctx, key, req)
				if err != nil {
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					return nil, err
				}
				if err := m.o.Forward(ctx, r, false, mcp.InputResponseMap{key: resp}); err != nil {
					return nil, err
				}
				continue
			}
		}
		var changed chan struct{}
		if lt != nil {
			if pa := lt.take(); pa != nil && ask != nil {
				resp, err := ask(ctx, pa.key, pa.req)
				if err != nil {
					// The caller could not be asked now (its session or link
					// closed, it refused the request): the question stays for
					// its next tasks/result (or the console, or its timeout).
					lt.untake(pa)
					if ctx.Err() != nil {
						return nil, ctx.Err()
					}
					return nil, err
				}
				lt.answer(pa.key, askResult{resp: resp})
				continue
			}
			changed = lt.changes()
		}
		// A task of another process: look again at the poll interval.
		t := time.NewTimer(m.o.Poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-changed:
		case <-t.C:
		}
		t.Stop()
	}
}

// nextInput returns the first of r's stored questions (in key order: q1,
// q2, ... q10 after q9) not in asked; a nil request when none is left.
func nextInput(r *Record, asked map[string]bool) (string, mcp.InputRequest) {
	if len(r.Inputs) == 0 {
		return "", nil
	}
	var inputs mcp.InputRequestMap
	if json.Unmarshal(r.Inputs, &inputs) != nil {
		return "", nil
	}
	keys := make([]string, 0, len(inputs))
	for k := range inputs {
		if !asked[k] {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return "", nil
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	return keys[0], inputs[keys[0]]
}

// take returns the oldest question nobody is asking yet, marked taken.
func (lt *liveTask) take() *pendingAsk {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	for _, k := range lt.order {
		if pa := lt.asks[k]; pa != nil && !pa.taken {
			pa.taken = true
			return pa
		}
	}
	return nil
}

func (lt *liveTask) untake(pa *pendingAsk) {
	lt.mu.Lock()
	pa.taken = false
	lt.mu.Unlock()
}

// Handle is a task's work's view of its task.
type Handle struct {
	m  *Manager
	lt *liveTask
}

// ID is the task id.
func (h *Handle) ID() string { return h.lt.id }

// RunID is the run the task is.
func (h *Handle) RunID() string { return h.lt.runID }

// Cancelled reports whether the task's caller cancelled it.
func (h *Handle) Cancelled() bool { return h.lt.cancelled.Load() }

// HandOver gives the task up to the next process that takes it over
// (Adopt; its Record.Node is cleared), when this one cannot go on with it
// (at a gateway replica: its desktop now links to another replica). The
// work should return at once: nothing it returns is stored. A task that
// ended or was taken over meanwhile is left as it is.
func (h *Handle) HandOver(ctx context.Context) error {
	_, err := h.m.o.Store.Update(ctx, h.lt.id, func(r *Record) error {
		if Terminal(r.Status) || r.Node != h.m.o.Node {
			return errStop
		}
		r.Node, r.Updated = "", time.Now().UTC()
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	h.lt.takenOver.Store(true)
	return nil
}

// messageEvery is how often a changing statusMessage is written to the
// store (tasks/get in this process shows the latest at once).
const messageEvery = time.Second

// SetMessage sets the task's statusMessage ("line 14: click "#submit"").
func (h *Handle) SetMessage(msg string) {
	lt := h.lt
	lt.mu.Lock()
	same := lt.msg == msg
	lt.msg = msg
	write := time.Since(lt.written) >= messageEvery
	if write {
		lt.written = time.Now()
	}
	shown := lt.message()
	lt.mu.Unlock()
	if write {
		h.m.write(lt, func(r *Record) { r.Message = shown }, false)
	}
	if !same {
		lt.notify() // tasks/get here shows it at once (Changed)
	}
}

// Outcome sets the statusMessage the task shows once its work returns a
// result (status completed), such as "the flow finished (run ID)". Without
// it a completed task shows none: the messages of SetMessage describe the
// work while it runs and end with it. A failed task shows "failed: " and its
// error, a cancelled one "cancelled by its caller", whatever was set here.
func (h *Handle) Outcome(msg string) {
	h.lt.mu.Lock()
	h.lt.outcome = msg
	h.lt.mu.Unlock()
}

// message is the statusMessage shown now (lt.mu held).
func (lt *liveTask) message() string {
	if lt.waiting != "" {
		return "waiting for an answer: " + lt.waiting
	}
	return lt.msg
}

// write changes the stored record of a live task (unless it ended: a
// cancel from another process then stops the work) and, when notify, tells
// the waiters and Changed.
func (m *Manager) write(lt *liveTask, fn func(*Record), notify bool) {
	var ended bool
	r, err := m.o.Store.Update(context.Background(), lt.id, func(r *Record) error {
		if Terminal(r.Status) {
			ended = r.Status == Cancelled
			return errStop
		}
		if r.Node != m.o.Node {
			lt.takenOver.Store(true) // another process took the task over: this work stops
			return errStop
		}
		fn(r)
		r.Updated = time.Now().UTC()
		return nil
	})
	if ended {
		lt.cancelled.Store(true)
	}
	if ended || lt.takenOver.Load() {
		lt.cancel()
	}
	if err != nil {
		if !errors.Is(err, errStop) {
			m.o.Log.Warn("tasks: cannot update a task", "task", lt.id, "error", err.Error())
		}
		return
	}
	if notify {
		lt.notify()
		m.changed(r)
	}
}

var errStop = errors.New("stop")

// Ask puts r (an *mcp.ElicitParams or *mcp.CreateMessageParams) to the
// task's caller and waits for the answer until ctx ends: the task is
// input_required with r among its inputRequests (2026-07-28, answered by
// tasks/update) and r is asked through the caller's tasks/result
// (2025-11-25). It is an mrtr.AskFunc.
func (h *Handle) Ask(ctx context.Context, r mcp.InputRequest) (mcp.InputResponse, error) {
	lt := h.lt
	lt.mu.Lock()
	lt.n++
	pa := &pendingAsk{key: fmt.Sprintf("q%d", lt.n), req: r, resp: make(chan askResult, 1)}
	lt.asks[pa.key] = pa
	lt.order = append(lt.order, pa.key)
	lt.mu.Unlock()
	h.syncInputs(questionText(r))
	defer func() {
		lt.mu.Lock()
		delete(lt.asks, pa.key)
		for i, k := range lt.order {
			if k == pa.key {
				lt.order = append(lt.order[:i], lt.order[i+1:]...)
				break
			}
		}
		lt.mu.Unlock()
		h.syncInputs("")
	}()
	select {
	case a := <-pa.resp:
		return a.resp, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// syncInputs writes the outstanding questions (input_required with them,
// else working again). what says what the newest question asks.
func (h *Handle) syncInputs(what string) {
	lt := h.lt
	lt.mu.Lock()
	inputs := mcp.InputRequestMap{}
	for _, k := range lt.order {
		if pa := lt.asks[k]; pa != nil {
			inputs[k] = pa.req
		}
	}
	switch {
	case len(inputs) == 0:
		lt.waiting = ""
	case what != "":
		lt.waiting = what
	}
	msg := lt.message()
	asked := lt.n
	lt.mu.Unlock()
	var raw json.RawMessage
	if len(inputs) > 0 {
		b, err := json.Marshal(inputs)
		if err != nil {
			h.m.o.Log.Warn("tasks: cannot encode a question", "task", lt.id, "error", err.Error())
		}
		raw = b
	}
	h.m.write(lt, func(r *Record) {
		r.Message, r.Asked = msg, asked
		if raw != nil {
			r.Status, r.Inputs = InputRequired, raw
		} else {
			r.Status, r.Inputs = Working, nil
		}
	}, true)
}

// questionText is the first line of what r asks.
func questionText(r mcp.InputRequest) string {
	var s string
	switch x := r.(type) {
	case *mcp.ElicitParams:
		s = x.Message
	//lint:ignore SA1019 a flow's question may be a sampling request, forwarded deliberately
	case *mcp.CreateMessageParams:
		s = "a model's answer (sampling)"
	//lint:ignore SA1019 as above
	case *mcp.CreateMessageWithToolsParams:
		s = "a model's answer (sampling)"
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
