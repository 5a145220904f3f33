package lease

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/testutil/holder"
)

// hang bounds a wait that only fails on a hang.
const hang = 20 * time.Second

// TestMain lets a test start this binary as another process that holds
// a lease (startHolder).
func TestMain(m *testing.M) {
	holder.Serve(map[string]holder.Hold{"lease": holdLease})
	os.Exit(m.Run())
}

// holdLease is the other process of the cross-process tests: it takes
// the lease on "portal/admin" in dir for run "run-other" until the test
// lets go (or kills it with -9 first).
func holdLease(dir string) (func(), error) {
	l := &Local{Dir: dir}
	ls, err := l.Acquire(context.Background(), Request{Account: "portal/admin", Holder: Holder{RunID: "run-other"}})
	if err != nil {
		return nil, err
	}
	return func() { _ = ls.Release() }, nil
}

func acquire(t *testing.T, l Leaser, account, run string, wait time.Duration) Lease {
	t.Helper()
	ls, err := l.Acquire(context.Background(), Request{Account: account, Holder: Holder{RunID: run}, Wait: wait})
	if err != nil {
		t.Fatalf("Acquire(%s, %s): %v", account, run, err)
	}
	return ls
}

func TestAcquireReleaseNotesHolder(t *testing.T) {
	home := t.TempDir()
	l := NewLocal(home)
	if _, ok := l.Last("portal/admin"); ok {
		t.Fatal("Last of a never-leased account: ok")
	}
	ls := acquire(t, l, "portal/admin", "run-1", 0)
	if ls.Account() != "portal/admin" {
		t.Errorf("Account() = %q", ls.Account())
	}
	h, ok := l.Last("portal/admin")
	if !ok || h.RunID != "run-1" || h.PID != os.Getpid() || h.Since.IsZero() {
		t.Errorf("Last = %+v, %v", h, ok)
	}
	if _, err := os.Stat(l.path("portal/admin", ".lock")); err != nil {
		t.Errorf("lock file: %v", err)
	}
	if !strings.HasSuffix(l.path("portal/admin", ".lock"), "a-portal%2Fadmin.lock") {
		t.Errorf("lock file name %s", l.path("portal/admin", ".lock"))
	}
	if err := ls.Release(); err != nil {
		t.Fatal(err)
	}
	if err := ls.Release(); err != nil {
		t.Errorf("second Release: %v", err)
	}
	// Free again; the holder file keeps the last holder (last used).
	acquire(t, l, "portal/admin", "run-2", 0).Release()
	if h, _ := l.Last("portal/admin"); h.RunID != "run-2" {
		t.Errorf("Last after run-2 = %+v", h)
	}
}

func TestBusyAtOnceNamesHolder(t *testing.T) {
	l := NewLocal(t.TempDir())
	ls := acquire(t, l, "portal/admin", "run-1", 0)
	defer ls.Release()
	_, err := l.Acquire(context.Background(), Request{Account: "portal/admin", Holder: Holder{RunID: "run-2"}})
	var be *BusyError
	if !errors.As(err, &be) || !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want a *BusyError", err)
	}
	if be.Holder.RunID != "run-1" || be.Waited != 0 {
		t.Errorf("BusyError = %+v", be)
	}
	want := fmt.Sprintf("account portal/admin is in use by run run-1 (pid %d)", os.Getpid())
	if err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
}

func TestWaitRunsOutWithBusy(t *testing.T) {
	l := NewLocal(t.TempDir())
	ls := acquire(t, l, "a", "run-1", 0)
	defer ls.Release()
	_, err := l.Acquire(context.Background(), Request{Account: "a", Holder: Holder{RunID: "run-2"}, Wait: 30 * time.Millisecond})
	var be *BusyError
	if !errors.As(err, &be) || be.Waited <= 0 || be.Holder.RunID != "run-1" {
		t.Fatalf("err = %#v", err)
	}
	if !strings.Contains(err.Error(), "; waited ") {
		t.Errorf("message %q does not say it waited", err)
	}
	// The timed-out waiter left the queue: a release frees the account.
	ls.Release()
	acquire(t, l, "a", "run-3", 0).Release()
}

// TestSecondWaitsForFirst: two runs of one account in one process, the
// second starts after the first ends, and waiters are served in arrival
// order; another account is not held up meanwhile.
func TestSecondWaitsForFirst(t *testing.T) {
	l := NewLocal(t.TempDir())
	first := acquire(t, l, "acct", "run-0", 0)
	var mu sync.Mutex
	var order []string
	var held bool
	got := make(chan string, 3)
	for i := 1; i <= 3; i++ {
		run := fmt.Sprintf("run-%d", i)
		// Enqueue one at a time so arrival order is known.
		queued := l.queueLen("acct") + 1
		go func() {
			ls, err := l.Acquire(context.Background(), Request{Account: "acct", Holder: Holder{RunID: run}, Wait: hang})
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			mu.Lock()
			if held {
				order = append(order, "overlap")
			}
			held = true
			order = append(order, run)
			mu.Unlock()
			runtime.Gosched() // another holder would show up here
			mu.Lock()
			held = false
			mu.Unlock()
			ls.Release()
			got <- run
		}()
		waitFor(t, func() bool { return l.queueLen("acct") == queued })
	}
	// Another account runs at once.
	acquire(t, l, "other", "run-x", 0).Release()
	if h, _ := l.Last("acct"); h.RunID != "run-0" {
		t.Fatalf("holder while waiting = %+v", h)
	}
	first.Release()
	for i := 0; i < 3; i++ {
		if s := <-got; strings.HasPrefix(s, "error") {
			t.Fatal(s)
		}
	}
	if strings.Join(order, ",") != "run-1,run-2,run-3" {
		t.Errorf("order %v, want run-1,run-2,run-3", order)
	}
}

func TestQueueIsBounded(t *testing.T) {
	l := &Local{Dir: t.TempDir(), MaxQueue: 1}
	ls := acquire(t, l, "a", "run-1", 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := l.Acquire(ctx, Request{Account: "a", Wait: hang})
		done <- err
	}()
	waitFor(t, func() bool { return l.queueLen("a") == 1 })
	_, err := l.Acquire(context.Background(), Request{Account: "a", Wait: hang})
	var be *BusyError
	if !errors.As(err, &be) || !be.QueueFull || !strings.Contains(err.Error(), "too many runs are waiting") {
		t.Fatalf("third: %v", err)
	}
	// A cancelled waiter gets ctx's error and leaves the queue.
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled waiter: %v", err)
	}
	if n := l.queueLen("a"); n != 0 {
		t.Errorf("queue after cancel: %d", n)
	}
	ls.Release()
	acquire(t, l, "a", "run-2", 0).Release()
}

func TestBadAccountName(t *testing.T) {
	l := NewLocal(t.TempDir())
	for _, n := range []string{"", "a\x00b"} {
		if _, err := l.Acquire(context.Background(), Request{Account: n}); err == nil {
			t.Errorf("Acquire(%q): no error", n)
		}
	}
	long := strings.Repeat("x", 300)
	acquire(t, l, long, "run-1", 0).Release()
	if h, ok := l.Last(long); !ok || h.RunID != "run-1" {
		t.Errorf("long name: %+v %v", h, ok)
	}
}

// TestOtherProcessHolds: another process's lease is busy here, naming its
// run and pid; when it releases, a waiter here gets the account.
func TestOtherProcessHolds(t *testing.T) {
	dir := t.TempDir()
	h := holder.Start(t, "lease", dir)
	l := &Local{Dir: dir}
	_, err := l.Acquire(context.Background(), Request{Account: "portal/admin", Holder: Holder{RunID: "run-mine"}})
	var be *BusyError
	if !errors.As(err, &be) || be.Holder.RunID != "run-other" || be.Holder.PID != h.PID() {
		t.Fatalf("err = %v (%+v)", err, be)
	}
	done := make(chan error, 1)
	go func() {
		ls, err := l.Acquire(context.Background(), Request{Account: "portal/admin", Holder: Holder{RunID: "run-mine"}, Wait: hang})
		if err == nil {
			ls.Release()
		}
		done <- err
	}()
	h.Release()
	if line, _ := h.Out.ReadString('\n'); line != "released\n" {
		t.Fatalf("helper: %q", line)
	}
	if err := <-done; err != nil {
		t.Fatalf("waiter: %v", err)
	}
}

// TestKilledHolderFreesAccount: kill -9 of the holding process must not
// lock the account.
func TestKilledHolderFreesAccount(t *testing.T) {
	dir := t.TempDir()
	h := holder.Start(t, "lease", dir)
	l := &Local{Dir: dir}
	if _, err := l.Acquire(context.Background(), Request{Account: "portal/admin"}); !errors.Is(err, ErrBusy) {
		t.Fatalf("while held: %v", err)
	}
	if err := h.Cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	_ = h.Cmd.Wait()
	ls := acquire(t, l, "portal/admin", "run-after", 0)
	ls.Release()
}

// queueLen is how many waiters of this process wait for account.
func (l *Local) queueLen(account string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a := l.accts[account]; a != nil {
		return len(a.queue)
	}
	return 0
}

// waitFor polls cond (a condition set by another goroutine) until it holds;
// the bound only catches a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	end := time.Now().Add(hang)
	for !cond() {
		if time.Now().After(end) {
			t.Fatal("condition never held")
		}
		time.Sleep(time.Millisecond)
	}
}

// BenchmarkAcquireRelease is the time the lease adds to a call whose
// account is free: take the lock (and note the holder), release it.
func BenchmarkAcquireRelease(b *testing.B) {
	l := NewLocal(b.TempDir())
	ctx := context.Background()
	for b.Loop() {
		ls, err := l.Acquire(ctx, Request{Account: "portal/admin", Holder: Holder{RunID: "20261201T125300123-a1b2"}})
		if err != nil {
			b.Fatal(err)
		}
		_ = ls.Release()
	}
}
