package rod

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
	"github.com/ysmood/gson"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// page is one tab. Its event loop records lifecycle events, dialogs and
// requests in flight; waiters poll those records under mu and sleep on wake.
type page struct {
	*frame
	b        *browser
	rp       *rod.Page
	targetID proto.TargetTargetID

	mu        sync.Mutex
	wake      chan struct{}
	closed    bool
	lifecycle map[proto.NetworkLoaderID]map[string]bool
	loaderSeq map[proto.NetworkLoaderID]int64 // order in which documents were first seen
	seqNext   int64
	navSeq    int64 // main-frame navigations seen (incl. same-document)
	lastNav   navRecord
	// curURL is the top document's URL as the navigation events tell it
	// ("" until the first one is seen: then WaitURL asks the page once)
	curURL   string
	dialogs  []drivers.Dialog
	accept   bool
	text     string
	inflight map[proto.NetworkRequestID]bool
	lastNet  time.Time
	// midLoad: the tab's document was loading, or loaded, before the
	// driver attached and enabled the network events, so requests it
	// started before then are not in inflight; cleared when a later
	// document starts. firstLoad and firstIdle are when its load and
	// networkIdle lifecycle events were seen (netQuiet).
	midLoad              bool
	firstLoad, firstIdle time.Time
	popMark              int64
	// docSeq counts the top documents the tab navigated to (main-frame
	// frameNavigated); healDoc is the docSeq of the document last seen to
	// hold the healing helper (healNeeded), -1 for none
	docSeq, healDoc int64
	stopLoop        context.CancelFunc
	ready           func() error // waits for the set-up calls of init
}

type navRecord struct {
	seq      int64
	loaderID proto.NetworkLoaderID
	sameDoc  bool
	restored bool // back/forward cache
}

func newPage(b *browser, rp *rod.Page) *page {
	p := &page{
		b:         b,
		rp:        rp,
		targetID:  rp.TargetID,
		wake:      make(chan struct{}),
		lifecycle: map[proto.NetworkLoaderID]map[string]bool{},
		loaderSeq: map[proto.NetworkLoaderID]int64{},
		inflight:  map[proto.NetworkRequestID]bool{},
		lastNet:   time.Now(),
		midLoad:   true,
		healDoc:   -1,
	}
	p.frame = &frame{rp: rp, pg: p}
	p.frame.prime()
	return p
}

// init starts the event loop and, concurrently, enables the domains the
// driver needs; ready waits for the latter.
func (p *page) init(ctx context.Context) {
	lctx, cancel := context.WithCancel(context.Background())
	p.stopLoop = cancel
	events := p.rp.Context(lctx).Event()
	go p.loop(events)
	rp := p.rp.Context(ctx)
	calls := []func() error{
		func() error { return proto.PageSetLifecycleEventsEnabled{Enabled: true}.Call(rp) },
		func() error { return proto.NetworkEnable{}.Call(rp) },
		func() error { return engineInit(rp) },
		func() error {
			return proto.EmulationSetDeviceMetricsOverride{Width: ViewportWidth, Height: ViewportHeight, DeviceScaleFactor: 1}.Call(rp)
		},
	}
	errs := make(chan error, len(calls))
	for _, c := range calls {
		go func() { errs <- c() }()
	}
	var once sync.Once
	var first error
	p.ready = func() error {
		once.Do(func() {
			for range calls {
				if err := <-errs; err != nil && first == nil {
					first = err
				}
			}
			if first != nil {
				cancel()
				first = wrapErr(ctx, "set up tab", first)
			}
		})
		return first
	}
}

func (p *page) notify() {
	close(p.wake)
	p.wake = make(chan struct{})
}

func (p *page) markClosed() {
	p.mu.Lock()
	p.closed = true
	p.notify()
	p.mu.Unlock()
}

func (p *page) stop() {
	if p.stopLoop != nil {
		p.stopLoop()
	}
	p.markClosed()
}

func (p *page) loop(events <-chan *rod.Message) {
	main := proto.PageFrameID(p.targetID)
	for msg := range events {
		switch msg.Method {
		case "Page.lifecycleEvent":
			var e proto.PageLifecycleEvent
			if msg.Load(&e) && e.FrameID == main {
				p.mu.Lock()
				m := p.lifecycle[e.LoaderID]
				if m == nil {
					m = map[string]bool{}
					p.lifecycle[e.LoaderID] = m
					p.seqNext++
					p.loaderSeq[e.LoaderID] = p.seqNext
				}
				m[string(e.Name)] = true
				if p.midLoad {
					switch e.Name {
					case "init":
						if !p.firstLoad.IsZero() {
							p.midLoad = false // a later document: its requests are all seen
						}
					case "load":
						p.firstLoad = time.Now()
					case "networkIdle":
						p.firstIdle = time.Now()
					}
				}
				if e.Name == "init" {
					// a new document started loading
					if len(p.lifecycle) > 16 { // forget old documents
						for l := range p.lifecycle {
							if l != e.LoaderID {
								delete(p.lifecycle, l)
								delete(p.loaderSeq, l)
							}
						}
					}
				}
				p.notify()
				p.mu.Unlock()
			}
		case "Page.frameNavigated":
			var e proto.PageFrameNavigated
			if msg.Load(&e) && e.Frame != nil && e.Frame.ParentID == "" {
				p.mu.Lock()
				p.navSeq++
				p.docSeq++
				p.lastNav = navRecord{seq: p.navSeq, loaderID: e.Frame.LoaderID,
					restored: e.Type == proto.PageNavigationTypeBackForwardCacheRestore}
				p.curURL = e.Frame.URL + e.Frame.URLFragment
				p.notify()
				p.mu.Unlock()
			}
		case "Page.navigatedWithinDocument":
			var e proto.PageNavigatedWithinDocument
			if msg.Load(&e) && e.FrameID == main {
				p.mu.Lock()
				p.navSeq++
				p.lastNav = navRecord{seq: p.navSeq, sameDoc: true}
				p.curURL = e.URL
				p.notify()
				p.mu.Unlock()
			}
		case "Network.requestWillBeSent":
			var e proto.NetworkRequestWillBeSent
			if msg.Load(&e) {
				p.mu.Lock()
				if !strings.HasPrefix(e.Request.URL, "data:") {
					p.inflight[e.RequestID] = true
				}
				p.lastNet = time.Now()
				p.notify()
				p.mu.Unlock()
			}
		case "Network.loadingFinished", "Network.loadingFailed", "Network.requestServedFromCache":
			var id proto.NetworkRequestID
			switch msg.Method {
			case "Network.loadingFinished":
				var e proto.NetworkLoadingFinished
				if msg.Load(&e) {
					id = e.RequestID
				}
			case "Network.loadingFailed":
				var e proto.NetworkLoadingFailed
				if msg.Load(&e) {
					id = e.RequestID
				}
			}
			if id != "" {
				p.mu.Lock()
				delete(p.inflight, id)
				p.lastNet = time.Now()
				p.notify()
				p.mu.Unlock()
			}
		}
	}
}

// dialog records a dialog of this tab and answers it by the policy on
// session sid, the one that reported it (called from the browser's event
// loop, which sees dialogs of tabs still being attached too).
func (p *page) dialog(sid proto.TargetSessionID, e *proto.PageJavascriptDialogOpening) {
	p.mu.Lock()
	p.dialogs = append(p.dialogs, drivers.Dialog{Type: string(e.Type), Message: e.Message})
	accept, text := p.accept, p.text
	p.notify()
	p.mu.Unlock()
	answerDialog(session{p.b.rb, sid}, e, accept, text)
}

// sessionCtx is a session with a context for its calls.
type sessionCtx struct {
	session
	ctx context.Context
}

// GetContext implements proto.Contextable.
func (s sessionCtx) GetContext() context.Context { return s.ctx }

// session is a proto client for one CDP session (usable before rod's page
// exists).
type session struct {
	b   *rod.Browser
	sid proto.TargetSessionID
}

// Call sends a command on the session.
func (s session) Call(ctx context.Context, _, method string, params any) ([]byte, error) {
	return s.b.Call(ctx, string(s.sid), method, params)
}

// GetSessionID implements proto.Sessionable.
func (s session) GetSessionID() proto.TargetSessionID { return s.sid }

// answerDialog answers e (in the background: the call returns once the
// page runs again).
func answerDialog(s session, e *proto.PageJavascriptDialogOpening, accept bool, text string) {
	if e.Type != proto.PageDialogTypePrompt {
		text = ""
	} else if text == "" {
		text = e.DefaultPrompt
	}
	if e.Type == proto.PageDialogTypeBeforeunload {
		accept = true // leaving is what the flow asked for
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = proto.PageHandleJavaScriptDialog{Accept: accept, PromptText: text}.Call(sessionCtx{s, ctx})
	}()
}

// healNeeded returns the tab's current document (its docSeq) and whether
// a locate that takes a fingerprint should bring the healing helper along
// (engineWithHeal): when that document was not seen to hold it yet.
func (p *page) healNeeded() (doc int64, bring bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.docSeq, p.healDoc != p.docSeq
}

// healSeen notes that document doc (healNeeded) holds the healing helper.
func (p *page) healSeen(doc int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.healDoc = doc
}

// waitFor calls cond under p.mu until it is true or ctx ends.
func (p *page) waitFor(ctx context.Context, cond func() bool) error {
	return waitOn(ctx, &p.mu, &p.closed, &p.wake, func() error { return core.Errorf(core.KindBrowser, "tab closed") }, cond)
}

func (p *page) hasLifecycle(l proto.NetworkLoaderID, name string) bool {
	m := p.lifecycle[l]
	return m != nil && (m[name] || (name == "DOMContentLoaded" && m["load"]))
}

// loadedSince reports whether document l, or a document that replaced it
// (a script redirect before l finished), reached DOMContentLoaded.
func (p *page) loadedSince(l proto.NetworkLoaderID) bool {
	if p.hasLifecycle(l, "DOMContentLoaded") {
		return true
	}
	seq, ok := p.loaderSeq[l]
	if !ok {
		return false
	}
	for other, s := range p.loaderSeq {
		if s > seq && p.hasLifecycle(other, "DOMContentLoaded") {
			return true
		}
	}
	return false
}

// Navigate opens url and waits for the new document's DOMContentLoaded.
func (p *page) Navigate(ctx context.Context, url string) error {
	res, err := proto.PageNavigate{URL: url}.Call(p.rp.Context(ctx))
	if err != nil {
		return navErr(ctx, url, err)
	}
	if res.ErrorText != "" {
		return &core.Error{Kind: core.KindNavigation, Msg: fmt.Sprintf("open %s: %s", core.Shown(url), res.ErrorText)}
	}
	if res.LoaderID == "" { // same-document navigation
		return nil
	}
	err = p.waitFor(ctx, func() bool { return p.loadedSince(res.LoaderID) })
	if err != nil {
		return navErr(ctx, url, err)
	}
	return nil
}

func navErr(ctx context.Context, url string, err error) error {
	var de *core.Error
	if errors.As(err, &de) {
		return err
	}
	if ctx.Err() != nil {
		return &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("open %s: page did not reach DOMContentLoaded in time", core.Shown(url)), Err: ctx.Err()}
	}
	if connLost(err) {
		return &core.Error{Kind: core.KindBrowser, Msg: fmt.Sprintf("open %s: the browser is gone (connection lost)", core.Shown(url)), Err: err}
	}
	return &core.Error{Kind: core.KindNavigation, Msg: fmt.Sprintf("open %s: %v", core.Shown(url), err), Err: err}
}

// historyNav runs do (a history navigation or reload) and waits for the
// main frame's next document to reach DOMContentLoaded (a same-document or
// back-forward-cache navigation counts at once).
func (p *page) historyNav(ctx context.Context, what string, do func() error) error {
	p.mu.Lock()
	start := p.navSeq
	p.mu.Unlock()
	if err := do(); err != nil {
		return navErr(ctx, what, err)
	}
	var nav navRecord
	err := p.waitFor(ctx, func() bool {
		if p.navSeq > start {
			nav = p.lastNav
			return true
		}
		return false
	})
	if err != nil {
		return navErr(ctx, what, err)
	}
	if nav.sameDoc || nav.restored {
		return nil
	}
	if err := p.waitFor(ctx, func() bool { return p.loadedSince(nav.loaderID) }); err != nil {
		return navErr(ctx, what, err)
	}
	return nil
}

func (p *page) historyStep(ctx context.Context, delta int) error {
	what := "back"
	if delta > 0 {
		what = "forward"
	}
	h, err := proto.PageGetNavigationHistory{}.Call(p.rp.Context(ctx))
	if err != nil {
		return navErr(ctx, what, err)
	}
	i := h.CurrentIndex + delta
	if i < 0 || i >= len(h.Entries) {
		return &core.Error{Kind: core.KindNavigation, Msg: what + ": no page in that direction of the history"}
	}
	return p.historyNav(ctx, what, func() error {
		return proto.PageNavigateToHistoryEntry{EntryID: h.Entries[i].ID}.Call(p.rp.Context(ctx))
	})
}

// Back goes one entry back in the tab's history.
func (p *page) Back(ctx context.Context) error { return p.historyStep(ctx, -1) }

// Forward goes one entry forward in the tab's history.
func (p *page) Forward(ctx context.Context) error { return p.historyStep(ctx, 1) }

// Reload reloads the document and waits for DOMContentLoaded.
func (p *page) Reload(ctx context.Context) error {
	return p.historyNav(ctx, "reload", func() error { return proto.PageReload{}.Call(p.rp.Context(ctx)) })
}

// URL is the top document's URL.
func (p *page) URL(ctx context.Context) (string, error) {
	v, err := p.evalValue(ctx, `() => location.href`)
	if err != nil {
		return "", err
	}
	return v.Str(), nil
}

// Title is the top document's title.
func (p *page) Title(ctx context.Context) (string, error) {
	v, err := p.evalValue(ctx, `() => document.title`)
	if err != nil {
		return "", err
	}
	return v.Str(), nil
}

// MatchURL reports whether url matches pattern: a substring, or after
// "re:" a Go regexp (RE2).
func MatchURL(pattern, url string) (bool, error) {
	if rest, ok := strings.CutPrefix(pattern, "re:"); ok {
		re, err := regexp.Compile(rest)
		if err != nil {
			return false, fmt.Errorf("bad url pattern %q: %w", pattern, err)
		}
		return re.MatchString(url), nil
	}
	return strings.Contains(url, pattern), nil
}

// docStateJS reports [href, state] of a document, where state is "loading"
// until DOMContentLoaded has fired and its handlers have run. readyState
// alone turns "interactive" before deferred scripts run and before
// DOMContentLoaded, so a click right after it can beat the page's own
// handlers (seen on the demo app's Query form); Navigation Timing's
// domContentLoadedEventEnd is set only once DOMContentLoaded is done.
const docStateJS = `() => {
	const s = document.readyState;
	if (s !== "interactive") return [location.href, s];
	const n = performance.getEntriesByType("navigation")[0];
	return [location.href, !n || n.domContentLoadedEventEnd > 0 ? s : "loading"];
}`

// WaitURL waits until the top document's URL matches pattern and that
// document reached DOMContentLoaded. It waits on the navigation and
// lifecycle events of the tab (no polling, no round trip); only until the
// tab's first navigation event was seen (a tab attached after it loaded)
// it asks the page. A same-document or back-forward-cache navigation is
// loaded when it happens.
func (p *page) WaitURL(ctx context.Context, pattern string) error {
	if _, err := MatchURL(pattern, ""); err != nil {
		return err
	}
	last := ""
	watch := newSettle(p.frame, []string{pattern})
	var looked time.Time
	for {
		p.mu.Lock()
		known, cur, nav := p.curURL != "", p.curURL, p.lastNav
		ready := known && (nav.sameDoc || nav.restored || p.loadedSince(nav.loaderID))
		w := p.wake
		p.mu.Unlock()
		if known {
			last = cur
			if ok, _ := MatchURL(pattern, cur); ok && ready {
				return nil
			}
		} else {
			v, err := p.evalValue(ctx, docStateJS)
			if err == nil {
				if arr := v.Arr(); len(arr) == 2 {
					last = arr[0].Str()
					if ok, _ := MatchURL(pattern, last); ok && arr[1].Str() != "loading" {
						return nil
					}
				}
			}
		}
		// a page that settled into a sign-in page, an error or an HTTP
		// error document will not go on to the URL (looked at once a
		// slice, while the network is quiet)
		if q := p.netQuiet(); q >= settleAfter && time.Since(looked) >= slice {
			looked = time.Now()
			if ps := watch.check(ctx, 0); ps.Verdict() {
				return verdictErr(core.KindTimeout, fmt.Sprintf("url did not match %q (last %s)", pattern, last), ps)
			}
		}
		tick := time.After(slice)
		if !known {
			tick = time.After(50 * time.Millisecond)
		}
		select {
		case <-ctx.Done():
		case <-w:
		case <-tick:
		}
		if ctx.Err() != nil {
			break
		}
	}
	var cause error = ctx.Err()
	if last != "" {
		cause = &drivers.SeenError{Seen: "the URL is " + last, Err: ctx.Err()}
	}
	return &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("url did not match %q (last %s)", pattern, last), Err: cause}
}

// WaitIdle waits until no request has been in flight for quiet, counted
// from the call at the earliest (so a request whose event is still on its
// way is seen).
func (p *page) WaitIdle(ctx context.Context, quiet time.Duration) error {
	start := time.Now()
	for {
		p.mu.Lock()
		n := len(p.inflight)
		last := p.lastNet
		if last.Before(start) {
			last = start
		}
		since := time.Since(last)
		w := p.wake
		p.mu.Unlock()
		if n == 0 && since >= quiet {
			return nil
		}
		var tick <-chan time.Time
		if n == 0 {
			tick = time.After(quiet - since)
		}
		select {
		case <-ctx.Done():
			return &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("network not idle: %d requests in flight", n), Err: ctx.Err()}
		case <-w:
		case <-tick:
		}
	}
}

// Screenshot returns a PNG of the viewport or the full page.
// A full-page shot captures beyond the viewport without resizing it (so
// 100vh layouts and the page's own resize handlers are left alone).
func (p *page) Screenshot(ctx context.Context, full bool) ([]byte, error) {
	rp := p.rp.Context(ctx)
	req := proto.PageCaptureScreenshot{Format: proto.PageCaptureScreenshotFormatPng}
	if full {
		m, err := proto.PageGetLayoutMetrics{}.Call(rp)
		if err != nil {
			return nil, wrapErr(ctx, "screenshot", err)
		}
		if m.CSSContentSize != nil && m.CSSContentSize.Width >= 1 && m.CSSContentSize.Height >= 1 {
			req.Clip = &proto.PageViewport{Width: m.CSSContentSize.Width, Height: m.CSSContentSize.Height, Scale: 1}
			req.CaptureBeyondViewport = true
		}
	}
	res, err := req.Call(rp)
	if err != nil {
		return nil, wrapErr(ctx, "screenshot", err)
	}
	return res.Data, nil
}

// SetDialogPolicy sets how the next dialogs are answered.
func (p *page) SetDialogPolicy(accept bool, text string) {
	p.mu.Lock()
	p.accept, p.text = accept, text
	p.mu.Unlock()
}

// Dialogs lists the dialogs seen so far, oldest first.
func (p *page) Dialogs() []drivers.Dialog {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]drivers.Dialog(nil), p.dialogs...)
}

// MarkPopups forgets popups seen so far.
func (p *page) MarkPopups() {
	p.b.mu.Lock()
	p.mu.Lock()
	p.popMark = p.b.seq
	p.mu.Unlock()
	p.b.mu.Unlock()
}

// WaitPopup waits for a tab opened by this page after the mark and returns
// it once its first real document reached DOMContentLoaded.
func (p *page) WaitPopup(ctx context.Context) (drivers.Page, error) {
	p.mu.Lock()
	mark := p.popMark
	p.mu.Unlock()
	var found popup
	err := p.b.waitFor(ctx, func() bool {
		for _, c := range p.b.popups[p.targetID] {
			if c.seq > mark {
				found = c
				return true
			}
		}
		for _, c := range p.b.orphan {
			if c.seq > mark && c.id != p.targetID && !p.b.own[c.id] {
				found = c
				return true
			}
		}
		return false
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, &core.Error{Kind: core.KindTimeout, Msg: "no new tab was opened", Err: ctx.Err()}
		}
		return nil, err
	}
	p.mu.Lock()
	p.popMark = found.seq
	p.mu.Unlock()
	np, err := p.b.pageFor(ctx, found.id)
	if err != nil {
		return nil, err
	}
	if err := np.waitFirstDocument(ctx, ""); err != nil {
		return np, err
	}
	return np, nil
}

// waitFirstDocument waits until the tab left the initial about:blank
// (unless about:blank is where it goes) and its document reached
// DOMContentLoaded. target is the URL it was opened with ("" = unknown: read
// it from the target info).
func (p *page) waitFirstDocument(ctx context.Context, target string) error {
	start := time.Now()
	for {
		if target == "" {
			info, err := proto.TargetGetTargetInfo{TargetID: p.targetID}.Call(p.rp.Context(ctx))
			if err != nil {
				return wrapErr(ctx, "new tab", err)
			}
			if info.TargetInfo.URL != "about:blank" && info.TargetInfo.URL != "" {
				target = info.TargetInfo.URL
			}
		}
		v, err := p.evalValue(ctx, docStateJS)
		if err == nil {
			arr := v.Arr()
			href, state := arr[0].Str(), arr[1].Str()
			if strings.HasPrefix(href, "chrome-error://") {
				return &core.Error{Kind: core.KindNavigation, Msg: fmt.Sprintf("open %s: the page could not be loaded", core.Shown(target))}
			}
			blank := href == "about:blank"
			wantBlank := target == "about:blank" || (target == "" && time.Since(start) > time.Second)
			if state != "loading" && (!blank || wantBlank) {
				return nil
			}
		} else if ctx.Err() != nil {
			return &core.Error{Kind: core.KindTimeout, Msg: "new tab did not load in time", Err: ctx.Err()}
		}
		p.mu.Lock()
		w := p.wake
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return &core.Error{Kind: core.KindTimeout, Msg: "new tab did not load in time", Err: ctx.Err()}
		case <-w:
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Close closes the tab.
func (p *page) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.b.mu.Lock()
	if p.b.closing == nil {
		p.b.closing = map[proto.TargetTargetID]bool{}
	}
	p.b.closing[p.targetID] = true
	p.b.mu.Unlock()
	_, err := proto.TargetCloseTarget{TargetID: p.targetID}.Call(p.b.rb.Context(ctx))
	p.stop()
	p.b.mu.Lock()
	delete(p.b.pages, p.targetID)
	p.b.mu.Unlock()
	if err != nil {
		return wrapErr(ctx, "close tab", err)
	}
	return nil
}

// evalValue evaluates js in the top document and returns its JSON value.
// It uses Runtime.evaluate, which always runs in the tab's current
// document (no object ids that a back-forward-cache restore can leave
// stale), and retries while a navigation replaces the document.
func (p *page) evalValue(ctx context.Context, js string) (gson.JSON, error) {
	for attempt := 0; ; attempt++ {
		res, err := proto.RuntimeEvaluate{Expression: "(" + js + ")()", ReturnByValue: true, AwaitPromise: true}.Call(p.rp.Context(ctx))
		if err == nil && res.ExceptionDetails != nil {
			err = &rod.EvalError{RuntimeExceptionDetails: res.ExceptionDetails}
		}
		if err != nil {
			// "Could not find object with given id" is transient here too:
			// this evaluation holds no object id, so it is the document
			// being swapped under it (a back/forward-cache restore).
			if attempt < 20 && ctx.Err() == nil && (transientEvalErr(err) || strings.Contains(err.Error(), "Could not find object with given id")) {
				if core.Sleep(ctx, 20*time.Millisecond) == nil {
					continue
				}
			}
			return gson.JSON{}, wrapErr(ctx, "evaluate", err)
		}
		return res.Result.Value, nil
	}
}
