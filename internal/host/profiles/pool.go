// Package profiles keeps one warm browser per browser profile for the MCP
// server (PROTOCOL.md, "Browser profiles and silent mode").
//
// A profile is one isolated user-data folder. The Pool starts its browser on
// the first Acquire, keeps it (and the tab the last caller left current)
// for the next callers, and closes it after it has been idle for
// Options.Idle. Callers of one profile hold it one at a time, in arrival
// order (a FIFO queue of waiters, not a bare mutex, so no caller can
// overtake another); different profiles run in parallel. A browser found
// dead is closed and replaced on the next Acquire: every Acquire asks the
// browser's cheap signals (process exited, DevTools connection closed;
// drivers.Gone), and one that rested or was marked broken is probed with a
// DevTools round trip.
//
// Limits: at most Options.MaxBrowsers browsers are open at once, and at
// most Options.MaxContexts browser contexts on attached browsers
// (LaunchOptions.Remote: a profile there is a context, not a process). A
// call that needs one more closes the longest-idle one of its kind; when
// every one is in use it waits in a FIFO queue for one to be released
// (slots.go), as long as its context lets it. At most Options.MaxQueue
// calls wait for one profile, and as many for a browser (or a context);
// past that Acquire returns a *BusyError (kind busy, JSON-RPC -32004) at
// once. WithWaitNotice tells a caller that it waits, and for what.
//
// A call that ends by a cancel or a timeout leaves its tab clean: Release
// stops its loading (or closes it), so the next call to the same address
// does not wait behind a request Chromium still holds (Lease.Interrupted).
package profiles

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/msg"
	"github.com/rpa-dev/rpa/lang"
)

// DefaultIdle is how long an unused browser stays open (10 minutes, the
// default of `rpa serve --idle`).
const DefaultIdle = 10 * time.Minute

// DefaultMaxBrowsers is how many browsers may be open at once unless
// Options.MaxBrowsers says otherwise: sized for a 2-core desktop, where a
// fourth concurrent headless Chromium makes a batch slower than running it
// in sequence.
const DefaultMaxBrowsers = 3

// DefaultMaxQueue is how many calls may wait for one profile (besides the
// one holding it) unless Options.MaxQueue says otherwise.
const DefaultMaxQueue = 32

// BusyError reports a call refused because a queue was full: too many
// calls already waiting for the profile, or for a browser (a context) when
// every one is open and in use. Its kind is core.KindBusy; the MCP layer
// answers it with JSON-RPC error -32004.
type BusyError struct {
	Profile string
	// Limit names the limit: "queue" (the profile's queue), "browsers" or
	// "contexts" (the queue for a browser, a context, was full too).
	Limit string
	// Max is the limit's value: --max-queue for "queue", else
	// --max-browsers or --max-contexts.
	Max int
	// Queued is how many calls were waiting for a browser (a context);
	// 0 for "queue".
	Queued int
}

// Error says which limit and how to raise it.
func (e *BusyError) Error() string {
	switch e.Limit {
	case "queue":
		return fmt.Sprintf("profile %q is busy: %d calls are already waiting for it (--max-queue)", e.Profile, e.Max)
	case "contexts":
		return fmt.Sprintf("no browser context free for profile %q: %d contexts are open and in use and %d calls already wait for one (--max-contexts, --max-queue)", e.Profile, e.Max, e.Queued)
	}
	return fmt.Sprintf("no browser free for profile %q: %d browsers are open and in use and %d calls already wait for one (--max-browsers, --max-queue)", e.Profile, e.Max, e.Queued)
}

// Unwrap returns the core error of kind busy, so core.KindOf(err) is
// core.KindBusy.
func (e *BusyError) Unwrap() error {
	return &core.Error{Kind: core.KindBusy, Msg: e.Error()}
}

// DefaultProfile is the profile used when neither the caller nor the flow's
// `defaults profile:` names one.
const DefaultProfile = "default"

// ErrClosed is returned by Acquire after Close.
var ErrClosed = errors.New("profiles: pool is closed")

// LaunchError reports that a profile's browser could not be started or
// reached. The MCP layer answers it with JSON-RPC error -32004.
type LaunchError struct {
	Profile string
	Err     error
}

// Error names the profile and the driver's reason.
func (e *LaunchError) Error() string {
	return fmt.Sprintf("browser for profile %q could not be started: %v", e.Profile, e.Err)
}

// Unwrap returns the driver's error.
func (e *LaunchError) Unwrap() error { return e.Err }

// IDError reports a profile id that is not a safe folder name.
type IDError struct{ ID string }

// Error names the id (lang.Echo: a long one by its length) and the
// allowed form.
func (e *IDError) Error() string {
	return fmt.Sprintf("invalid profile id %s: use 1-64 letters, digits, '_', '-' or '.', not starting with a dot", lang.Echo(e.ID))
}

func init() {
	// IDError's sentence for a person reading Chinese (msg.Localize).
	msg.Register(map[string]msg.Text{"out.profiles.badID": {
		En: "invalid profile id %s: use 1-64 letters, digits, '_', '-' or '.', not starting with a dot",
		Zh: "无效的浏览器配置名 %s：请用 1-64 个字母、数字、'_'、'-' 或 '.'，不能以点开头"}})
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$`)

// ValidID reports whether id can name a profile (every profile: MCP's
// profileId, --profile, a flow's `defaults profile:`): 1 to 64 characters
// from [A-Za-z0-9_.-], not starting with a dot (so it is always one plain,
// visible folder name under $RPA_HOME/profiles: Dir). The error is an
// *IDError.
func ValidID(id string) error {
	if !idRE.MatchString(id) {
		return &IDError{id}
	}
	return nil
}

// Options configures a Pool.
type Options struct {
	// Driver launches browsers; required.
	Driver drivers.Driver
	// Launch returns the launch options of a profile (its user-data folder,
	// Show, Remote, flags). Required; it is called on each (re)start.
	Launch func(id string) (drivers.LaunchOptions, error)
	// Idle is how long a browser stays open unused: 0 means DefaultIdle, a
	// negative value keeps browsers until Close.
	Idle time.Duration
	// Logger receives start/stop/crash lines (nil: discard).
	Logger *slog.Logger
	// MaxBrowsers bounds the browsers this pool launches that are open at
	// once: 0 means DefaultMaxBrowsers, a negative value no bound.
	// Starting one more first closes the longest-idle browser; with none
	// idle the call waits for one (bounded by MaxQueue and its context).
	MaxBrowsers int
	// MaxContexts bounds the profiles open at once on attached browsers
	// (LaunchOptions.Remote; each one a browser context there, not a
	// process): 0 means DefaultMaxContexts(), a negative value no bound;
	// otherwise as MaxBrowsers.
	MaxContexts int
	// MaxQueue bounds the calls waiting for one profile, and the calls
	// waiting for a browser (a context) when all are in use: 0 means
	// DefaultMaxQueue, a negative value no bound. Past it Acquire returns
	// a *BusyError at once.
	MaxQueue int
}

// Pool is a set of warm browsers, one per profile id. It is safe for
// concurrent use.
type Pool struct {
	opts Options

	mu      sync.Mutex
	entries map[string]*entry
	closed  bool
	// slots counts the browsers (contexts) open and starting, and the
	// calls waiting for one, per kind (slots.go).
	slots [2]slotQueue
	freed chan struct{} // closed (and replaced) when a slot may have come free
	// secrets are the secret values calls used per profile id
	// (Lease.AddSecrets), scrubbed from its folder when its browser
	// closes; dirs the folder of each id's last launch; scrubbing is
	// closed when a profile's scrub ends (a launch waits for it).
	secrets   map[string][]string
	dirs      map[string]string
	holds     map[string]*Lock // the claim of each launched profile's folder
	scrubbing map[string]chan struct{}
	// watches end the watch of each launched profile's folder for other
	// processes that want it (want.go).
	watches map[string]func()
}

// entry is one profile's state. Fields are guarded by Pool.mu except
// browser and page, which only the holder of the profile touches (and
// Close, after taking mu and seeing the entry free or the pool closing).
type entry struct {
	id      string
	busy    bool
	queue   []*waiter
	browser drivers.Browser
	page    drivers.Page
	idle    *time.Timer
	kind    slotKind // the kind of its browser's slot, set at launch
	gen     int      // bumped on every acquire; stale idle timers compare it
	arrived int      // Acquire calls that reached the queue, in total
	// released is when the last holder let go; suspect is set by
	// MarkBroken. Acquire probes Alive only when the browser is suspect
	// or was released more than ProbeAfter ago.
	released time.Time
	suspect  bool
	// interrupted is set by Lease.Interrupted: the next Release cleans
	// the current tab.
	interrupted bool
}

// ProbeAfter is how long a browser may rest before Acquire checks that it
// is still alive (a DevTools round trip). Back-to-back calls skip the
// probe; a call that sees a dead browser fails and marks it (MarkBroken),
// so the next call replaces it.
const ProbeAfter = time.Second

type waiter struct {
	ch      chan struct{} // closed when the profile is handed to this waiter
	granted bool          // set under Pool.mu together with closing ch
}

// New returns an empty pool.
func New(opts Options) (*Pool, error) {
	if opts.Driver == nil {
		return nil, errors.New("profiles: Options.Driver is required")
	}
	if opts.Launch == nil {
		return nil, errors.New("profiles: Options.Launch is required")
	}
	if opts.Idle == 0 {
		opts.Idle = DefaultIdle
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxBrowsers == 0 {
		opts.MaxBrowsers = DefaultMaxBrowsers
	}
	if opts.MaxContexts == 0 {
		opts.MaxContexts = DefaultMaxContexts()
	}
	if opts.MaxQueue == 0 {
		opts.MaxQueue = DefaultMaxQueue
	}
	return &Pool{opts: opts, entries: map[string]*entry{}, secrets: map[string][]string{},
		dirs: map[string]string{}, holds: map[string]*Lock{}, scrubbing: map[string]chan struct{}{}, watches: map[string]func(){},
		freed: make(chan struct{})}, nil
}

// Lease is the exclusive hold of one profile, from Acquire to Release.
// Its methods must be called only by the goroutine holding it.
type Lease struct {
	p        *Pool
	e        *entry
	b        drivers.Browser // the browser at Acquire time
	ctx      context.Context // the Acquire call's context
	released bool
}

// ID is the profile id.
func (l *Lease) ID() string { return l.e.id }

// Browser is the profile's running browser.
func (l *Lease) Browser() drivers.Browser { return l.b }

// Page is the tab the previous holder left current, nil when there is none
// yet (open one with Browser().NewPage).
func (l *Lease) Page() drivers.Page {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	if l.e.browser != l.b {
		return nil
	}
	return l.e.page
}

// SetPage records the tab the next holder (and browser_read) starts on.
func (l *Lease) SetPage(pg drivers.Page) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	if l.e.browser == l.b {
		l.e.page = pg
	}
}

// MarkBroken tells the pool the browser failed during this lease (a
// browser-kind error), so the next Acquire checks it and replaces it if it
// is dead.
func (l *Lease) MarkBroken() {
	l.p.mu.Lock()
	l.e.suspect = true
	l.p.mu.Unlock()
}

// Interrupted tells the pool that the call holding this lease ended by a
// cancel or a timeout, so its tab may still be loading: Release then stops
// the current tab's loading (drivers.StopLoading) and closes the tab when
// that fails, so the next caller starts clean instead of waiting behind a
// request Chromium still holds (its cache lock on that address). Release
// does this by itself when the Acquire context has ended.
func (l *Lease) Interrupted() {
	l.p.mu.Lock()
	l.e.interrupted = true
	l.p.mu.Unlock()
}

// Release gives the profile to the next waiter in arrival order, or starts
// the idle timer. It does not probe the browser (Alive may cost a DevTools
// round trip): the next Acquire does, and replaces a dead one. After an
// interrupted call (Interrupted, or the Acquire context ended) it first
// stops the current tab's loading, bounded by 3 s. Release is idempotent.
func (l *Lease) Release() {
	if l.released {
		return
	}
	l.released = true
	p, e := l.p, l.e
	p.mu.Lock()
	interrupted := e.interrupted || (l.ctx != nil && l.ctx.Err() != nil)
	e.interrupted = false
	var pg drivers.Page
	if interrupted && e.browser == l.b {
		pg = e.page
	}
	p.mu.Unlock()
	if pg != nil && l.b != nil && !drivers.Gone(l.b) {
		if !cleanTab(pg) {
			p.mu.Lock()
			if e.page == pg {
				e.page = nil
			}
			p.mu.Unlock()
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	e.released = time.Now()
	p.handOffLocked(e)
}

// cleanTab stops pg's loading; when that fails it closes pg and returns
// false (the tab is gone).
func cleanTab(pg drivers.Page) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := drivers.StopLoading(ctx, pg); err == nil {
		return true
	}
	_ = pg.Close()
	return false
}

// handOffLocked passes e to its first waiter or marks it free.
func (p *Pool) handOffLocked(e *entry) {
	if len(e.queue) > 0 {
		w := e.queue[0]
		e.queue = e.queue[1:]
		w.granted = true
		close(w.ch)
		return
	}
	e.busy = false
	if e.browser != nil && !p.closed && p.dirs[e.id] != "" && WantedByOther(p.dirs[e.id]) {
		// Another rpa process waits for the folder: hand it over now
		// rather than keep the browser for its idle time.
		r := p.takeOutLocked(e)
		go func() {
			p.opts.Logger.Info("browser closed: another rpa process wants the profile", "profile", e.id)
			_ = p.finish(r)
		}()
		return
	}
	if e.browser != nil {
		p.signalLocked() // an idle browser: a call waiting for a slot may close it
	}
	if p.closed || e.browser == nil || p.opts.Idle < 0 {
		return
	}
	gen := e.gen
	e.idle = time.AfterFunc(p.opts.Idle, func() { p.expire(e, gen) })
}

// expire closes e's browser if nobody acquired it since generation gen.
func (p *Pool) expire(e *entry, gen int) {
	p.mu.Lock()
	if e.busy || e.gen != gen || e.browser == nil {
		p.mu.Unlock()
		return
	}
	r := p.takeOutLocked(e)
	p.mu.Unlock()
	p.opts.Logger.Info("browser closed after idle time", "profile", e.id)
	_ = p.finish(r)
}

// takeOutLocked takes the idle browser out of the free entry e, to close
// and scrub (finish). The caller holds p.mu.
func (p *Pool) takeOutLocked(e *entry) *retirement {
	b := e.browser
	e.browser, e.page = nil, nil
	if e.idle != nil {
		e.idle.Stop()
		e.idle = nil
	}
	p.closedLocked(e.kind)
	if len(e.queue) == 0 && p.entries[e.id] == e {
		delete(p.entries, e.id)
	}
	return p.retireLocked(e.id, b)
}

// handOver closes profile id's browser when it is idle (no call holds it
// or waits for it) and a live process other than this one wants its
// folder (WantedByOther), so that process can take it; a profile in use
// is handed over when its last call ends (handOffLocked).
func (p *Pool) handOver(id string) {
	p.mu.Lock()
	e := p.entries[id]
	if p.closed || e == nil || e.busy || e.browser == nil || p.dirs[id] == "" || !WantedByOther(p.dirs[id]) {
		p.mu.Unlock()
		return
	}
	r := p.takeOutLocked(e)
	p.mu.Unlock()
	p.opts.Logger.Info("browser closed: another rpa process wants the profile", "profile", id)
	go func() { _ = p.finish(r) }() // not on the watch's goroutine: finish ends the watch
}

// Acquire waits for profile id (in arrival order), starts its browser when
// none is running or the last one died (first waiting, when every browser
// is in use, for one to be released), and returns the lease. It returns
// ctx.Err() when ctx ends while waiting (the caller leaves the queue), a
// *BusyError when a queue is full, an *IDError for a bad id, a
// *LaunchError when the browser cannot start, and ErrClosed after Close.
// A function given with WithWaitNotice hears of each wait.
func (p *Pool) Acquire(ctx context.Context, id string) (*Lease, error) {
	return p.acquire(ctx, id, true)
}

// ErrNotRunning is returned by AcquireRunning when the profile has no
// browser open.
var ErrNotRunning = errors.New("no browser is running for this profile")

// AcquireRunning is Acquire for a profile whose browser is already open:
// it never starts one (nor creates anything for the profile) and returns
// ErrNotRunning when the profile has no browser, or its browser died or
// closed while the call waited for its turn.
func (p *Pool) AcquireRunning(ctx context.Context, id string) (*Lease, error) {
	return p.acquire(ctx, id, false)
}

// HeldError is returned by TryAcquire when a call of this process holds
// the profile or waits for it.
type HeldError struct{ Profile string }

// Error is "profile ID is in use by a call of this process".
func (e *HeldError) Error() string {
	return fmt.Sprintf("profile %s is in use by a call of this process", e.Profile)
}

// Is reports target == ErrInUse.
func (e *HeldError) Is(target error) bool { return target == ErrInUse }

// TryAcquire is Acquire for a caller that does not queue for the profile
// (a scheduled run, queued again by its scheduler): it returns a
// *HeldError at once when a call holds the profile or waits for it, and
// otherwise takes it as Acquire does, using its warm browser or starting
// one (waiting, as Acquire, for a place among the browsers).
func (p *Pool) TryAcquire(ctx context.Context, id string) (*Lease, error) {
	return p.acquireAs(ctx, id, true, false)
}

func (p *Pool) acquire(ctx context.Context, id string, launch bool) (*Lease, error) {
	return p.acquireAs(ctx, id, launch, true)
}

// acquireAs takes profile id: waiting for it in arrival order when queue,
// else HeldError while it is held; starting its browser when launch, else
// ErrNotRunning without one.
func (p *Pool) acquireAs(ctx context.Context, id string, launch, queue bool) (*Lease, error) {
	if err := ValidID(id); err != nil {
		return nil, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrClosed
	}
	e := p.entries[id]
	if !launch && (e == nil || (e.browser == nil && !e.busy)) {
		p.mu.Unlock()
		return nil, ErrNotRunning
	}
	if e == nil {
		e = &entry{id: id}
		p.entries[id] = e
	}
	if e.busy && !queue {
		p.mu.Unlock()
		return nil, &HeldError{Profile: id}
	}
	if e.busy && p.opts.MaxQueue > 0 && len(e.queue) >= p.opts.MaxQueue {
		p.mu.Unlock()
		return nil, &BusyError{Profile: id, Limit: "queue", Max: p.opts.MaxQueue}
	}
	e.arrived++
	if e.busy {
		w := &waiter{ch: make(chan struct{})}
		e.queue = append(e.queue, w)
		ahead := len(e.queue)
		p.mu.Unlock()
		notifyWait(ctx, Wait{Profile: id, For: "profile", Ahead: ahead})
		select {
		case <-w.ch:
		case <-ctx.Done():
			p.mu.Lock()
			if !w.granted {
				for i, q := range e.queue {
					if q == w {
						e.queue = append(e.queue[:i], e.queue[i+1:]...)
						break
					}
				}
				p.mu.Unlock()
				return nil, ctx.Err()
			}
			p.mu.Unlock()
			// Handed over while giving up: pass it on.
			(&Lease{p: p, e: e}).Release()
			return nil, ctx.Err()
		}
		p.mu.Lock()
	}
	e.busy = true
	e.gen++
	if e.idle != nil {
		e.idle.Stop()
		e.idle = nil
	}
	closed := p.closed
	p.mu.Unlock()
	l := &Lease{p: p, e: e, ctx: ctx}
	if closed {
		l.Release()
		return nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		l.Release()
		return nil, err
	}
	p.mu.Lock()
	b := e.browser
	probe := e.suspect || time.Since(e.released) > ProbeAfter
	e.suspect = false
	p.mu.Unlock()
	if b != nil && (drivers.Gone(b) || probe && !b.Alive()) {
		p.opts.Logger.Warn("browser died; starting a new one", "profile", id)
		p.closeBrowser(e, b)
		b = nil
	}
	if b == nil && !launch {
		l.Release()
		return nil, ErrNotRunning
	}
	if b == nil {
		var err error
		if b, err = p.launch(ctx, e); err != nil {
			l.Release()
			return nil, err
		}
	}
	l.b = b
	return l, nil
}

// launch starts e's browser; the caller holds e.
func (p *Pool) launch(ctx context.Context, e *entry) (drivers.Browser, error) {
	lo, err := p.opts.Launch(e.id)
	if err != nil {
		return nil, &LaunchError{Profile: e.id, Err: err}
	}
	kind := kindOf(lo)
	// A place among the browsers (contexts) first: the call may wait for
	// one, and holds nothing else meanwhile.
	if err := p.takeSlot(ctx, e, kind); err != nil {
		return nil, err
	}
	// A profile whose last browser is still being scrubbed waits for it.
	p.mu.Lock()
	scrub := p.scrubbing[e.id]
	p.mu.Unlock()
	if scrub != nil {
		select {
		case <-scrub:
		case <-ctx.Done():
			p.startFailed(kind)
			return nil, ctx.Err()
		}
	}
	// The folder is this process's while its browser runs and is scrubbed
	// (released in finish, or when the browser process exits).
	// Another rpa process holding it is asked to hand it over, and waited
	// for (ctx's WithClaimWait).
	hold, err := claimFor(ctx, &lo)
	if err != nil {
		p.startFailed(kind)
		if ctx.Err() != nil {
			if errors.Is(err, ctx.Err()) {
				return nil, err // a *WaitCancelled says what it waited for
			}
			return nil, ctx.Err()
		}
		return nil, &LaunchError{Profile: e.id, Err: err}
	}
	// While this process holds the folder, another that wants it is
	// handed it as soon as its browser is idle (handOver).
	var unwatch func()
	if hold != nil {
		id := e.id
		if unwatch, err = WatchWanted(hold.Dir(), func() { p.handOver(id) }); err != nil {
			p.opts.Logger.Warn("cannot watch the profile for other processes", "profile", e.id, "error", err.Error())
		}
	}
	p.mu.Lock()
	if lo.Remote == "" {
		p.dirs[e.id] = lo.UserDataDir
	} else {
		delete(p.dirs, e.id) // not our folder: nothing to scrub
	}
	p.holds[e.id] = hold
	if unwatch != nil {
		p.watches[e.id] = unwatch
	}
	p.mu.Unlock()
	start := time.Now()
	b, err := p.opts.Driver.Launch(ctx, lo)
	if err != nil {
		hold.Unlock()
		p.mu.Lock()
		delete(p.holds, e.id)
		stop := p.watches[e.id]
		delete(p.watches, e.id)
		p.mu.Unlock()
		if stop != nil {
			stop()
		}
		p.startFailed(kind)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &LaunchError{Profile: e.id, Err: err}
	}
	p.mu.Lock()
	if p.closed {
		p.slots[kind].starting--
		p.signalLocked()
		stop := p.watches[e.id]
		delete(p.watches, e.id)
		p.mu.Unlock()
		if stop != nil {
			stop()
		}
		_ = b.Close()
		return nil, ErrClosed
	}
	p.slots[kind].starting--
	p.slots[kind].running++
	e.browser, e.page, e.kind = b, nil, kind
	p.mu.Unlock()
	p.opts.Logger.Info("browser started", "profile", e.id, "ms", time.Since(start).Milliseconds())
	return b, nil
}

// closeBrowser closes b if it is still e's browser; the caller holds e.
func (p *Pool) closeBrowser(e *entry, b drivers.Browser) {
	p.mu.Lock()
	if e.browser != b {
		p.mu.Unlock()
		return
	}
	e.browser, e.page = nil, nil
	p.closedLocked(e.kind)
	r := p.retireLocked(e.id, b)
	p.mu.Unlock()
	_ = p.finish(r)
}

// retirement is a browser taken out of the pool, to close and then scrub.
type retirement struct {
	id, dir string
	b       drivers.Browser
	hold    *Lock  // the folder's claim, let go once closed and scrubbed
	unwatch func() // ends the folder's watch for processes wanting it
	secrets []string
	done    chan struct{} // nil: nothing to scrub
}

// retireLocked prepares closing b, profile id's browser already taken out
// of its entry; with secrets to scrub, launches of id wait until finish is
// done. The caller holds p.mu.
func (p *Pool) retireLocked(id string, b drivers.Browser) *retirement {
	r := &retirement{id: id, dir: p.dirs[id], b: b, secrets: p.secrets[id], hold: p.holds[id], unwatch: p.watches[id]}
	delete(p.secrets, id)
	delete(p.holds, id)
	delete(p.watches, id)
	if len(r.secrets) > 0 && r.dir != "" {
		r.done = make(chan struct{})
		p.scrubbing[id] = r.done
	}
	return r
}

// finish closes the browser, then scrubs its folder of the secrets its
// calls used (Scrub).
func (p *Pool) finish(r *retirement) error {
	if r.unwatch != nil {
		r.unwatch()
	}
	err := r.b.Close()
	defer r.hold.Unlock()
	if r.done == nil {
		return err
	}
	rep, serr := Scrub(r.dir, r.secrets)
	if serr != nil {
		p.opts.Logger.Warn("profile scrub incomplete", "profile", r.id, "error", serr.Error())
	} else if err := ClearDirty(r.dir); err != nil {
		p.opts.Logger.Warn("cannot clear the profile's scrub mark", "profile", r.id, "error", err.Error())
	}
	if rep != nil && (rep.Rows > 0 || len(rep.Removed) > 0) {
		p.opts.Logger.Info("secrets scrubbed from the profile", "profile", r.id, "rows", rep.Rows, "files_removed", len(rep.Removed))
	}
	p.mu.Lock()
	if p.scrubbing[r.id] == r.done {
		delete(p.scrubbing, r.id)
	}
	p.mu.Unlock()
	close(r.done)
	return err
}

// AddSecrets records secret values a call on this profile used (secret
// params, password answers): when the profile's browser closes (idle,
// replaced, pool closed) they are scrubbed from its folder (Scrub), so an
// address or a form value holding one does not stay in History, the
// cache or session files. Until that scrub succeeds the folder holds the
// marker DirtyFileName (no secret in it): if this process dies
// first, the next claim of the folder removes its history-like files
// (Claim).
func (l *Lease) AddSecrets(values ...string) {
	l.p.mu.Lock()
	defer l.p.mu.Unlock()
	have := l.p.secrets[l.e.id]
	for _, v := range values {
		if v != "" && !slices.Contains(have, v) {
			have = append(have, v)
		}
	}
	if len(have) > 0 {
		l.p.secrets[l.e.id] = have
		// Marked until a clean scrub: a process that dies first leaves it,
		// and the next claim of the folder wipes its history-like files
		// (Claim).
		if err := MarkDirty(l.p.dirs[l.e.id]); err != nil {
			l.p.opts.Logger.Warn("cannot mark the profile for a scrub", "profile", l.e.id, "error", err.Error())
		}
	}
}

// Running is the number of browsers currently open (contexts on attached
// browsers included).
func (p *Pool) Running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.slots[kindBrowser].running + p.slots[kindContext].running
}

// Arrived is how many Acquire calls for profile id have taken their place
// in its queue so far (its arrival order counter; 0 for an unknown id or
// one whose browser was closed after idling).
func (p *Pool) Arrived(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.entries[id]; e != nil {
		return e.arrived
	}
	return 0
}

// Profiles lists the ids that have a browser open, in no particular order.
func (p *Pool) Profiles() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []string
	for id, e := range p.entries {
		if e.browser != nil {
			ids = append(ids, id)
		}
	}
	return ids
}

// Close closes every browser, including those of profiles in use (their
// holders see browser errors and their Release is a no-op for the
// browser), and makes later Acquire calls fail with ErrClosed. Waiters are
// handed the profile one by one and get ErrClosed.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.signalLocked() // calls waiting for a slot give up
	var rs []*retirement
	for _, e := range p.entries {
		if e.idle != nil {
			e.idle.Stop()
			e.idle = nil
		}
		if e.browser != nil {
			rs = append(rs, p.retireLocked(e.id, e.browser))
			e.browser, e.page = nil, nil
			p.slots[e.kind].running--
		}
	}
	p.mu.Unlock()
	errs := make([]error, len(rs))
	var wg sync.WaitGroup
	for i, r := range rs {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = p.finish(r) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}
