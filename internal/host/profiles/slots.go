package profiles

import (
	"context"
	"fmt"
	"runtime"

	"github.com/rpa-dev/rpa/drivers"
)

// DefaultMaxContexts is how many profiles may be open at once on attached
// browsers (LaunchOptions.Remote) unless Options.MaxContexts says
// otherwise: twice the machine's cores, at least 4. A profile on an
// attached browser is a browser context there, not a process of its own:
// it costs a renderer per site, not a browser start, so the bound is
// looser than DefaultMaxBrowsers (the par4 group of bench/ runs four at
// once on two cores).
func DefaultMaxContexts() int { return max(4, 2*runtime.NumCPU()) }

// slotKind is what a profile's browser costs: a browser process this pool
// launched, or a context on an attached browser. Each kind has its own
// bound (MaxBrowsers, MaxContexts) and its own queue.
type slotKind int

const (
	kindBrowser slotKind = iota
	kindContext
)

func kindOf(lo drivers.LaunchOptions) slotKind {
	if lo.Remote != "" {
		return kindContext
	}
	return kindBrowser
}

// name is the kind's word in Wait.For; limit its word in BusyError.Limit.
func (k slotKind) name() string {
	if k == kindContext {
		return "context"
	}
	return "browser"
}

func (k slotKind) limit() string { return k.name() + "s" }

// slotQueue is one kind's count of open and starting browsers, and the
// calls waiting for one, in arrival order.
type slotQueue struct {
	running, starting int
	waiting           []*entry
}

// max is the bound of kind k (negative: none).
func (p *Pool) max(k slotKind) int {
	if k == kindContext {
		return p.opts.MaxContexts
	}
	return p.opts.MaxBrowsers
}

// Wait says what an Acquire call waits for (WithWaitNotice).
type Wait struct {
	Profile string
	// For is "profile" (another call holds the profile), "browser" (all
	// Max browsers are open and in use, --max-browsers) or "context" (all
	// Max contexts on attached browsers are, --max-contexts).
	For string
	// Ahead is how many calls wait before this one.
	Ahead int
	// Max is the limit waited on (0 for "profile").
	Max int
}

// String is the wait as a progress message: `queued: profile "p1" is in
// use (1 call ahead)`, `queued for a browser: all 3 are in use
// (--max-browsers; 0 calls ahead)`.
func (w Wait) String() string {
	calls := func(n int) string {
		if n == 1 {
			return "1 call ahead"
		}
		return fmt.Sprintf("%d calls ahead", n)
	}
	if w.For == "profile" {
		return fmt.Sprintf("queued: profile %q is in use (%s)", w.Profile, calls(w.Ahead))
	}
	return fmt.Sprintf("queued for a %s: all %d are in use (--max-%ss; %s)", w.For, w.Max, w.For, calls(w.Ahead))
}

type waitKey struct{}

// WithWaitNotice returns ctx carrying fn: an Acquire with that context
// calls fn, on its own goroutine, each time it starts to wait (for its
// profile, for a browser or a context); fn must not block.
func WithWaitNotice(ctx context.Context, fn func(Wait)) context.Context {
	return context.WithValue(ctx, waitKey{}, fn)
}

func notifyWait(ctx context.Context, w Wait) {
	if fn, _ := ctx.Value(waitKey{}).(func(Wait)); fn != nil {
		fn(w)
	}
}

// signalLocked wakes the calls waiting for a slot (one may have come free:
// a browser closed or went idle, a start failed, the pool closed). The
// caller holds p.mu.
func (p *Pool) signalLocked() {
	close(p.freed)
	p.freed = make(chan struct{})
}

// closedLocked counts one browser of kind k closed. The caller holds p.mu.
func (p *Pool) closedLocked(k slotKind) {
	p.slots[k].running--
	p.signalLocked()
}

// startFailed gives back the place takeSlot reserved.
func (p *Pool) startFailed(k slotKind) {
	p.mu.Lock()
	p.slots[k].starting--
	p.signalLocked()
	p.mu.Unlock()
}

// takeSlot reserves a place for e's browser (of kind k) under its bound.
// When all places are taken it closes the longest-idle browser of that
// kind (another profile's), and when every one is in use it waits in
// arrival order until one is released or closed: as long as ctx lets it
// (then ctx.Err()), and behind at most MaxQueue others (else a
// *BusyError at once). The caller holds e.
func (p *Pool) takeSlot(ctx context.Context, e *entry, k slotKind) error {
	q := &p.slots[k]
	max := p.max(k)
	queued := false
	leave := func() {
		if !queued {
			return
		}
		for i, w := range q.waiting {
			if w == e {
				q.waiting = append(q.waiting[:i], q.waiting[i+1:]...)
				break
			}
		}
		queued = false
		p.signalLocked() // the next in line may go
	}
	p.mu.Lock()
	for {
		if p.closed {
			leave()
			p.mu.Unlock()
			return ErrClosed
		}
		first := len(q.waiting) == 0 || queued && q.waiting[0] == e
		if first && (max < 0 || q.running+q.starting < max) {
			leave()
			q.starting++
			p.mu.Unlock()
			return nil
		}
		if first {
			if victim := p.idlestLocked(e, k); victim != nil {
				leave()
				b := victim.browser
				victim.browser, victim.page = nil, nil
				victim.gen++ // its idle timer is void
				if victim.idle != nil {
					victim.idle.Stop()
					victim.idle = nil
				}
				q.running--
				if len(victim.queue) == 0 && p.entries[victim.id] == victim {
					delete(p.entries, victim.id)
				}
				q.starting++
				r := p.retireLocked(victim.id, b)
				p.mu.Unlock()
				p.opts.Logger.Info("browser closed to make room (--max-"+k.limit()+")", "profile", victim.id, "for", e.id)
				_ = p.finish(r)
				return nil
			}
		}
		if !queued {
			if p.opts.MaxQueue > 0 && len(q.waiting) >= p.opts.MaxQueue {
				p.mu.Unlock()
				return &BusyError{Profile: e.id, Limit: k.limit(), Max: max, Queued: len(q.waiting)}
			}
			q.waiting = append(q.waiting, e)
			queued = true
			w := Wait{Profile: e.id, For: k.name(), Ahead: len(q.waiting) - 1, Max: max}
			p.mu.Unlock()
			p.opts.Logger.Info("call queued for a "+k.name()+" (--max-"+k.limit()+")", "profile", e.id, "ahead", w.Ahead)
			notifyWait(ctx, w)
			p.mu.Lock()
			continue // something may have come free meanwhile
		}
		freed := p.freed
		p.mu.Unlock()
		select {
		case <-freed:
		case <-ctx.Done():
			p.mu.Lock()
			leave()
			p.mu.Unlock()
			return ctx.Err()
		}
		p.mu.Lock()
	}
}

// idlestLocked is the open, unheld browser of kind k that was released
// longest ago, other than e's; nil when every one is in use. The caller
// holds p.mu.
func (p *Pool) idlestLocked(e *entry, k slotKind) *entry {
	var victim *entry
	for _, o := range p.entries {
		if o == e || o.busy || o.browser == nil || o.kind != k {
			continue
		}
		if victim == nil || o.released.Before(victim.released) {
			victim = o
		}
	}
	return victim
}
