//go:build linux

package profiles_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// Pool behaviour with real headless Chromium.

func chromiumPool(t *testing.T) *profiles.Pool {
	t.Helper()
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
	home := t.TempDir()
	p, err := profiles.New(profiles.Options{
		Driver: rodd.New(),
		Idle:   -1,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			return drivers.LaunchOptions{UserDataDir: filepath.Join(home, id)}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// call is one pool call: acquire, open url in the profile's tab (a new
// one the first time), read the heading, release.
func call(p *profiles.Pool, url string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := p.Acquire(ctx, "work")
	if err != nil {
		return "", err
	}
	defer l.Release()
	pg := l.Page()
	if pg == nil {
		if pg, err = l.Browser().NewPage(ctx, url); err != nil {
			return "", err
		}
		l.SetPage(pg)
	} else if err := pg.Navigate(ctx, url); err != nil {
		if core.KindOf(err) == core.KindBrowser {
			l.MarkBroken()
		}
		return "", err
	}
	el, _, err := pg.Locate(ctx, []string{"h1"}, drivers.ForRead)
	if err != nil {
		return "", err
	}
	return el.Text(ctx)
}

// TestDeadBrowserReplacedChromium: Chromium killed between calls; the ten
// calls that follow back to back all work (the first one replaces it).
func TestDeadBrowserReplacedChromium(t *testing.T) {
	p := chromiumPool(t)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<!doctype html><h1>hi</h1>`)
	}))
	defer s.Close()
	if _, err := call(p, s.URL); err != nil {
		t.Fatal(err)
	}
	l, err := p.Acquire(context.Background(), "work")
	if err != nil {
		t.Fatal(err)
	}
	b := l.Browser()
	pid := b.(interface{ PID() int }).PID()
	l.Release()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// Dead, reaped (a zombie still answers kill 0) and seen so by the
	// driver: the reaping goroutine may not have said so yet.
	for deadline := time.Now().Add(30 * time.Second); syscall.Kill(pid, 0) == nil || !drivers.Gone(b); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed browser was not reaped")
		}
	}
	for i := range 10 {
		if h, err := call(p, s.URL); err != nil || h != "hi" {
			t.Fatalf("call %d after the browser died: %q, %v (kind %s)", i+1, h, err, core.KindOf(err))
		}
	}
}

// TestClosedConnectionIsKindBrowser: a navigation on a browser whose
// process died fails with kind browser (never navigation), so the pool
// marks it broken.
func TestClosedConnectionIsKindBrowser(t *testing.T) {
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	b, err := rodd.New().Launch(ctx, drivers.LaunchOptions{UserDataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	pg, err := b.NewPage(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(b.(interface{ PID() int }).PID(), syscall.SIGKILL)
	for !drivers.Gone(b) {
		time.Sleep(5 * time.Millisecond)
	}
	err = pg.Navigate(ctx, "http://127.0.0.1:1/")
	if core.KindOf(err) != core.KindBrowser {
		t.Fatalf("navigate on a dead browser: %v, kind %q; want kind browser", err, core.KindOf(err))
	}
}

// TestInterruptedCallLeavesTabClean: a call that timed out while the site
// hung leaves no request pending in Chromium once released, so the next
// call to the same address is answered (and does not wait on Chromium's
// cache lock for that address).
func TestInterruptedCallLeavesTabClean(t *testing.T) {
	p := chromiumPool(t)
	var n atomic.Int32
	cancelled := make(chan struct{})
	var once sync.Once
	release := make(chan struct{})
	defer close(release)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/slow" {
			fmt.Fprint(w, `<!doctype html><h1>home</h1>`)
			return
		}
		if n.Add(1) == 1 { // the first request hangs until Chromium lets go of it
			select {
			case <-r.Context().Done():
				once.Do(func() { close(cancelled) })
			case <-release:
			}
			return
		}
		fmt.Fprint(w, `<!doctype html><h1>late</h1>`)
	}))
	defer s.Close()
	if _, err := call(p, s.URL+"/"); err != nil { // the profile's tab
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := p.Acquire(ctx, "work")
	if err != nil {
		t.Fatal(err)
	}
	nctx, ncancel := context.WithTimeout(ctx, 500*time.Millisecond)
	err = l.Page().Navigate(nctx, s.URL+"/slow")
	ncancel()
	if core.KindOf(err) != core.KindTimeout {
		t.Fatalf("navigation to the hanging page: %v, want a timeout", err)
	}
	l.Interrupted() // what the MCP layer says after a timed-out or cancelled run
	l.Release()
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the hanging request is still pending in Chromium after the interrupted call was released")
	}
	t0 := time.Now()
	if h, err := call(p, s.URL+"/slow"); err != nil || h != "late" {
		t.Fatalf("next call to the same address: %q, %v (requests %d, after %v)", h, err, n.Load(), time.Since(t0))
	}
}
