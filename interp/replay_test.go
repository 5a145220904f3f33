package interp

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
)

// newBrowser returns a fake browser whose every new page gets setup.
func newBrowser(setup func(p *fake.Page)) *fake.Browser {
	b := fake.New()
	b.OnNewPage = setup
	return b
}

func run(t *testing.T, f *lang.Flow, o Options) *Result {
	t.Helper()
	res, _ := Run(context.Background(), f, o)
	return res
}

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

func intp(n int) *int { return &n }

func TestReplayLateElement(t *testing.T) {
	b := newBrowser(func(p *fake.Page) { p.Add("#late", &fake.Element{After: ms(60)}) })
	f := flow(nil, nil, act("", "open", "http://x"), act("", "click", "#late"))
	t0 := time.Now()
	res := run(t, f, Options{Browser: b})
	if !res.Success {
		t.Fatalf("failed: %+v", res.Error)
	}
	if d := time.Since(t0); d < ms(60) || d > 30*time.Second { // the upper bound only catches a hang
		t.Fatalf("took %v, want the element wait (60ms), not a retry pause", d)
	}
	if n := strings.Count(strings.Join(b.Log(), "\n"), "click #late"); n != 1 {
		t.Fatalf("%d clicks, want 1", n)
	}
}

func TestReplayRetries(t *testing.T) {
	tests := []struct {
		fails, retries int
		ok             bool
		attempts       int
	}{
		{fails: 0, retries: 2, ok: true, attempts: 1},
		{fails: 2, retries: 2, ok: true, attempts: 3},
		{fails: 3, retries: 2, ok: false, attempts: 3},
		{fails: 1, retries: 0, ok: false, attempts: 1},
	}
	for _, tt := range tests {
		b := newBrowser(func(p *fake.Page) { p.Add("#b", &fake.Element{Fails: tt.fails}) })
		f := flow(nil, nil, act("", "click", "#b", opt{"retries", tt.retries}, opt{"every", ms(5)}))
		res := run(t, f, Options{Browser: b})
		if res.Success != tt.ok {
			t.Errorf("fails=%d retries=%d: success %v, want %v (%+v)", tt.fails, tt.retries, res.Success, tt.ok, res.Error)
		}
		if n := strings.Count(strings.Join(b.Log(), "\n"), "click #b"); n != tt.attempts {
			t.Errorf("fails=%d retries=%d: %d attempts, want %d", tt.fails, tt.retries, n, tt.attempts)
		}
		if !tt.ok && (res.Error.Line != 1 || res.Error.Action != "click" || res.Error.Code != -32002) {
			t.Errorf("error %+v", res.Error)
		}
	}
}

func TestReplayEveryApart(t *testing.T) {
	b := newBrowser(func(p *fake.Page) { p.Add("#b", &fake.Element{Fails: 2}) })
	f := flow(nil, nil, act("", "click", "#b", opt{"every", ms(80)}))
	t0 := time.Now()
	res := run(t, f, Options{Browser: b})
	if !res.Success {
		t.Fatal(res.Error)
	}
	if d := time.Since(t0); d < ms(160) {
		t.Fatalf("3 attempts every 80ms took %v", d)
	}
}

func TestReplayTimeoutCutsLastTry(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {})
	// wait 10s per attempt, 3 attempts, but the whole action is bounded by 120ms.
	f := flow(nil, nil, act("", "click", "#missing", opt{"timeout", ms(120)}))
	t0 := time.Now()
	res := run(t, f, Options{Browser: b})
	d := time.Since(t0)
	if res.Success || res.Error.Kind != "not_found" {
		t.Fatalf("want not_found, got %+v", res.Error)
	}
	if d < ms(110) || d > 8*time.Second { // the upper bound: only when it waited 10s
		t.Fatalf("took %v, want about 120ms", d)
	}
	if !strings.Contains(res.Error.Message, "#missing") {
		t.Fatalf("message %q does not name the selector", res.Error.Message)
	}
}

// TestReplayWaitPerAttempt: wait: bounds each attempt, not the action:
// with retries: 2 the element is waited for three times (the fake
// document counts its Locate calls; no time is measured).
func TestReplayWaitPerAttempt(t *testing.T) {
	var page *fake.Page
	b := newBrowser(func(p *fake.Page) { page = p })
	f := flow(nil, nil, act("", "click", "#missing", opt{"wait", ms(30)}, opt{"every", ms(10)}, opt{"retries", 2}))
	res := run(t, f, Options{Browser: b})
	if res.Success || res.Error.Kind != "not_found" {
		t.Fatalf("want not_found, got %+v", res.Error)
	}
	if n := page.Locates(); n != 3 {
		t.Fatalf("the element was waited for %d times, want 3 (one wait per attempt)", n)
	}
}

func TestReplayKinds(t *testing.T) {
	tests := []struct {
		el   func() *fake.Element
		kind core.Kind
	}{
		{func() *fake.Element { return &fake.Element{Hidden: true} }, "not_visible"},
		{func() *fake.Element { return &fake.Element{Disabled: true} }, "disabled"},
		{func() *fake.Element { return &fake.Element{CoveredBy: "div#consent"} }, "covered"},
	}
	for _, tt := range tests {
		b := newBrowser(func(p *fake.Page) { p.Add("#b", tt.el()) })
		f := flow(nil, nil, act("", "click", "#b", opt{"wait", ms(20)}, opt{"retries", 0}))
		res := run(t, f, Options{Browser: b})
		if res.Success || res.Error.Kind != tt.kind {
			t.Errorf("want %s, got %+v", tt.kind, res.Error)
		}
		if tt.kind == "covered" && !strings.Contains(res.Error.Message, "covered by div#consent") {
			t.Errorf("message %q does not name the cover", res.Error.Message)
		}
	}
}

func TestReplayOptionalAndSkip(t *testing.T) {
	b := newBrowser(func(p *fake.Page) { p.Add("#ok", &fake.Element{Txt: "fine"}) })
	short := []any{opt{"wait", ms(10)}, opt{"retries", 0}}
	f := flow(nil, nil,
		act("x", "text", append([]any{"#missing", opt{"optional", true}}, short...)...),
		act("y", "text", "#ok"),
		ret(`{"x": x, "y": y}`))
	res := run(t, f, Options{Browser: b})
	if !res.Success || res.FailedActions != 1 || res.CompletedActions != 1 || res.TotalActions != 2 {
		t.Fatalf("optional: %+v %+v", res, res.Error)
	}
	if res.Results[0].Status != StatusFailed || res.Results[0].Error == "" {
		t.Fatalf("step %+v", res.Results[0])
	}
	if got, _ := json.Marshal(res.Outputs); string(got) != `{"x":null,"y":"fine"}` {
		t.Fatalf("outputs %s", got)
	}

	// defaults on_timeout: "skip" (from the flow, and from Options.Defaults)
	for _, viaOpts := range []bool{false, true} {
		var defs []opt
		var od *Defaults
		if viaOpts {
			od = &Defaults{OnTimeout: "skip", Wait: ms(10), Retries: intp(0)}
		} else {
			defs = []opt{{"on_timeout", "skip"}, {"wait", ms(10)}, {"retries", 0}}
		}
		f = flow(nil, defs, act("x", "text", "#missing"), act("", "click", "#ok"), ret(`x`))
		res = run(t, f, Options{Browser: b, Defaults: od})
		if !res.Success || res.Results[0].Status != StatusSkipped || res.FailedActions != 1 || res.Outputs != nil {
			t.Fatalf("skip (viaOpts=%v): %+v %+v", viaOpts, res, res.Results[0])
		}
		if len(res.Log) == 0 || !strings.Contains(res.Log[0], "skipped text") {
			t.Fatalf("log %q", res.Log)
		}
	}
}

func TestReplayOnceNeverRetried(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {})
	// wait's bound is its timeout:, then wait:, then the flow's wait; never retried (a retry
	// would pause 30s first).
	f := flow(nil, []opt{{"wait", ms(40)}, {"every", 30 * time.Second}}, act("", "wait", "#missing"))
	t0 := time.Now()
	res := run(t, f, Options{Browser: b})
	if res.Success || res.Error.Kind != "timeout" || time.Since(t0) > 20*time.Second {
		t.Fatalf("wait: %+v after %v", res.Error, time.Since(t0))
	}
	f = flow(nil, nil, act("", "wait", "#missing", opt{"timeout", ms(30)}))
	t0 = time.Now()
	res = run(t, f, Options{Browser: b})
	if res.Success || time.Since(t0) > 8*time.Second { // only when it waited (10s) past its timeout
		t.Fatalf("wait timeout: %+v after %v", res.Error, time.Since(t0))
	}
}

// cancelFlow waits on an element that never comes after one good step.
func cancelFlow() *lang.Flow {
	return flow(nil, nil, act("", "open", "http://x"), act("", "click", "#never", opt{"wait", 30 * time.Second}))
}

func TestCancelMidWait(t *testing.T) {
	b := newBrowser(func(p *fake.Page) {})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(ms(80), cancel)
	t0 := time.Now()
	res, page := Run(ctx, cancelFlow(), Options{Browser: b})
	d := time.Since(t0)
	if d > 20*time.Second { // only when it waited (30s) for the element
		t.Fatalf("returned after %v", d)
	}
	if res.Success || res.Error.Kind != "cancelled" || res.Error.Line != 2 {
		t.Fatalf("error %+v", res.Error)
	}
	if len(res.Results) != 2 || res.Results[0].Status != StatusOK || res.Results[1].Status != StatusFailed {
		t.Fatalf("partial results %+v", res.Results)
	}
	if page == nil {
		t.Fatal("no page returned")
	}
}

// stuckPage ignores ctx in Locate, like a hung driver.
type stuckPage struct {
	*fake.Page
	release chan struct{}
}

func (p *stuckPage) Locate(ctx context.Context, sels []string, want drivers.Checks) (drivers.Element, int, error) {
	<-p.release
	return nil, -1, core.Errorf(core.KindNotFound, "gone")
}

func TestCancelHungDriver(t *testing.T) {
	b := fake.New()
	sp := &stuckPage{Page: b.AddPage("http://x"), release: make(chan struct{})}
	defer close(sp.release)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(ms(50), cancel)
	t0 := time.Now()
	res, _ := Run(ctx, flow(nil, nil, act("", "click", "#a")), Options{Browser: b, Page: sp})
	if d := time.Since(t0); d > 30*time.Second { // only a hang
		t.Fatalf("returned after %v", d)
	}
	if res.Error == nil || res.Error.Kind != "cancelled" {
		t.Fatalf("error %+v", res.Error)
	}
}

func TestMasking(t *testing.T) {
	const pw = "s3cr3t-PW"
	var mu sync.Mutex
	var events []string
	b := newBrowser(func(p *fake.Page) {
		p.Add("#pw", &fake.Element{})
		p.Add("#other", &fake.Element{Password: true, Val: "from-the-page"})
		p.Add("#echo", &fake.Element{Txt: "hello " + pw + "!"})
	})
	f := flow([]string{"password:secret"}, nil,
		act("", "fill", "#pw", src("password")),
		act("v", "value", "#pw"),
		act("o", "value", "#other"),
		act("t", "text", "#echo"),
		logs("login with {{ password }} and {{ o }}"),
		act("", "click", "text={{ password }}", opt{"wait", ms(10)}, opt{"retries", 0}, opt{"optional", true}),
		act("", "click", "#x{{ o }}", opt{"wait", ms(10)}, opt{"retries", 0}),
	)
	res := run(t, f, Options{Browser: b, Args: argsOf(t, f, map[string]any{"password": pw}), Events: func(ev Event) {
		mu.Lock()
		events = append(events, ev.Target+"|"+ev.Summary)
		mu.Unlock()
	}})
	all, _ := json.Marshal(res)
	mu.Lock()
	all = append(all, strings.Join(events, "\n")...)
	mu.Unlock()
	for _, secret := range []string{pw, "from-the-page"} {
		if strings.Contains(string(all), secret) {
			t.Errorf("secret %q leaked:\n%s", secret, all)
		}
	}
	if res.Error == nil || !strings.Contains(res.Error.Message, "#x***") {
		t.Fatalf("error %+v", res.Error)
	}
	if res.Results[3].Output != "hello ***!" || res.Log[0] != "login with *** and ***" {
		t.Fatalf("outputs %v / log %q", res.Results[3].Output, res.Log)
	}
	if res.Results[5].Selector != "" && strings.Contains(res.Results[5].Selector, pw) {
		t.Fatal("selector leaked")
	}
	// The flow itself still saw the real value.
	if !strings.Contains(strings.Join(b.Log(), "\n"), "fill #pw "+pw) {
		t.Fatalf("fill did not get the secret: %q", b.Log())
	}
}

func TestEvents(t *testing.T) {
	b := newBrowser(func(p *fake.Page) { p.Add("#a", &fake.Element{Txt: "A"}) })
	var got []Event
	f := flow(nil, nil, act("", "open", "http://x"), act("t", "text", "#a"), logs("got {{ t }}"))
	run(t, f, Options{Browser: b, Events: func(e Event) { got = append(got, e) }})
	want := []string{"started 1/2 open http://x", "finished 1/2 open ok", "started 2/2 text #a", "finished 2/2 text ok A", "log 0/0  got A"}
	if len(got) != len(want) {
		t.Fatalf("events %+v", got)
	}
	for i, e := range got {
		var s string
		switch e.Kind {
		case EventStarted:
			s = strings.Join([]string{e.Kind, itoa(e.Index) + "/" + itoa(e.Total), e.Action, e.Target}, " ")
		case EventFinished:
			s = strings.TrimSpace(strings.Join([]string{e.Kind, itoa(e.Index) + "/" + itoa(e.Total), e.Action, e.Status, e.Summary}, " "))
		default:
			s = strings.Join([]string{e.Kind, itoa(e.Index) + "/" + itoa(e.Total), e.Action, e.Summary}, " ")
		}
		if s != want[i] {
			t.Errorf("event %d: %q, want %q", i, s, want[i])
		}
	}
	// A control statement makes the total unknown.
	got = nil
	f = flow(nil, nil, act("", "open", "http://x"), set("n", "2"),
		&ast.IfStmt{Cond: src("n > 1"), Then: []ast.Stmt{act("", "click", "#a")}})
	run(t, f, Options{Browser: b, Events: func(e Event) { got = append(got, e) }})
	for _, e := range got {
		if e.Total != 0 {
			t.Fatalf("total known with an if: %+v", e)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestReplayFailFast: an element wait that ran out on a settled page is
// the action's last try unless the action itself gives retries:; a page
// that settled into a sign-in page (or an error, an HTTP error document)
// ends the action at once whatever its retries (LANGUAGE.md, "Fail
// fast"); an action that found its element and failed keeps its retries
// (TestReplayRetries).
func TestReplayFailFast(t *testing.T) {
	settled := &drivers.PageState{Kind: drivers.PageSettled, Text: "the page had settled (nothing loaded or changed for 5s)"}
	wall := &drivers.PageState{Kind: drivers.PageSignIn, Text: "the page is a sign-in page: it asks for a password"}
	for _, c := range []struct {
		name     string
		state    *drivers.PageState
		opts     []opt
		locates  int
		says     string
		withPage bool
	}{
		{"settled: one try", settled, nil, 1, "no element matches \"#missing\"; the page had settled", true},
		{"settled, retries: on the action", settled, []opt{{"retries", 2}}, 3, "the page had settled", true},
		{"busy page: every try", nil, nil, 3, "no element matches \"#missing\"", false},
		{"sign-in page: at once", wall, []opt{{"retries", 5}}, 1, "no element matches \"#missing\": the page is a sign-in page", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			var pg *fake.Page
			b := newBrowser(func(p *fake.Page) { p.State, pg = c.state, p })
			args := []any{"#missing", opt{"wait", ms(40)}, opt{"every", ms(5)}}
			for _, o := range c.opts {
				args = append(args, o)
			}
			f := flow(nil, nil, act("", "open", "http://x"), act("", "click", args...))
			res := run(t, f, Options{Browser: b})
			if res.Success || res.Error.Kind != core.KindNotFound || !strings.Contains(res.Error.Message, c.says) {
				t.Fatalf("got %+v", res.Error)
			}
			if pg.Locates() != c.locates {
				t.Errorf("%d tries, want %d", pg.Locates(), c.locates)
			}
			if got := drivers.StateOf(res.Error); (got != nil) != c.withPage {
				t.Errorf("state in the run error: %+v", got)
			}
		})
	}
}
