package rod

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/cdp"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
)

// RecordOptions start a browser that records a person's session
// (internal/authoring/recorder, `rpa record`): every tab it opens is
// followed, Script runs in every document and frame of each, and what the
// page reports through the function Binding comes back as RecordCall
// events.
type RecordOptions struct {
	// Launch says which browser and profile (Bin, UserDataDir, Show;
	// OnExit is called once the browser process has exited). Remote is
	// not supported: a recording needs a browser of its own.
	Launch drivers.LaunchOptions
	// URL is opened in the first tab.
	URL string
	// Script is added to every new document of every followed tab and run
	// in the current one of a tab opened after the first (a popup may have
	// loaded already).
	Script string
	// Binding is the name of the page function Script calls with each
	// report (Runtime.addBinding).
	Binding string
	// FrameOwner is a JS function declaration called with `this` bound to
	// an iframe element, in its parent document: it returns the iframe's
	// selector fallback list (for RecordEvent.FramePath).
	FrameOwner string
	// Control serves the browser's DevTools connection to the person's
	// script on a private Unix socket (ControlURL): never a TCP port.
	Control bool
}

// RecordEventKind says what a RecordEvent reports.
type RecordEventKind string

// The kinds of RecordEvent.
const (
	RecordCall   RecordEventKind = "call"   // Script called Binding
	RecordNav    RecordEventKind = "nav"    // a tab's top document navigated
	RecordNewTab RecordEventKind = "newtab" // a tab opened (not the first)
	RecordClosed RecordEventKind = "closed" // a followed tab closed (not the first)
)

// RecordEvent is one thing the recording browser reports. Tab is the
// tab's target id.
type RecordEvent struct {
	Kind RecordEventKind
	Tab  string
	// Payload is the string Script passed to Binding (RecordCall).
	Payload string
	// FramePath returns the selector lists (FrameOwner) of the iframes
	// around the document that called, outermost first; nil when a link
	// of the chain cannot be resolved (RecordCall). It costs DevTools
	// round trips: call it only for a report that needs it (a
	// cross-origin frame, where the page cannot see its iframe).
	FramePath func() [][]string
	// URL is the top document's new address (RecordNav).
	URL string
	// Asked says the page asked for the navigation (a link, a form, a
	// script) rather than the person (the address bar) (RecordNav); for
	// RecordNewTab, that a page opened the tab.
	Asked bool
}

// Recording is a running recording browser.
type Recording struct {
	opts    RecordOptions
	on      func(RecordEvent)
	browser *rod.Browser
	cmd     *exec.Cmd
	kill    func()
	exited  chan struct{}
	control *control // the control socket (opts.Control), or nil
	mainID  string
	done    chan struct{}
	doneOne sync.Once

	mu        sync.Mutex
	pages     map[proto.TargetTargetID]*rod.Page
	attached  map[proto.TargetTargetID]bool
	requested map[proto.PageFrameID]bool // frames that asked for a navigation
	ctxFrame  map[proto.RuntimeExecutionContextID]proto.PageFrameID
	parent    map[proto.PageFrameID]proto.PageFrameID
}

// Record launches the browser of opts, opens opts.URL in its first tab and
// reports what happens in it and in every tab opened from it to on (called
// from the recording's goroutines, in the order each tab's events come).
// The browser closing (its last followed tab, or the process) closes
// Done. Close ends it.
func Record(ctx context.Context, opts RecordOptions, on func(RecordEvent)) (*Recording, error) {
	r := &Recording{opts: opts, on: on, done: make(chan struct{}),
		pages: map[proto.TargetTargetID]*rod.Page{}, attached: map[proto.TargetTargetID]bool{}, requested: map[proto.PageFrameID]bool{},
		ctxFrame: map[proto.RuntimeExecutionContextID]proto.PageFrameID{}, parent: map[proto.PageFrameID]proto.PageFrameID{}}
	if err := r.launch(ctx); err != nil {
		r.Close()
		return nil, err
	}
	if err := r.watch(); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// ControlURL is the control endpoint of the recording browser
// (ws+unix://SOCKET:/devtools/browser: a CDP WebSocket on a Unix socket
// in a folder only this user can enter), for a script or test that drives
// it as a person would (ConnectControl; `rpa record --headless` prints
// it); "" without opts.Control.
func (r *Recording) ControlURL() string {
	if r.control == nil {
		return ""
	}
	return r.control.url
}

// MainTab is the first tab's target id.
func (r *Recording) MainTab() string { return r.mainID }

// Done is closed when the browser is gone (its last followed tab closed,
// or the process ended).
func (r *Recording) Done() <-chan struct{} { return r.done }

func (r *Recording) finish() { r.doneOne.Do(func() { close(r.done) }) }

// EvalAll evaluates expr in the current document of every followed tab,
// each bounded by timeout, errors ignored (the recorder's last flush).
// It reports whether any tab was evaluated in.
func (r *Recording) EvalAll(expr string, timeout time.Duration) bool {
	r.mu.Lock()
	pages := make([]*rod.Page, 0, len(r.pages))
	for _, p := range r.pages {
		pages = append(pages, p)
	}
	r.mu.Unlock()
	for _, p := range pages {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		_, _ = proto.RuntimeEvaluate{Expression: expr}.Call(p.Context(ctx))
		cancel()
	}
	return len(pages) > 0
}

// Close ends the browser and waits (at most 5 s) until its process is
// gone; then opts.Launch.OnExit has run. Calling it again does nothing.
func (r *Recording) Close() {
	if r.control != nil {
		r.control.close()
	}
	if r.browser != nil {
		_ = r.browser.Close()
	}
	if r.kill != nil {
		r.kill()
		select {
		case <-r.exited:
		case <-time.After(5 * time.Second):
		}
	}
	r.finish()
}

// launch starts the recording browser and connects rod over its DevTools
// pipe, as every browser of ours (pipe.go): no TCP port. With
// opts.Control its pipe connection is also served to the person's script
// on a private Unix socket (control.go, ControlURL); opts.Launch.OnExit
// runs once its process has exited (or when none was started).
func (r *Recording) launch(ctx context.Context) error {
	exit := sync.OnceFunc(func() {
		if r.opts.Launch.OnExit != nil {
			r.opts.Launch.OnExit()
		}
	})
	lo := r.opts.Launch
	lo.Remote = ""
	bin, err := FindBrowser(lo.Bin)
	if err != nil {
		exit()
		return err
	}
	args, err := Args(lo)
	if err != nil {
		exit()
		return err
	}
	if err := presetPrefs(lo.UserDataDir); err != nil { // prefs.go
		exit()
		return fmt.Errorf("launch: profile preferences: %w", err)
	}
	cmd := exec.Command(bin, append(args, "about:blank")...)
	setProcessGroup(cmd)
	setTempDir(cmd)                               // tmpdir.go
	conn, closeChildEnds, err := attachPipes(cmd) // pipe.go
	if err != nil {
		exit()
		return fmt.Errorf("launch: DevTools pipe: %w", err)
	}
	var tail tailBuf
	cmd.Stdout = io.Discard
	cmd.Stderr = &tail
	if err := StartBrowser(cmd); err != nil { // it dies with this process
		closeChildEnds()
		_ = conn.Close()
		exit()
		return fmt.Errorf("launch %s: %w", bin, err)
	}
	closeChildEnds() // the browser holds them now: its exit ends the pipe
	mux := newCDPMux(conn)
	r.cmd, r.exited = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		killProcessGroup(cmd)
		_ = mux.Close()
		exit()
		close(r.exited)
		r.finish()
	}()
	r.kill = func() {
		killProcessGroup(cmd)
		_ = cmd.Process.Kill()
	}
	// The first call over the pipe answers once the browser is up; its
	// exit ends the pipe; a launch that hangs is ended after 30 s.
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	stop := context.AfterFunc(cctx, func() { _ = mux.Close() })
	b := rod.New().Client(cdp.New().Start(mux)).NoDefaultDevice()
	err = b.Connect()
	stopped := stop()
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return ctx.Err()
	case !stopped:
		return errors.New("the browser did not answer over its DevTools pipe within 30s: " + tail.String())
	default:
		return fmt.Errorf("connect: %w: %s", err, tail.String())
	}
	r.browser = b
	if r.opts.Control {
		c, err := serveControl(mux)
		if err != nil {
			return err
		}
		r.control = c
	}
	return nil
}

// watch follows every tab and opens the start URL in the first.
func (r *Recording) watch() error {
	// the first tab is known before any event is handled
	targets, err := proto.TargetGetTargets{}.Call(r.browser)
	if err != nil {
		return err
	}
	var main proto.TargetTargetID
	for _, t := range targets.TargetInfos {
		if t.Type == proto.TargetTargetInfoTypePage {
			main = t.TargetID
			break
		}
	}
	if main == "" {
		t, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(r.browser)
		if err != nil {
			return err
		}
		main = t.TargetID
	}
	r.mainID = string(main)
	go r.browser.EachEvent(
		func(e *proto.TargetTargetCreated) {
			if e.TargetInfo.Type == proto.TargetTargetInfoTypePage && string(e.TargetInfo.TargetID) != r.mainID {
				r.on(RecordEvent{Kind: RecordNewTab, Tab: string(e.TargetInfo.TargetID), Asked: e.TargetInfo.OpenerID != ""})
				go func() { _, _ = r.attach(e.TargetInfo.TargetID, false) }()
			}
		},
		func(e *proto.TargetTargetDestroyed) {
			r.mu.Lock()
			_, ours := r.pages[e.TargetID]
			delete(r.pages, e.TargetID)
			left := len(r.pages)
			r.mu.Unlock()
			if ours && string(e.TargetID) != r.mainID {
				r.on(RecordEvent{Kind: RecordClosed, Tab: string(e.TargetID)})
			}
			if ours && left == 0 {
				r.finish()
			}
		},
	)()
	if err := (proto.TargetSetDiscoverTargets{Discover: true}).Call(r.browser); err != nil {
		return err
	}
	p, err := r.attach(main, true)
	if err != nil {
		return err
	}
	if _, err := (proto.PageNavigate{URL: r.opts.URL}).Call(p); err != nil {
		return fmt.Errorf("open %s: %w", r.opts.URL, err)
	}
	return nil
}

// attach sets up recording in one tab: the binding, the script for every
// new document, the script in the current one (a popup may have loaded
// already), and its events.
func (r *Recording) attach(id proto.TargetTargetID, main bool) (*rod.Page, error) {
	r.mu.Lock()
	if r.attached[id] {
		// Target.setDiscoverTargets reports the tabs that exist already:
		// the first tab may come here twice
		p := r.pages[id]
		r.mu.Unlock()
		return p, nil
	}
	r.attached[id] = true
	r.mu.Unlock()
	p, err := r.browser.PageFromTarget(id)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.pages[id] = p
	r.mu.Unlock()
	tab := string(id)
	go p.EachEvent(
		func(e *proto.RuntimeBindingCalled) {
			if e.Name != r.opts.Binding {
				return
			}
			cid := e.ExecutionContextID
			r.on(RecordEvent{Kind: RecordCall, Tab: tab, Payload: e.Payload, FramePath: func() [][]string { return r.framePath(p, cid) }})
		},
		func(e *proto.RuntimeExecutionContextCreated) {
			if id, ok := e.Context.AuxData["frameId"]; ok {
				r.mu.Lock()
				r.ctxFrame[e.Context.ID] = proto.PageFrameID(id.Str())
				r.mu.Unlock()
			}
		},
		func(e *proto.PageFrameAttached) {
			r.mu.Lock()
			r.parent[e.FrameID] = e.ParentFrameID
			r.mu.Unlock()
		},
		func(e *proto.PageFrameRequestedNavigation) {
			r.mu.Lock()
			r.requested[e.FrameID] = true
			r.mu.Unlock()
		},
		func(e *proto.PageFrameNavigated) {
			if e.Frame.ParentID != "" {
				r.mu.Lock()
				r.parent[e.Frame.ID] = e.Frame.ParentID
				r.mu.Unlock()
				return
			}
			r.mu.Lock()
			asked := r.requested[e.Frame.ID]
			delete(r.requested, e.Frame.ID)
			r.mu.Unlock()
			r.on(RecordEvent{Kind: RecordNav, Tab: tab, URL: e.Frame.URL, Asked: asked})
		},
	)()
	if err := (proto.RuntimeEnable{}).Call(p); err != nil {
		return nil, err
	}
	if err := (proto.RuntimeAddBinding{Name: r.opts.Binding}).Call(p); err != nil {
		return nil, err
	}
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: r.opts.Script}).Call(p); err != nil {
		return nil, err
	}
	if tree, err := (proto.PageGetFrameTree{}).Call(p); err == nil {
		r.mu.Lock()
		var walk func(t *proto.PageFrameTree)
		walk = func(t *proto.PageFrameTree) {
			for _, c := range t.ChildFrames {
				r.parent[c.Frame.ID] = t.Frame.ID
				walk(c)
			}
		}
		walk(tree.FrameTree)
		r.mu.Unlock()
	}
	if !main {
		_, _ = proto.RuntimeEvaluate{Expression: r.opts.Script}.Call(p)
	}
	return p, nil
}

// framePath returns the selector lists of the iframes around the document
// of execution context cid, outermost first: for each frame, its owner
// element is found (DOM.getFrameOwner) and named by FrameOwner in its
// parent document. nil when a link of the chain cannot be resolved.
func (r *Recording) framePath(p *rod.Page, cid proto.RuntimeExecutionContextID) [][]string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pc := p.Context(ctx)
	r.mu.Lock()
	f := r.ctxFrame[cid]
	r.mu.Unlock()
	var out [][]string
	for f != "" {
		r.mu.Lock()
		parent := r.parent[f]
		r.mu.Unlock()
		if parent == "" {
			break // the top document
		}
		owner, err := proto.DOMGetFrameOwner{FrameID: f}.Call(pc)
		if err != nil {
			return nil
		}
		obj, err := proto.DOMResolveNode{BackendNodeID: owner.BackendNodeID}.Call(pc)
		if err != nil || obj.Object.ObjectID == "" {
			return nil
		}
		res, err := proto.RuntimeCallFunctionOn{ObjectID: obj.Object.ObjectID, ReturnByValue: true, FunctionDeclaration: r.opts.FrameOwner}.Call(pc)
		if err != nil || res.ExceptionDetails != nil {
			return nil
		}
		var sels []string
		if json.Unmarshal([]byte(res.Result.Value.JSON("", "")), &sels) != nil || len(sels) == 0 {
			return nil
		}
		out = append([][]string{sels}, out...)
		f = parent
	}
	return out
}
