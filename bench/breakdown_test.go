package bench

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/stdlib"
)

// The per-action breakdown (TestActionBreakdown): each action of the
// reference flow as rpa runs it on a warm profile that keeps its tab,
// against the floor's phase for the same step on a kept tab of its own
// (one DevTools round trip per step, every wait event-driven), with the
// DevTools commands each spent: both talk to the shared browser through a
// counting proxy (cdpProxy), so the hop costs them alike.

// cdpCall is one DevTools command: who sent it, its method, when it was
// sent and answered.
type cdpCall struct {
	conn         int
	method       string
	sent, answer time.Time
}

// cdpProxy forwards DevTools WebSocket connections to the shared browser
// byte for byte (TCP) and reads the frames as they pass, recording every
// command (client to browser) with its answer's time. (A WebSocket server
// library would refuse go-rod's fixed handshake key.)
type cdpProxy struct {
	ln     net.Listener
	target *url.URL

	mu      sync.Mutex
	conns   int
	calls   []*cdpCall
	pending map[string]*cdpCall // by connection, session and id
	events  []*cdpCall          // lifecycle events seen (for the trace)
}

func newCDPProxy(tb testing.TB, ws string) *cdpProxy {
	tb.Helper()
	u, err := url.Parse(ws)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &cdpProxy{ln: ln, target: u, pending: map[string]*cdpCall{}}
	var wg sync.WaitGroup
	var live sync.Map // open connections, closed at cleanup
	go func() {
		for {
			front, err := ln.Accept()
			if err != nil {
				return
			}
			back, err := net.Dial("tcp", u.Host)
			if err != nil {
				front.Close()
				continue
			}
			live.Store(front, back)
			p.mu.Lock()
			p.conns++
			conn := p.conns
			p.mu.Unlock()
			wg.Add(2)
			go func() { defer wg.Done(); p.pipe(conn, front, back, true) }()
			go func() { defer wg.Done(); p.pipe(conn, back, front, false) }()
		}
	}()
	tb.Cleanup(func() {
		ln.Close()
		live.Range(func(f, b any) bool { f.(net.Conn).Close(); b.(net.Conn).Close(); return true })
		wg.Wait()
	})
	return p
}

// pipe copies from to to, reading WebSocket frames after the HTTP
// handshake (up: client to browser, whose frames are masked).
func (p *cdpProxy) pipe(conn int, from, to net.Conn, up bool) {
	defer from.Close()
	defer to.Close()
	r := bufio.NewReaderSize(io.TeeReader(from, to), 1<<16)
	for { // the handshake: header lines up to an empty one
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		if line == "\r\n" {
			break
		}
	}
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return
		}
		fin, op := h[0]&0x80 != 0, h[0]&0x0f
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var b [2]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return
			}
			n = uint64(binary.BigEndian.Uint16(b[:]))
		case 127:
			var b [8]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return
			}
			n = binary.BigEndian.Uint64(b[:])
		}
		var mask [4]byte
		masked := h[1]&0x80 != 0
		if masked {
			if _, err := io.ReadFull(r, mask[:]); err != nil {
				return
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		if masked {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		if op >= 8 { // control frames
			continue
		}
		msg = append(msg, payload...)
		if fin {
			p.note(conn, msg, up)
			msg = nil
		}
	}
}

// URL is the proxied browser endpoint.
func (p *cdpProxy) URL() string {
	return "ws://" + p.ln.Addr().String() + p.target.Path
}

func (p *cdpProxy) note(conn int, msg []byte, up bool) {
	now := time.Now()
	var m struct {
		ID        int64  `json:"id"`
		Method    string `json:"method"`
		SessionID string `json:"sessionId"`
		Params    struct {
			Arguments []struct {
				Value any `json:"value"`
			} `json:"arguments"`
			Expression string `json:"expression"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &m) != nil {
		return
	}
	if m.ID == 0 {
		p.event(conn, msg, now)
		return
	}
	if m.Method == "Runtime.callFunctionOn" && len(m.Params.Arguments) > 0 {
		// the driver's engine calls name their op first: callFunctionOn:aim
		if op, ok := m.Params.Arguments[0].Value.(string); ok && len(op) < 20 {
			m.Method += ":" + op
		}
	}
	if _, args, ok := strings.Cut(m.Params.Expression, `.apply(globalThis, ["`); ok && m.Method == "Runtime.evaluate" {
		// an engine call on the top document (drivers/rod evalExpr):
		// evaluate:locate
		if op, _, ok := strings.Cut(args, `"`); ok && len(op) < 20 {
			m.Method += ":" + op
		}
	}
	key := fmt.Sprintf("%d/%s/%d", conn, m.SessionID, m.ID)
	p.mu.Lock()
	defer p.mu.Unlock()
	if up {
		c := &cdpCall{conn: conn, method: m.Method, sent: now}
		p.calls = append(p.calls, c)
		p.pending[key] = c
		return
	}
	if c := p.pending[key]; c != nil {
		c.answer = now
		delete(p.pending, key)
	}
}

// event records, for the trace, the main-frame lifecycle events and
// navigations a connection receives, as calls with no answer whose method
// says what happened ("event DOMContentLoaded").
func (p *cdpProxy) event(conn int, msg []byte, now time.Time) {
	var ev struct {
		Method string `json:"method"`
		Params struct {
			Name  string `json:"name"`
			Frame struct {
				ParentID string `json:"parentId"`
			} `json:"frame"`
		} `json:"params"`
	}
	if json.Unmarshal(msg, &ev) != nil {
		return
	}
	name := ""
	switch ev.Method {
	case "Page.lifecycleEvent":
		switch ev.Params.Name {
		case "init", "commit", "DOMContentLoaded", "load":
			name = "event " + ev.Params.Name
		}
	case "Page.frameNavigated":
		if ev.Params.Frame.ParentID == "" {
			name = "event frameNavigated"
		}
	}
	if name == "" {
		return
	}
	p.mu.Lock()
	p.events = append(p.events, &cdpCall{conn: conn, method: name, sent: now})
	p.mu.Unlock()
}

// takeEvents returns the events recorded since the last call and forgets
// them.
func (p *cdpProxy) takeEvents() []*cdpCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.events
	p.events = nil
	return out
}

// take returns the calls recorded since the last take and forgets them.
func (p *cdpProxy) take() []*cdpCall {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.calls
	p.calls = nil
	return out
}

// span is one timed phase: an action of rpa's or a step of the floor's.
type span struct {
	name       string
	start, end time.Time
}

// stepSpans attributes calls to the span during which they were sent (the
// first such, and "total"); it returns, per span, the number of calls, the time they were awaited
// (their sent-to-answer times summed) and, per method, "M n" its count and
// "M ms" the time it was awaited.
func stepSpans(spans []span, calls []*cdpCall) (n []int, ms []float64, methods []map[string]float64) {
	n, ms, methods = make([]int, len(spans)), make([]float64, len(spans)), make([]map[string]float64, len(spans))
	for i := range spans {
		methods[i] = map[string]float64{}
	}
	for _, c := range calls {
		found := false
		for i, s := range spans {
			// each call counts for its first span, and for "total"
			if c.sent.Before(s.start) || c.sent.After(s.end) || found && s.name != "total" {
				continue
			}
			found = true
			n[i]++
			methods[i][c.method+" n"]++
			if !c.answer.IsZero() {
				d := float64(c.answer.Sub(c.sent).Microseconds()) / 1000
				ms[i] += d
				methods[i][c.method+" ms"] += d
			}
		}
	}
	return n, ms, methods
}

// rpaSpans runs the flow on the slot's kept tab and returns its actions'
// spans, timed by the run's own events (named "3 fill" by index and
// action); the log lines of the loop and the rest are folded into "rest".
func rpaSpans(e *env, s *rpaSlot) ([]span, error) {
	args, err := e.flow.ParseArgs(map[string]string{"username": demoapp.DemoUsername,
		"password": demoapp.DemoPassword, "region": region, "base_url": e.base})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	flush := func() error { return nil }
	if mode := os.Getenv("RPA_BENCH_HEAL"); mode != "" && mode != string(heal.Off) {
		// healing as rpa serve has it by default (suggest): every element
		// found is fingerprinted; the marks stay in memory
		h := heal.New(heal.Mode(mode), nil, "")
		ctx, flush = stdlib.WithLocateHook(ctx, h), h.Flush
	}
	var spans []span
	open := map[int]time.Time{}
	events := func(ev interp.Event) {
		switch ev.Kind {
		case interp.EventStarted:
			open[ev.Index] = time.Now()
		case interp.EventFinished:
			if ev.Index <= 8 { // the page actions; later ones are the loop's logs
				spans = append(spans, span{name: fmt.Sprintf("%d %s", ev.Index, ev.Action), start: open[ev.Index], end: time.Now()})
			}
		}
	}
	start := time.Now()
	res, page := interp.Run(ctx, e.flow, interp.Options{Args: args, Browser: s.br, Page: s.page, Events: events})
	if err := flush(); err != nil {
		return nil, err
	}
	end := time.Now()
	s.page = page
	if !res.Success {
		return nil, fmt.Errorf("flow failed: %+v", res.Error)
	}
	if len(spans) != 8 {
		return nil, fmt.Errorf("got %d action spans, want 8", len(spans))
	}
	spans = append(spans, span{name: "rest", start: spans[len(spans)-1].end, end: end})
	spans = append(spans, span{name: "total", start: start, end: end})
	return spans, nil
}

// floorSpans runs the floor's flow step by step on its kept tab: the same
// eight steps, each one DevTools round trip (or event) and event-driven,
// timed one by one.
func floorSpans(e *env, page *rod.Page) ([]span, error) {
	page = page.Timeout(60 * time.Second)
	var spans []span
	start := time.Now()
	at := start
	mark := func(name string) {
		now := time.Now()
		spans = append(spans, span{name: name, start: at, end: now})
		at = now
	}
	if err := (proto.PageSetLifecycleEventsEnabled{Enabled: true}).Call(page); err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var want proto.NetworkLoaderID
	same := true
	dcl := func() func() {
		return page.EachEvent(func(ev *proto.PageLifecycleEvent) bool {
			mu.Lock()
			defer mu.Unlock()
			return ev.Name == proto.PageLifecycleEventNameDOMContentLoaded && (ev.LoaderID == want) == same
		})
	}
	step := func(js, sel string, arg any) (*proto.RuntimeRemoteObject, error) {
		res, err := page.Evaluate(rod.Eval(js, sel, arg).ByPromise())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sel, err)
		}
		return res, nil
	}
	click := func(sel string) error {
		if os.Getenv("RPA_BENCH_CLICK") != "trusted" {
			_, err := step(clickStep, sel, nil)
			return err
		}
		// a trusted click as a person's (what rpa sends): the element's
		// centre, then the mouse's press and release, each awaited
		res, err := step(centreStep, sel, nil)
		if err != nil {
			return err
		}
		var at [2]float64
		if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &at); err != nil {
			return err
		}
		for _, typ := range []proto.InputDispatchMouseEventType{proto.InputDispatchMouseEventTypeMousePressed, proto.InputDispatchMouseEventTypeMouseReleased} {
			if err := (proto.InputDispatchMouseEvent{Type: typ, X: at[0], Y: at[1], Button: proto.InputMouseButtonLeft, ClickCount: 1}).Call(page); err != nil {
				return fmt.Errorf("%s: %w", sel, err)
			}
		}
		return nil
	}
	loaded := dcl()
	nav, err := (proto.PageNavigate{URL: e.base + "/login"}).Call(page)
	if err != nil {
		return nil, err
	}
	mu.Lock()
	want = nav.LoaderID
	mu.Unlock()
	loaded()
	mark("1 open")
	if _, err := step(fillStep, "#username", demoapp.DemoUsername); err != nil {
		return nil, err
	}
	mark("2 fill")
	if _, err := step(fillStep, "#password", demoapp.DemoPassword); err != nil {
		return nil, err
	}
	mark("3 fill")
	mu.Lock()
	same = false // the next document's
	mu.Unlock()
	loaded = dcl()
	if err := click("#submit"); err != nil {
		return nil, err
	}
	mark("4 click")
	loaded()
	mark("5 wait")
	if _, err := step(fillStep, "#region", region); err != nil {
		return nil, err
	}
	mark("6 select")
	if err := click("#query-btn:not([disabled])"); err != nil {
		return nil, err
	}
	mark("7 click")
	res, err := step(tableStep, "#data-table", nil)
	if err != nil {
		return nil, err
	}
	var rows []map[string]any
	if err := json.Unmarshal([]byte(res.Value.JSON("", "")), &rows); err != nil {
		return nil, err
	}
	mark("8 table")
	if err := e.checkErr(rows); err != nil {
		return nil, err
	}
	spans = append(spans, span{name: "rest", start: at, end: at})
	spans = append(spans, span{name: "total", start: start, end: at})
	return spans, nil
}

// TestActionBreakdown logs, per action of the reference flow, rpa's median
// time on a warm profile that keeps its tab against the floor's phase for
// the same step on a kept tab, and the DevTools commands each spent (per
// flow, median; the time they were awaited; the methods rpa sent). It
// runs only when RPA_BENCH_ROUNDS is set:
//
//	RPA_BENCH_ROUNDS=15 go test ./bench -run TestActionBreakdown -v
//
// rpa and the floor alternate round by round, through the same counting
// proxy; compare within one run. The floor clicks with el.click() in the
// page (one round trip, an untrusted click many pages ignore);
// RPA_BENCH_CLICK=trusted makes it click as rpa does, with trusted mouse
// input: the element's centre, then the press and the release (three
// round trips, each input event acknowledged once the page handled it).
// RPA_BENCH_HEAL=suggest runs rpa with
// healing on, as rpa serve runs a flow by default (every element found is
// fingerprinted, package heal); without it healing is off.
func TestActionBreakdown(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("RPA_BENCH_ROUNDS"))
	if rounds <= 0 {
		t.Skip("set RPA_BENCH_ROUNDS=N to measure")
	}
	e := setup(t)
	defer e.close()
	report, err := breakdown(t, e, rounds)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(report)
}

// maxCommands bounds the DevTools commands rpa sends per action of the
// reference flow on a kept tab (the median of the rounds, which does not
// depend on the machine's load): open navigates; a fill locates and
// prepares the field (focus, select all) in one evaluation, inserts the
// text and verifies the value; a click locates and aims (scroll, hit test,
// the interception armed) in one evaluation, sends the mouse's move, press
// and release and, beside them, the disarm that answers once the click was
// handled (one round trip); a select locates and picks;
// the table's locate reads it (drivers.ReadTable). The wait after the
// login is the load's lifecycle event. With healing on
// (RPA_BENCH_HEAL=suggest) the bounds are the same: the fingerprints are
// taken in the locates (drivers.TakeFingerprint). TestActionBreakdown
// fails when an action sends more.
var maxCommands = map[string]int{
	"1 open": 1, "2 fill": 3, "3 fill": 3, "4 click": 5, "5 wait": 0,
	"6 select": 2, "7 click": 5, "8 table": 1, "rest": 0, "total": 20,
}

// breakdown measures rounds of rpa and the floor through a counting proxy
// and returns the table.
func breakdown(tb testing.TB, e *env, rounds int) (string, error) {
	px := newCDPProxy(tb, e.ws)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rb, err := rodd.New().Launch(ctx, drivers.LaunchOptions{Remote: px.URL()})
	if err != nil {
		return "", err
	}
	defer rb.Close()
	slot := &rpaSlot{br: rb}
	fb := rod.New().ControlURL(px.URL())
	if err := fb.Connect(); err != nil {
		return "", err
	}
	defer fb.Close()
	floor := newFloorSlot(tb, fb, true)

	type sample struct {
		ms, cdpMs []float64
		calls     []int
		methods   map[string]float64
	}
	var names []string
	seen := map[string]bool{}
	rpa, flr := map[string]*sample{}, map[string]*sample{}
	add := func(to map[string]*sample, spans []span, calls []*cdpCall) {
		n, cms, methods := stepSpans(spans, calls)
		for i, s := range spans {
			x := to[s.name]
			if x == nil {
				x = &sample{methods: map[string]float64{}}
				to[s.name] = x
				if !seen[s.name] {
					seen[s.name] = true
					names = append(names, s.name)
				}
			}
			x.ms = append(x.ms, float64(s.end.Sub(s.start).Microseconds())/1000)
			x.cdpMs = append(x.cdpMs, cms[i])
			x.calls = append(x.calls, n[i])
			for m, k := range methods[i] {
				x.methods[m] += k
			}
		}
	}
	for r := -1; r < rounds; r++ { // round -1 warms the caches, untimed
		px.take()
		px.takeEvents()
		sp, err := rpaSpans(e, slot)
		if err != nil {
			return "", err
		}
		calls := px.take()
		if r >= 0 {
			add(rpa, sp, calls)
		}
		last := r == rounds-1 && os.Getenv("RPA_BENCH_TRACE") != ""
		if last {
			trace(tb, "rpa", sp, append(calls, px.takeEvents()...))
		}
		px.takeEvents()
		sp, err = floorSpans(e, floor.page)
		if err != nil {
			return "", err
		}
		calls = px.take()
		if r >= 0 {
			add(flr, sp, calls)
		}
		if last {
			trace(tb, "the floor", sp, append(calls, px.takeEvents()...))
		}
	}
	med := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	medInt := func(xs []int) int {
		s := append([]int(nil), xs...)
		sort.Ints(s)
		return s[len(s)/2]
	}
	// top lists the methods by the time awaited, per flow: "aim×2 31ms".
	top := func(m map[string]float64, n int) string {
		type kv struct {
			k     string
			n, ms float64
		}
		var l []kv
		for k, v := range m {
			if name, ok := strings.CutSuffix(k, " n"); ok {
				l = append(l, kv{name, v, m[name+" ms"]})
			}
		}
		sort.Slice(l, func(i, j int) bool { return l[i].ms > l[j].ms || l[i].ms == l[j].ms && l[i].k < l[j].k })
		var parts []string
		for i, x := range l {
			if i == 5 {
				parts = append(parts, "...")
				break
			}
			name := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(x.k, "Runtime."), "callFunctionOn:"), "evaluate:")
			parts = append(parts, fmt.Sprintf("%s×%.3g %.1fms", name, x.n/float64(n), x.ms/float64(n)))
		}
		return strings.Join(parts, " ")
	}
	var over []string
	for _, name := range names {
		if r := rpa[name]; r != nil {
			if n := medInt(r.calls); n > maxCommands[name] {
				over = append(over, fmt.Sprintf("%s sent %d DevTools commands (median of %d rounds), at most %d expected", name, n, rounds, maxCommands[name]))
			}
		}
	}
	var b strings.Builder
	lb, _ := os.ReadFile("/proc/loadavg")
	healMode := os.Getenv("RPA_BENCH_HEAL")
	if healMode == "" {
		healMode = string(heal.Off)
	}
	fmt.Fprintf(&b, "\n%d rounds, heal %s, load average %s\n", rounds, healMode, strings.TrimSpace(string(lb)))
	fmt.Fprintf(&b, "%-10s %8s %8s %7s | %5s %7s | %5s %7s | %s\n", "action", "rpa ms", "floor ms", "extra", "calls", "cdp ms", "floor", "cdp ms", "rpa's commands per flow (×count, ms awaited)")
	for _, name := range names {
		r, f := rpa[name], flr[name]
		if r == nil || f == nil {
			continue
		}
		fmt.Fprintf(&b, "%-10s %8.1f %8.1f %7.1f | %5d %7.1f | %5d %7.1f | %s\n", name, med(r.ms), med(f.ms), med(r.ms)-med(f.ms),
			medInt(r.calls), med(r.cdpMs), medInt(f.calls), med(f.cdpMs), top(r.methods, rounds))
	}
	if len(over) > 0 {
		return b.String(), fmt.Errorf("more commands than the bound (maxCommands):\n%s%s", strings.Join(over, "\n"), b.String())
	}
	return b.String(), nil
}

// trace logs the last round of who (rpa, the floor) call by call
// (RPA_BENCH_TRACE=1): per action, each command's start after the action's
// start, its method and how long it was awaited, in ms; and when the main
// frame's lifecycle events and navigations reached the proxy ("event
// DOMContentLoaded", no duration).
func trace(tb testing.TB, who string, spans []span, calls []*cdpCall) {
	sort.Slice(calls, func(i, j int) bool { return calls[i].sent.Before(calls[j].sent) })
	var b strings.Builder
	b.WriteString(who)
	for _, s := range spans {
		if s.name == "total" {
			continue
		}
		fmt.Fprintf(&b, "\n%s (%.1f ms)", s.name, float64(s.end.Sub(s.start).Microseconds())/1000)
		for _, c := range calls {
			if c.sent.Before(s.start) || c.sent.After(s.end) {
				continue
			}
			at := float64(c.sent.Sub(s.start).Microseconds()) / 1000
			switch {
			case strings.HasPrefix(c.method, "event "):
				fmt.Fprintf(&b, "\n  +%6.1f %s", at, c.method)
			case c.answer.IsZero():
				fmt.Fprintf(&b, "\n  +%6.1f %-40s %6s", at, c.method, "-")
			default:
				fmt.Fprintf(&b, "\n  +%6.1f %-40s %6.1f", at, c.method, float64(c.answer.Sub(c.sent).Microseconds())/1000)
			}
		}
	}
	tb.Log(b.String())
}
