package rod_test

import (
	"context"
	"encoding/json"
	"fmt"
	neturl "net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
)

// Profiles on one attached browser (site isolation on): each its own
// browser context and windows; closed ones leave nothing behind.

func remoteProfile(t *testing.T, remote string) drivers.Browser {
	t.Helper()
	b, err := rodd.New().Launch(tctx(t, 30*time.Second), drivers.LaunchOptions{Remote: remote})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

// remoteTabs counts the page targets of the attached browser whose URL
// contains marker, over a connection of the test's own (closed without
// closing the browser).
func remoteTabs(t *testing.T, ws, marker string) int {
	t.Helper()
	ctx := tctx(t, 10*time.Second)
	w := &cdp.WebSocket{}
	if err := w.Connect(ctx, ws, nil); err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	raw, err := cdp.New().Start(w).Call(ctx, "", "Target.getTargets", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var res proto.TargetGetTargetsResult
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ti := range res.TargetInfos {
		if ti.Type == proto.TargetTargetInfoTypePage && strings.Contains(ti.URL, marker) {
			n++
		}
	}
	return n
}

func TestRemoteProfilesAreIsolated(t *testing.T) {
	ws := isolatedWS(t)
	ctx := tctx(t, 60*time.Second)
	a := remoteProfile(t, ws)
	b := remoteProfile(t, ws)
	pa, err := a.NewPage(ctx, url("basic.html?profile=A"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pa.Eval(ctx, `() => { document.cookie = "session=A; path=/"; localStorage.setItem("who", "A"); return 1 }`); err != nil {
		t.Fatal(err)
	}
	pb, err := b.NewPage(ctx, url("basic.html?profile=B"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := pb.Eval(ctx, `() => document.cookie + "|" + (localStorage.getItem("who") || "")`)
	if err != nil {
		t.Fatal(err)
	}
	if v != "|" {
		t.Errorf("profile B sees %q of profile A", v)
	}
	// each profile lists only its own tabs
	if tabs, err := b.Pages(ctx); err != nil || len(tabs) != 1 {
		t.Errorf("profile B lists %d tabs (%v), want 1", len(tabs), err)
	}
	// a tab in its own window is visible: animation frames run
	if v, err := pb.Eval(ctx, `() => new Promise((res) => { requestAnimationFrame(() => res(document.visibilityState)); setTimeout(() => res("no frame"), 2000); })`); err != nil || v != "visible" {
		t.Errorf("profile B's tab: %v, %v", v, err)
	}
	if n := remoteTabs(t, ws, "profile=A"); n != 1 {
		t.Fatalf("profile A has %d tabs in the remote browser, want 1", n)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if n := remoteTabs(t, ws, "profile=A"); n != 0 {
		t.Errorf("closed profile A left %d tabs behind", n)
	}
	if !b.Alive() {
		t.Error("profile B died with A")
	}
}

func TestRemoteProfilesInParallel(t *testing.T) {
	ws := isolatedWS(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		b := remoteProfile(t, ws)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = func() error {
				ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
				defer cancel()
				p, err := b.NewPage(ctx, url("basic.html"))
				if err != nil {
					return err
				}
				defer p.Close()
				for round := 0; round < 3; round++ {
					name := fmt.Sprintf("P%d-%d", i, round)
					el, _, err := p.Locate(ctx, []string{"#name"}, drivers.ForInput)
					if err != nil {
						return err
					}
					if err := el.Fill(ctx, name); err != nil {
						return err
					}
					btn, _, err := p.Locate(ctx, []string{"#go"}, drivers.ForPointer)
					if err != nil {
						return err
					}
					if err := btn.Click(ctx, "left", 1); err != nil {
						return err
					}
					if _, err := p.WaitState(ctx, []string{fmt.Sprintf(`text="hello:%s:true"`, name)}, drivers.StateVisible); err != nil {
						return fmt.Errorf("round %d: %w", round, err)
					}
				}
				return nil
			}()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("profile %d: %v", i, err)
		}
	}
}

func TestRemoteEndpoints(t *testing.T) {
	ws := isolatedWS(t)
	httpEP := "http://" + strings.Split(strings.TrimPrefix(ws, "ws://"), "/")[0]
	ctx := tctx(t, 60*time.Second)

	// http:// is resolved through /json/version
	b := remoteProfile(t, httpEP)
	p, err := b.NewPage(ctx, url("basic.html"))
	if err != nil {
		t.Fatal(err)
	}
	_ = p.Close()

	// a failure names the endpoint, never its token
	bad := "ws://127.0.0.1:1/devtools/browser/x?token=s3cr3t-T0KEN"
	_, err = rodd.New().Launch(tctx(t, 10*time.Second), drivers.LaunchOptions{Remote: bad})
	if err == nil || !strings.Contains(err.Error(), "ws://127.0.0.1:1/devtools/browser/x?token=***") || strings.Contains(err.Error(), "s3cr3t") {
		t.Errorf("bad endpoint: %v", err)
	}
	// several endpoints: the unreachable one is skipped
	b2 := remoteProfile(t, bad+", "+ws)
	if got := rodd.Endpoint(b2); got != ws {
		t.Errorf("attached through %q, want %q", got, ws)
	}
	// profiles are spread over the endpoints: both reach the same browser
	// here under two names, so the next profile takes the other one
	spread := ws + "," + httpEP
	first := rodd.Endpoint(remoteProfile(t, spread))
	second := rodd.Endpoint(remoteProfile(t, spread))
	if first == second {
		t.Errorf("two profiles on %q and %q, want one per endpoint", first, second)
	}
}

func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"wss://chrome.example.com?token=abc123", "wss://chrome.example.com?token=***"},
		{"ws://127.0.0.1:9222/devtools/browser/1a", "ws://127.0.0.1:9222/devtools/browser/1a"},
		{"wss://u:pw@grid.example.com/session/1/se/cdp?a=1&b=2", "wss://u:***@grid.example.com/session/1/se/cdp?a=***&b=***"},
	} {
		if got := rodd.Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := rodd.Endpoints(" ws://a:1/x, http://b:2 ,wss://c/?token=t "); len(got) != 3 || got[1] != "http://b:2" {
		t.Errorf("Endpoints = %q", got)
	}
}

// TestClassesOnSiteIsolatedBrowser runs the hard-page class tests again on
// a profile of an attached Chromium with site isolation on (its default),
// as a real Chrome or a remote pool runs them.
func TestClassesOnSiteIsolatedBrowser(t *testing.T) {
	b := remoteProfile(t, isolatedWS(t))
	saved := testBrowser
	testBrowser = b
	defer func() { testBrowser = saved }()
	for _, c := range []struct {
		name string
		fn   func(*testing.T)
	}{
		{"sticky", TestStickyBarsAndScrollContainers}, {"grid", TestVirtualisedGrid},
		{"aim", TestClickLandsWhereAimed}, {"toggles", TestStyledToggles},
		{"select", TestCascadingSelects}, {"text", TestTextNormalisation},
		{"frames", TestNestedFrames}, {"shadow", TestShadowRoots}, {"overlay", TestOverlayCovered},
	} {
		t.Run(c.name, c.fn)
	}
}

func TestRemoteBrowserGoneNamesEndpoint(t *testing.T) {
	ws, stop, err := startIsolated()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	b, err := rodd.New().Launch(tctx(t, 30*time.Second), drivers.LaunchOptions{Remote: ws})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	stop()
	ctx := tctx(t, 20*time.Second)
	for ctx.Err() == nil && b.Alive() {
		time.Sleep(50 * time.Millisecond)
	}
	if b.Alive() {
		t.Fatal("still alive after its browser was killed")
	}
	_, err = b.NewPage(ctx, url("basic.html"))
	if err == nil || !strings.Contains(err.Error(), ws) {
		t.Errorf("call on a gone remote browser: %v (want the endpoint named)", err)
	}
	// the next launch (the pool's next call) reports the endpoint too
	_, err = rodd.New().Launch(tctx(t, 10*time.Second), drivers.LaunchOptions{Remote: ws})
	if err == nil || !strings.Contains(err.Error(), ws) {
		t.Errorf("reattach to a gone browser: %v", err)
	}
}

// FuzzRedact: Redact never panics and never shows a query value.
func FuzzRedact(f *testing.F) {
	for _, s := range []string{"wss://h?token=abc", "ws://127.0.0.1:9222/devtools/browser/x", "http://u:p@h:1/?a=1&b=22", "%zz?token=secret", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := rodd.Redact(s)
		if u, err := neturl.Parse(s); err == nil && u.RawQuery != "" {
			for _, vs := range u.Query() {
				for _, v := range vs {
					if len(v) >= 3 && !strings.Contains(v, "*") && strings.Contains(out, "="+v) {
						t.Errorf("Redact(%q) = %q shows %q", s, out, v)
					}
				}
			}
		}
	})
}
