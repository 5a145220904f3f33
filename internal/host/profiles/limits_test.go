package profiles

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// goneDriver launches browsers that report their death cheaply
// (drivers.GoneReporter) but still answer Alive: a probe would not catch
// them, only the cheap signal does.
type goneDriver struct{ fakeDriver }

type goneBrowser struct {
	*fakeBrowser
	gone atomic.Bool
}

func (b *goneBrowser) Gone() bool  { return b.gone.Load() }
func (b *goneBrowser) Alive() bool { return true }

func (d *goneDriver) Launch(ctx context.Context, o drivers.LaunchOptions) (drivers.Browser, error) {
	b, err := d.fakeDriver.Launch(ctx, o)
	if err != nil {
		return nil, err
	}
	return &goneBrowser{fakeBrowser: b.(*fakeBrowser)}, nil
}

func poolWith(t *testing.T, d drivers.Driver, o Options) *Pool {
	t.Helper()
	o.Driver = d
	o.Idle = -1
	base := t.TempDir()
	o.Launch = func(id string) (drivers.LaunchOptions, error) {
		return drivers.LaunchOptions{UserDataDir: filepath.Join(base, id)}, nil
	}
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// A browser whose process died between two back-to-back calls is replaced
// on the next Acquire, without waiting for ProbeAfter.
func TestGoneBrowserReplacedAtOnce(t *testing.T) {
	d := &goneDriver{}
	p := poolWith(t, d, Options{})
	ctx := context.Background()
	l, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	first := l.Browser().(*goneBrowser)
	l.Release()
	first.gone.Store(true)
	for i := range 10 {
		l, err := p.Acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		if l.Browser() == drivers.Browser(first) {
			t.Fatalf("call %d got the dead browser", i+1)
		}
		l.Release()
	}
	if d.count() != 2 {
		t.Fatalf("launched %d browsers, want 2 (one replacement)", d.count())
	}
	if first.closed.Load() == 0 {
		t.Fatal("the dead browser was not closed")
	}
}

// acquireAsync starts Acquire(ctx, id) on a goroutine; the lease or the
// error arrives on the channel. Its wait notices go to notices.
func acquireAsync(ctx context.Context, p *Pool, id string, notices chan<- Wait) <-chan acquired {
	ch := make(chan acquired, 1)
	if notices != nil {
		ctx = WithWaitNotice(ctx, func(w Wait) { notices <- w })
	}
	go func() {
		l, err := p.Acquire(ctx, id)
		ch <- acquired{l, err}
	}()
	return ch
}

type acquired struct {
	l   *Lease
	err error
}

func TestMaxBrowsers(t *testing.T) {
	d := &fakeDriver{}
	p := poolWith(t, d, Options{MaxBrowsers: 2})
	ctx := context.Background()
	a, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Acquire(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	// Both in use: a third profile waits for one, and says so.
	notices := make(chan Wait, 4)
	cc := acquireAsync(ctx, p, "c", notices)
	if w := <-notices; w != (Wait{Profile: "c", For: "browser", Ahead: 0, Max: 2}) ||
		w.String() != "queued for a browser: all 2 are in use (--max-browsers; 0 calls ahead)" {
		t.Fatalf("notice = %+v %q", w, w)
	}
	if d.count() != 2 || p.Running() != 2 {
		t.Fatalf("launched %d, running %d; want 2 and 2", d.count(), p.Running())
	}
	// b goes idle: c takes its place (b's browser is closed first).
	bb := b.Browser().(*fakeBrowser)
	b.Release()
	got := <-cc
	if got.err != nil {
		t.Fatal(got.err)
	}
	c := got.l
	if bb.closed.Load() == 0 {
		t.Fatal("the idle browser was not closed to make room")
	}
	if p.Running() != 2 {
		t.Fatalf("running %d, want 2", p.Running())
	}
	c.Release()
	a.Release()
	// b comes back: the longest-idle browser (c's) is closed; still 2 open.
	b2, err := p.Acquire(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	b2.Release()
	if p.Running() != 2 || d.count() != 4 {
		t.Fatalf("running %d launched %d; want 2 and 4", p.Running(), d.count())
	}
}

// Calls waiting for a browser are served in arrival order, at most
// MaxQueue of them wait (the next is refused at once, kind busy), and one
// whose context ends leaves the queue.
func TestBrowserQueue(t *testing.T) {
	d := &fakeDriver{}
	p := poolWith(t, d, Options{MaxBrowsers: 1, MaxQueue: 2})
	ctx := context.Background()
	a, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	notices := make(chan Wait, 4)
	cctx, cancel := context.WithCancel(ctx)
	bc := acquireAsync(cctx, p, "b", notices)
	if w := <-notices; w.Profile != "b" || w.Ahead != 0 {
		t.Fatalf("b: %+v", w)
	}
	cc := acquireAsync(ctx, p, "c", notices)
	if w := <-notices; w.Profile != "c" || w.Ahead != 1 {
		t.Fatalf("c: %+v", w)
	}
	_, err = p.Acquire(ctx, "d")
	var be *BusyError
	if !errors.As(err, &be) || be.Limit != "browsers" || be.Max != 1 || be.Queued != 2 || core.KindOf(err) != core.KindBusy ||
		err.Error() != `no browser free for profile "d": 1 browsers are open and in use and 2 calls already wait for one (--max-browsers, --max-queue)` {
		t.Fatalf("d: err = %v, want a browsers BusyError of kind busy", err)
	}
	// b gives up: it leaves the queue, c is next.
	cancel()
	if got := <-bc; !errors.Is(got.err, context.Canceled) {
		t.Fatalf("b: %v", got.err)
	}
	a.Release()
	got := <-cc
	if got.err != nil {
		t.Fatal(got.err)
	}
	got.l.Release()
	// The queue is empty again: d waits (no refusal) and gets c's place.
	if got := <-acquireAsync(ctx, p, "d", nil); got.err != nil {
		t.Fatal(got.err)
	} else {
		got.l.Release()
	}
	if d.count() != 3 || p.Running() != 1 {
		t.Fatalf("launched %d, running %d; want 3 and 1", d.count(), p.Running())
	}
}

// Profiles on an attached browser count against MaxContexts, not
// MaxBrowsers: one launched browser and two contexts are open at once,
// and a third context waits for one of those two.
func TestMaxContexts(t *testing.T) {
	d := &fakeDriver{}
	p := poolWith(t, d, Options{MaxBrowsers: 1, MaxContexts: 2})
	p.opts.Launch = func(id string) (drivers.LaunchOptions, error) {
		if id == "local" {
			return drivers.LaunchOptions{UserDataDir: filepath.Join(t.TempDir(), id)}, nil
		}
		return drivers.LaunchOptions{Remote: "ws://127.0.0.1:1/devtools/browser/x"}, nil
	}
	ctx := context.Background()
	var held []*Lease
	for _, id := range []string{"local", "r1", "r2"} {
		l, err := p.Acquire(ctx, id)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		held = append(held, l)
	}
	notices := make(chan Wait, 1)
	r3 := acquireAsync(ctx, p, "r3", notices)
	if w := <-notices; w != (Wait{Profile: "r3", For: "context", Max: 2}) ||
		w.String() != "queued for a context: all 2 are in use (--max-contexts; 0 calls ahead)" {
		t.Fatalf("notice %+v %q", w, w)
	}
	local := held[0].Browser().(*fakeBrowser)
	r1 := held[1].Browser().(*fakeBrowser)
	held[0].Release() // an idle local browser makes no room for a context
	held[1].Release()
	got := <-r3
	if got.err != nil {
		t.Fatal(got.err)
	}
	if local.closed.Load() != 0 || r1.closed.Load() == 0 {
		t.Fatalf("closed: local %d, r1 %d; want r1's context closed for r3, the local browser kept", local.closed.Load(), r1.closed.Load())
	}
	got.l.Release()
	held[2].Release()
	if p.Running() != 3 {
		t.Fatalf("running %d, want 3", p.Running())
	}
	if DefaultMaxContexts() < 4 {
		t.Fatalf("DefaultMaxContexts() = %d", DefaultMaxContexts())
	}
}

func TestMaxQueue(t *testing.T) {
	d := &fakeDriver{}
	p := poolWith(t, d, Options{MaxQueue: 2})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	held, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 2)
	for i := range 2 {
		go func() {
			l, err := p.Acquire(ctx, "a")
			if err == nil {
				l.Release()
			}
			errs <- err
		}()
		waitFor(t, func() bool { return p.queueLen("a") == i+1 })
	}
	_, err = p.Acquire(ctx, "a")
	var be *BusyError
	if !errors.As(err, &be) || be.Limit != "queue" || be.Max != 2 {
		t.Fatalf("third waiter: err = %v, want a queue BusyError", err)
	}
	// Other profiles are not affected.
	o, err := p.Acquire(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	o.Release()
	held.Release()
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// stopPage is a tab that records StopLoading and Close.
type stopPage struct {
	drivers.Page
	stops, closes atomic.Int32
	fail          bool
}

func (p *stopPage) StopLoading(context.Context) error {
	p.stops.Add(1)
	if p.fail {
		return errors.New("cannot")
	}
	return nil
}
func (p *stopPage) Close() error { p.closes.Add(1); return nil }

func TestInterruptedCallStopsLoading(t *testing.T) {
	d := &fakeDriver{}
	p := poolWith(t, d, Options{})
	ctx := context.Background()

	// A call that ends normally leaves the tab alone.
	l, _ := p.Acquire(ctx, "a")
	pg := &stopPage{}
	l.SetPage(pg)
	l.Release()
	if pg.stops.Load() != 0 {
		t.Fatal("a normal release stopped loading")
	}
	// Interrupted: stopped, kept.
	l, _ = p.Acquire(ctx, "a")
	l.Interrupted()
	l.Release()
	if pg.stops.Load() != 1 || pg.closes.Load() != 0 {
		t.Fatalf("stops %d closes %d, want 1 and 0", pg.stops.Load(), pg.closes.Load())
	}
	// The Acquire context ended (a cancelled call): stopped without asking.
	cctx, cancel := context.WithCancel(ctx)
	l, _ = p.Acquire(cctx, "a")
	cancel()
	l.Release()
	if pg.stops.Load() != 2 {
		t.Fatalf("stops %d after a cancelled call, want 2", pg.stops.Load())
	}
	// A tab that cannot stop is closed and forgotten.
	pg.fail = true
	l, _ = p.Acquire(ctx, "a")
	l.Interrupted()
	l.Release()
	l, _ = p.Acquire(ctx, "a")
	defer l.Release()
	if pg.closes.Load() != 1 || l.Page() != nil {
		t.Fatalf("closes %d page %v; want the tab closed and forgotten", pg.closes.Load(), l.Page())
	}
}
