package profiles

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
)

// fakeDriver launches fakeBrowsers; the pool only needs Launch, Alive and
// Close, so pages are not modelled.
type fakeDriver struct {
	mu       sync.Mutex
	launched []*fakeBrowser
	fail     error
	delay    time.Duration
}

func (d *fakeDriver) Launch(ctx context.Context, o drivers.LaunchOptions) (drivers.Browser, error) {
	if d.delay > 0 {
		select {
		case <-time.After(d.delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.fail != nil {
		return nil, d.fail
	}
	b := &fakeBrowser{dir: o.UserDataDir}
	b.alive.Store(true)
	d.launched = append(d.launched, b)
	return b, nil
}

func (d *fakeDriver) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.launched)
}

type fakeBrowser struct {
	dir    string
	alive  atomic.Bool
	closed atomic.Int32
}

func (b *fakeBrowser) NewPage(context.Context, string) (drivers.Page, error) { return nil, nil }
func (b *fakeBrowser) Pages(context.Context) ([]drivers.Page, error)         { return nil, nil }
func (b *fakeBrowser) Alive() bool                                           { return b.alive.Load() && b.closed.Load() == 0 }
func (b *fakeBrowser) Close() error                                          { b.closed.Add(1); return nil }

func newPool(t *testing.T, d *fakeDriver, idle time.Duration) *Pool {
	t.Helper()
	base := t.TempDir()
	p, err := New(Options{Driver: d, Idle: idle, MaxQueue: 32, Launch: func(id string) (drivers.LaunchOptions, error) {
		return drivers.LaunchOptions{UserDataDir: filepath.Join(base, id)}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

func (p *Pool) queueLen(id string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.entries[id]; e != nil {
		return len(e.queue)
	}
	return 0
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

func TestFIFOOrderPerProfile(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, -1)
	ctx := context.Background()
	first, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l, err := p.Acquire(ctx, "a")
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			l.Release()
		}()
		// Enqueue strictly one after the other so arrival order is known.
		waitFor(t, func() bool { return p.queueLen("a") == i+1 })
	}
	first.Release()
	wg.Wait()
	for i, v := range order {
		if v != i {
			t.Fatalf("order = %v, want arrival order", order)
		}
	}
	if d.count() != 1 {
		t.Fatalf("launched %d browsers, want 1 warm browser reused", d.count())
	}
}

func TestProfilesRunInParallel(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, -1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	a, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Release()
	b, err := p.Acquire(ctx, "b") // must not wait for a
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	if a.Browser() == b.Browser() {
		t.Fatal("two profiles share one browser")
	}
	if p.Running() != 2 {
		t.Fatalf("Running = %d, want 2", p.Running())
	}
}

func TestCrashedBrowserReplaced(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, -1)
	ctx := context.Background()
	l, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b1 := l.Browser().(*fakeBrowser)
	l.MarkBroken()
	l.Release()
	b1.alive.Store(false) // crashes while idle
	l, err = p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if l.Browser() == b1 {
		t.Fatal("dead browser handed out again")
	}
	if b1.closed.Load() == 0 {
		t.Fatal("dead browser not closed")
	}
	// Crash during a call: the next call closes it and gets a new one.
	b2 := l.Browser().(*fakeBrowser)
	b2.alive.Store(false)
	l.MarkBroken()
	l.Release()
	l, err = p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()
	if b2.closed.Load() == 0 || l.Browser() == b2 || p.Running() != 1 {
		t.Fatalf("crashed browser kept: closed=%d running=%d", b2.closed.Load(), p.Running())
	}
	if d.count() != 3 {
		t.Fatalf("launched %d, want 3", d.count())
	}
}

// TestProbeAfterRest: a browser that died while resting longer than
// ProbeAfter is replaced without anyone marking it.
func TestProbeAfterRest(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, -1)
	l, err := p.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	b := l.Browser().(*fakeBrowser)
	l.Release()
	b.alive.Store(false)
	// Back to back: no probe, the dead browser is handed out (its call
	// fails and marks it).
	l, _ = p.Acquire(context.Background(), "a")
	if l.Browser() != b {
		t.Fatal("probed a browser released just now")
	}
	l.Release()
	p.mu.Lock()
	p.entries["a"].released = time.Now().Add(-2 * ProbeAfter)
	p.mu.Unlock()
	l, _ = p.Acquire(context.Background(), "a")
	defer l.Release()
	if l.Browser() == b {
		t.Fatal("a dead browser was not replaced after resting")
	}
}

func TestLaunchErrorAndRecovery(t *testing.T) {
	d := &fakeDriver{fail: errors.New("no chromium")}
	p := newPool(t, d, -1)
	_, err := p.Acquire(context.Background(), "a")
	var le *LaunchError
	if !errors.As(err, &le) || le.Profile != "a" {
		t.Fatalf("err = %v, want *LaunchError for a", err)
	}
	d.mu.Lock()
	d.fail = nil
	d.mu.Unlock()
	l, err := p.Acquire(context.Background(), "a") // the profile is free again
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
}

func TestIdleCloses(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, 30*time.Millisecond)
	l, err := p.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	b := l.Browser().(*fakeBrowser)
	l.Release()
	waitFor(t, func() bool { return b.closed.Load() == 1 && p.Running() == 0 })
	l, err = p.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	l.Release()
	if d.count() != 2 {
		t.Fatalf("launched %d, want 2", d.count())
	}
}

// TestIdleTimerStoppedByUse: a browser in steady use is never closed as
// idle: Acquire stops the timer its last Release armed, and that timer,
// should it fire anyway (it raced the Acquire), finds a newer generation and
// does nothing; only the timer of the last Release closes it. The timers
// are fired by hand (expire), so no timing decides the outcome.
func TestIdleTimerStoppedByUse(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, time.Hour)
	ctx := context.Background()
	var stale []int // the generation each Release armed a timer for
	for range 5 {
		l, err := p.Acquire(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		armed := p.entries["a"].idle != nil
		p.mu.Unlock()
		if armed {
			t.Fatal("an acquired browser still has an idle timer")
		}
		l.Release()
		p.mu.Lock()
		e := p.entries["a"]
		if e.idle == nil {
			p.mu.Unlock()
			t.Fatal("Release armed no idle timer")
		}
		stale = append(stale, e.gen)
		p.mu.Unlock()
	}
	l, err := p.Acquire(ctx, "a") // in use again
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	e := p.entries["a"]
	p.mu.Unlock()
	for _, gen := range stale {
		p.expire(e, gen) // a timer that fired late
	}
	if d.count() != 1 || d.launched[0].closed.Load() != 0 {
		t.Fatalf("launched %d browsers, the first closed %d times, while in steady use", d.count(), d.launched[0].closed.Load())
	}
	l.Release()
	p.mu.Lock()
	last := e.gen
	p.mu.Unlock()
	p.expire(e, last) // the timer of the last Release: idle now, it closes
	if d.launched[0].closed.Load() != 1 {
		t.Fatalf("the idle browser was closed %d times, want 1", d.launched[0].closed.Load())
	}
}

func TestCancelWhileWaitingLeavesQueue(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, -1)
	l, err := p.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := p.Acquire(ctx, "a")
		done <- err
	}()
	waitFor(t, func() bool { return p.queueLen("a") == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if p.queueLen("a") != 0 {
		t.Fatal("cancelled waiter still queued")
	}
	l.Release()
	l2, err := p.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	l2.Release()
}

func TestCloseClosesEverything(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, -1)
	a, _ := p.Acquire(context.Background(), "a")
	b, _ := p.Acquire(context.Background(), "b")
	b.Release()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, fb := range d.launched {
		if fb.closed.Load() != 1 {
			t.Fatalf("browser %s closed %d times, want 1", fb.dir, fb.closed.Load())
		}
	}
	a.Release()
	if _, err := p.Acquire(context.Background(), "a"); !errors.Is(err, ErrClosed) {
		t.Fatalf("Acquire after Close: %v", err)
	}
	if p.Running() != 0 {
		t.Fatalf("Running = %d", p.Running())
	}
}

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		id string
		ok bool
	}{
		{"default", true}, {"work-1", true}, {"a.b_c", true},
		{"", false}, {".", false}, {"..", false}, {".hidden", false}, {"a/b", false}, {"../x", false}, {"a b", false}, {`a\b`, false}, {"a\x00b", false},
		{string(make([]byte, 65)), false},
	} {
		if err := ValidID(tc.id); (err == nil) != tc.ok {
			t.Errorf("ValidID(%q) = %v, want ok=%v", tc.id, err, tc.ok)
		}
	}
	p := newPool(t, &fakeDriver{}, -1)
	var ie *IDError
	if _, err := p.Acquire(context.Background(), "../etc"); !errors.As(err, &ie) {
		t.Fatalf("err = %v", err)
	}
}

func TestLaunchCancelled(t *testing.T) {
	d := &fakeDriver{delay: time.Second}
	p := newPool(t, d, -1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := p.Acquire(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

// TestAcquireRunning never starts a browser: an unknown profile, one whose
// browser died, or one closed while the caller waited gives ErrNotRunning;
// a running one is handed out in turn.
func TestAcquireRunning(t *testing.T) {
	d := &fakeDriver{}
	launches := 0
	p, err := New(Options{Driver: d, Idle: -1, Launch: func(id string) (drivers.LaunchOptions, error) {
		launches++
		return drivers.LaunchOptions{}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx := context.Background()
	if _, err := p.AcquireRunning(ctx, "nobody"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("unknown profile: %v, want ErrNotRunning", err)
	}
	if launches != 0 || d.count() != 0 || p.Arrived("nobody") != 0 {
		t.Fatalf("unknown profile: launches=%d started=%d arrived=%d", launches, d.count(), p.Arrived("nobody"))
	}
	if _, err := p.AcquireRunning(ctx, "../x"); err == nil || errors.Is(err, ErrNotRunning) {
		t.Fatalf("bad id: %v", err)
	}
	l, err := p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	b := l.Browser()
	// A reader waiting behind the running call gets the same browser.
	got := make(chan error, 1)
	go func() {
		l2, err := p.AcquireRunning(ctx, "a")
		if err == nil {
			if l2.Browser() != b {
				err = errors.New("another browser")
			}
			l2.Release()
		}
		got <- err
	}()
	waitFor(t, func() bool { return p.queueLen("a") == 1 })
	l.Release()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	// Died (marked by its last holder): closed, not replaced.
	l, err = p.Acquire(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	l.MarkBroken()
	l.Browser().(*fakeBrowser).alive.Store(false)
	l.Release()
	if _, err := p.AcquireRunning(ctx, "a"); !errors.Is(err, ErrNotRunning) {
		t.Fatalf("dead browser: %v, want ErrNotRunning", err)
	}
	if d.count() != 1 || p.Running() != 0 {
		t.Fatalf("started %d (want 1), running %d (want 0)", d.count(), p.Running())
	}
}

// TestTryAcquire: a caller that does not queue gets the profile's warm
// browser when no call holds it (no second launch) and a *HeldError (an
// ErrInUse) at once while one does or waits for it.
func TestTryAcquire(t *testing.T) {
	d := &fakeDriver{}
	p := newPool(t, d, time.Minute)
	ctx := t.Context()
	l, err := p.Acquire(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	first := l.Browser()
	var held *HeldError
	if _, err := p.TryAcquire(ctx, "acct"); !errors.As(err, &held) || !errors.Is(err, ErrInUse) || held.Profile != "acct" {
		t.Fatalf("TryAcquire of a held profile: %v", err)
	}
	waiter := make(chan *Lease)
	go func() {
		w, _ := p.Acquire(ctx, "acct")
		waiter <- w
	}()
	for p.queueLen("acct") == 0 { // hang guard: the test's deadline
		time.Sleep(time.Millisecond)
	}
	l.Release()
	w := <-waiter
	if _, err := p.TryAcquire(ctx, "acct"); !errors.As(err, &held) {
		t.Fatalf("TryAcquire while the queued call holds it: %v", err)
	}
	w.Release()
	l2, err := p.TryAcquire(ctx, "acct")
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Release()
	if l2.Browser() != first || d.count() != 1 {
		t.Errorf("TryAcquire did not use the warm browser: %d launches", d.count())
	}
}
