package rod

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// This file is the evidence side of the driver (drivers.Inspector,
// drivers.ProblemWatcher): what a run records when it fails. The
// accessibility snapshot is package snapshot.

var (
	_ drivers.Inspector      = (*frame)(nil)
	_ drivers.ProblemWatcher = (*page)(nil)
	_ drivers.Thumbnailer    = (*page)(nil)
)

// Thumbnail is a JPEG of the viewport at most maxW wide
// (drivers.Thumbnailer); Chromium scales and encodes it.
func (p *page) Thumbnail(ctx context.Context, maxW, q int) ([]byte, error) {
	rp := p.rp.Context(ctx)
	m, err := proto.PageGetLayoutMetrics{}.Call(rp)
	if err != nil {
		return nil, wrapErr(ctx, "screenshot", err)
	}
	clip := &proto.PageViewport{Width: ViewportWidth, Height: ViewportHeight, Scale: 1}
	if v := m.CSSVisualViewport; v != nil && v.ClientWidth >= 1 && v.ClientHeight >= 1 {
		clip.X, clip.Y, clip.Width, clip.Height = v.PageX, v.PageY, v.ClientWidth, v.ClientHeight
	}
	if maxW > 0 && float64(maxW) < clip.Width {
		clip.Scale = float64(maxW) / clip.Width
	}
	res, err := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatJpeg, Quality: &q, Clip: clip}.Call(rp)
	if err != nil {
		return nil, wrapErr(ctx, "screenshot", err)
	}
	return res.Data, nil
}

// Diagnose looks once at each selector (drivers.Inspector).
func (f *frame) Diagnose(ctx context.Context, sels []string, want drivers.Checks) ([]drivers.SelectorReport, error) {
	out := make([]drivers.SelectorReport, 0, len(sels))
	var roots []any
	if needsRoots(sels) {
		roots, _ = f.closedRoots(ctx)
	}
	for _, sel := range sels {
		rep := drivers.SelectorReport{Selector: sel}
		// A short slice lets the stability check see two frames.
		args := append([]any{[]string{sel}, int(want &^ hints), 250}, roots...)
		res, err := f.call(ctx, nil, false, "locate", args...)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			de := engineErr(err)
			if de == nil {
				return out, wrapErr(ctx, "diagnose", err)
			}
			rep.Kind, rep.Reason = core.KindBrowser, de.Msg
		case res.Type == proto.RuntimeRemoteObjectTypeString:
			kind, msg, _ := strings.Cut(res.Value.Str(), "\t")
			rep.Kind, rep.Reason = core.Kind(kind), msg
		default:
			rep.Reason = "passes now"
		}
		if rep.Kind != core.KindBrowser {
			if err := f.measure(ctx, sel, roots, &rep); err != nil && ctx.Err() != nil {
				return out, ctx.Err()
			}
		}
		out = append(out, rep)
	}
	return out, nil
}

// measure fills rep.Count and rep.Box from the selector's matches.
func (f *frame) measure(ctx context.Context, sel string, roots []any, rep *drivers.SelectorReport) error {
	arr, err := f.call(ctx, nil, false, "all", append([]any{sel}, roots...)...)
	if err != nil || arr.ObjectID == "" {
		return err
	}
	defer func() {
		_ = proto.RuntimeReleaseObject{ObjectID: arr.ObjectID}.Call(f.rp.Context(context.Background()))
	}()
	res, err := evaluate(f.rp.Context(ctx), &rod.EvalOptions{ByValue: true, ThisObj: arr,
		JS: `function () {
			const el = this[0];
			if (!el) return { n: 0 };
			const r = el.getBoundingClientRect();
			return { n: this.length, x: r.x, y: r.y, w: r.width, h: r.height };
		}`})
	if err != nil {
		return err
	}
	v := res.Value
	rep.Count = v.Get("n").Int()
	if rep.Count > 0 && v.Get("w").Num() > 0 && v.Get("h").Num() > 0 {
		rep.Box = &drivers.Box{X: v.Get("x").Num(), Y: v.Get("y").Num(), W: v.Get("w").Num(), H: v.Get("h").Num()}
	}
	return nil
}

// maxProblems bounds what a page keeps.
const maxProblems = 200

// watcher records one page's problems.
type watcher struct {
	mu       sync.Mutex
	problems []drivers.Problem
	urls     map[proto.NetworkRequestID]string
}

var watchers sync.Map // *page → *watcher

// WatchProblems starts recording console errors, uncaught exceptions and
// failed requests (drivers.ProblemWatcher).
func (p *page) WatchProblems(ctx context.Context) error {
	w := &watcher{urls: map[proto.NetworkRequestID]string{}}
	if _, loaded := watchers.LoadOrStore(p, w); loaded {
		return nil
	}
	lctx, cancel := context.WithCancel(context.Background())
	events := p.rp.Context(lctx).Event()
	go w.loop(p, events, cancel)
	if err := (proto.RuntimeEnable{}).Call(p.rp.Context(ctx)); err != nil {
		cancel()
		watchers.Delete(p)
		return wrapErr(ctx, "watch the console", err)
	}
	return nil
}

// Problems returns what WatchProblems recorded (drivers.ProblemWatcher).
func (p *page) Problems() []drivers.Problem {
	v, ok := watchers.Load(p)
	if !ok {
		return nil
	}
	w := v.(*watcher)
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]drivers.Problem(nil), w.problems...)
}

func (w *watcher) add(pr drivers.Problem) {
	pr.Time = time.Now().UTC()
	if r := []rune(pr.Text); len(r) > 500 {
		pr.Text = string(r[:499]) + "…"
	}
	w.mu.Lock()
	if len(w.problems) >= maxProblems {
		w.problems = append(w.problems[:0], w.problems[1:]...)
	}
	w.problems = append(w.problems, pr)
	w.mu.Unlock()
}

func (w *watcher) loop(p *page, events <-chan *rod.Message, cancel context.CancelFunc) {
	defer cancel()
	defer watchers.Delete(p)
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	for {
		var msg *rod.Message
		var ok bool
		select {
		case msg, ok = <-events:
			if !ok {
				return
			}
		case <-tick.C:
			p.mu.Lock()
			closed := p.closed
			p.mu.Unlock()
			if closed {
				return
			}
			continue
		}
		switch msg.Method {
		case "Runtime.consoleAPICalled":
			var e proto.RuntimeConsoleAPICalled
			if msg.Load(&e) && (e.Type == proto.RuntimeConsoleAPICalledTypeError || e.Type == proto.RuntimeConsoleAPICalledTypeAssert) {
				parts := make([]string, 0, len(e.Args))
				for _, a := range e.Args {
					switch {
					case a.Value.Nil() && a.Description != "":
						parts = append(parts, a.Description)
					default:
						s := a.Value.Str()
						if s == "" {
							s = a.Value.JSON("", "")
						}
						parts = append(parts, s)
					}
				}
				w.add(drivers.Problem{Kind: "console", Text: strings.Join(parts, " ")})
			}
		case "Runtime.exceptionThrown":
			var e proto.RuntimeExceptionThrown
			if msg.Load(&e) && e.ExceptionDetails != nil {
				d := e.ExceptionDetails
				text := d.Text
				if d.Exception != nil && d.Exception.Description != "" {
					text, _, _ = strings.Cut(d.Exception.Description, "\n    at ")
				}
				w.add(drivers.Problem{Kind: "exception", Text: text, URL: d.URL})
			}
		case "Network.requestWillBeSent":
			var e proto.NetworkRequestWillBeSent
			if msg.Load(&e) && e.Request != nil {
				w.mu.Lock()
				if len(w.urls) < 5000 {
					w.urls[e.RequestID] = e.Request.URL
				}
				w.mu.Unlock()
			}
		case "Network.responseReceived":
			var e proto.NetworkResponseReceived
			if msg.Load(&e) && e.Response != nil && e.Response.Status >= 400 && !strings.HasSuffix(e.Response.URL, "/favicon.ico") {
				w.add(drivers.Problem{Kind: "network", Text: fmt.Sprintf("%d %s", e.Response.Status, e.Response.StatusText),
					URL: e.Response.URL, Status: e.Response.Status})
			}
		case "Network.loadingFinished":
			var e proto.NetworkLoadingFinished
			if msg.Load(&e) {
				w.mu.Lock()
				delete(w.urls, e.RequestID)
				w.mu.Unlock()
			}
		case "Network.loadingFailed":
			var e proto.NetworkLoadingFailed
			if msg.Load(&e) {
				w.mu.Lock()
				u := w.urls[e.RequestID]
				delete(w.urls, e.RequestID)
				w.mu.Unlock()
				if e.Canceled {
					continue // navigations away cancel requests: not a problem
				}
				w.add(drivers.Problem{Kind: "network", Text: e.ErrorText, URL: u})
			}
		}
	}
}
