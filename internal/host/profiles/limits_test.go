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
	// Both in use: a third profile is refused with kind busy.
	_, err = p.Acquire(ctx, "c")
	var be *BusyError
	if !errors.As(err, &be) || be.Limit != "browsers" || core.KindOf(err) != core.KindBusy {
		t.Fatalf("third profile: err = %v (%T), want a BusyError of kind busy", err, err)
	}
	if d.count() != 2 || p.Running() != 2 {
		t.Fatalf("launched %d, running %d; want 2 and 2", d.count(), p.Running())
	}
	// b goes idle: c takes its place (b's browser is closed first).
	bb := b.Browser().(*fakeBrowser)
	b.Release()
	c, err := p.Acquire(ctx, "c")
	if err != nil {
		t.Fatal(err)
	}
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
