// Package recorder records a person's browser session as a flow (`rpa
// record`). It opens Chromium (visible by default) and listens through the
// DevTools protocol: a script added to every document and frame
// (Page.addScriptToEvaluateOnNewDocument, see record.js, after the shared
// selector generator of package selectorgen) reports clicks,
// the final value of each field (never every keystroke, never a password),
// selects, checks, Enter/Tab/Escape, uploads, with a selector fallback
// list checked to match exactly one element, back to Go through a binding
// (Runtime.addBinding). Navigations come from Page.frameNavigated: one the
// page asked for (Page.frameRequestedNavigation: a link, a form, a script)
// is a consequence of the last action, one it did not (the address bar) is
// an `open`. New tabs are followed (Target.targetCreated), closed ones
// noted. importer.FromRecording turns the steps into the flow.
package recorder

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"
	"github.com/go-rod/rod/lib/proto"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
	"github.com/rpa-dev/rpa/internal/authoring/importer"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

//go:embed record.js
var recordJS string

// bindingName is the function record.js calls with each action as JSON.
const bindingName = "__rpaRecord"

// Param is one `--param NAME=SELECTOR`: the value typed or chosen in a field
// matching SELECTOR (CSS) becomes the flow param NAME, defaulting to the
// recorded value.
type Param struct {
	Name, Selector string
}

// Options configure a recording session.
type Options struct {
	// URL is where the session starts (an `open` of the flow).
	URL string
	// Name is the flow NAME ([a-z][a-z0-9_]*).
	Name string
	// UserDataDir is the browser profile (drivers.ProfileDir(id) for
	// --profile); "" uses a temporary one, removed at the end.
	UserDataDir string
	// Headless hides the window (tests, CI); the default shows it.
	Headless bool
	// Params turn matching fields into params.
	Params []Param
	// Bin is the Chromium binary ("" finds it as drivers/rod does).
	Bin string
}

// Session is a running recording.
type Session struct {
	opts    Options
	browser *rod.Browser
	cmd     *exec.Cmd
	kill    func()
	exited  chan struct{}
	tmpDir  string
	// tmpDone removes the temporary profile (drivers.TempProfile);
	// lock is the hold on a named profile (drivers.ClaimProfile).
	tmpDone func()
	lock    *drivers.ProfileLock
	ws      string
	mainID  string
	script  string
	done    chan struct{}
	doneOne sync.Once

	mu        sync.Mutex
	steps     []importer.RecordedStep
	pages     map[proto.TargetTargetID]*rod.Page
	attached  map[proto.TargetTargetID]bool
	requested map[proto.PageFrameID]bool // frames that asked for a navigation
	ctxFrame  map[proto.RuntimeExecutionContextID]proto.PageFrameID
	parent    map[proto.PageFrameID]proto.PageFrameID
	stopped   bool
	inflight  sync.WaitGroup // steps whose frame path is being resolved
}

// Start launches Chromium, opens opts.URL in its first tab and records
// until Stop. The browser closing (the last tab, or the process) closes
// Done.
func Start(ctx context.Context, opts Options) (*Session, error) {
	if opts.URL == "" {
		return nil, errors.New("record: no URL to start from")
	}
	if opts.Name == "" {
		opts.Name = "recorded"
	}
	cfg, _ := json.Marshal(map[string]any{"params": paramsJSON(opts.Params)})
	s := &Session{opts: opts, done: make(chan struct{}), exited: make(chan struct{}),
		pages: map[proto.TargetTargetID]*rod.Page{}, attached: map[proto.TargetTargetID]bool{}, requested: map[proto.PageFrameID]bool{},
		ctxFrame: map[proto.RuntimeExecutionContextID]proto.PageFrameID{}, parent: map[proto.PageFrameID]proto.PageFrameID{},
		script: selectorgen.Script + "\n" + strings.Replace(recordJS, "__RPA_CONFIG__", string(cfg), 1)}
	// The profile lives under $RPA_HOME (PROTOCOL.md): a named one is
	// claimed (another rpa process using it is refused, a browser left on
	// it by a killed rpa ended), without a name a temporary one under
	// $RPA_HOME/tmp is used and removed.
	dir := opts.UserDataDir
	if dir == "" {
		tmp, done, err := drivers.TempProfile()
		if err != nil {
			return nil, err
		}
		s.tmpDir, s.tmpDone, dir = tmp, done, tmp
	} else {
		lock, err := drivers.ClaimProfile(dir)
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		s.lock = lock
	}
	if err := s.launch(ctx, dir); err != nil {
		s.cleanup()
		return nil, err
	}
	if err := s.watch(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func paramsJSON(ps []Param) []map[string]string {
	out := []map[string]string{}
	for _, p := range ps {
		out = append(out, map[string]string{"name": p.Name, "selector": p.Selector})
	}
	return out
}

// launch starts the browser with drivers/rod's flags and connects rod.
func (s *Session) launch(ctx context.Context, dir string) error {
	bin, err := rodd.FindBrowser(s.opts.Bin)
	if err != nil {
		return err
	}
	args, err := rodd.Args(drivers.LaunchOptions{UserDataDir: dir, Show: !s.opts.Headless})
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	cmd := exec.Command(bin, append(args, "about:blank")...)
	setProcessGroup(cmd)
	parser := launcher.NewURLParser()
	cmd.Stdout = io.Discard
	cmd.Stderr = parser
	// The browser dies with this process (rodd.StartBrowser).
	if err := rodd.StartBrowser(cmd); err != nil {
		return fmt.Errorf("record: launch %s: %w", bin, err)
	}
	s.cmd = cmd
	go func() { _ = cmd.Wait(); close(s.exited); s.finish() }()
	s.kill = func() {
		killProcessGroup(cmd)
		_ = cmd.Process.Kill()
	}
	var u string
	select {
	case u = <-parser.URL:
	case <-s.exited:
		return fmt.Errorf("record: %s exited at start", bin)
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(30 * time.Second):
		return errors.New("record: the browser did not report its DevTools URL within 30s")
	}
	ws, err := launcher.ResolveURL(u)
	if err != nil {
		return err
	}
	s.ws = ws
	b := rod.New().ControlURL(ws)
	if err := b.Connect(); err != nil {
		return fmt.Errorf("record: connect: %w", err)
	}
	s.browser = b
	return nil
}

// ControlURL is the DevTools WebSocket URL of the recording browser (for
// tests that drive it as a person would).
func (s *Session) ControlURL() string { return s.ws }

// MainTarget is the first tab's target id.
func (s *Session) MainTarget() string { return s.mainID }

// Done is closed when the browser is gone (its last tab or window closed,
// or the process ended).
func (s *Session) Done() <-chan struct{} { return s.done }

func (s *Session) finish() { s.doneOne.Do(func() { close(s.done) }) }

// watch follows every tab and opens the start URL in the first.
func (s *Session) watch(ctx context.Context) error {
	// the first tab is known before any event is handled
	targets, err := proto.TargetGetTargets{}.Call(s.browser)
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
		t, err := proto.TargetCreateTarget{URL: "about:blank"}.Call(s.browser)
		if err != nil {
			return err
		}
		main = t.TargetID
	}
	s.mainID = string(main)
	go s.browser.EachEvent(
		func(e *proto.TargetTargetCreated) {
			if e.TargetInfo.Type == proto.TargetTargetInfoTypePage && string(e.TargetInfo.TargetID) != s.mainID {
				if e.TargetInfo.OpenerID == "" {
					s.add(importer.RecordedStep{Kind: "newtab", Time: time.Now().UnixMilli(), Target: string(e.TargetInfo.TargetID)})
				}
				go s.attach(e.TargetInfo.TargetID, false)
			}
		},
		func(e *proto.TargetTargetDestroyed) {
			s.mu.Lock()
			_, ours := s.pages[e.TargetID]
			delete(s.pages, e.TargetID)
			left := len(s.pages)
			if ours && string(e.TargetID) != s.mainID && !s.stopped {
				s.steps = append(s.steps, importer.RecordedStep{Kind: "close", Time: time.Now().UnixMilli(), Target: string(e.TargetID)})
			}
			s.mu.Unlock()
			if ours && left == 0 {
				s.finish()
			}
		},
	)()
	if err := (proto.TargetSetDiscoverTargets{Discover: true}).Call(s.browser); err != nil {
		return err
	}
	p, err := s.attach(main, true)
	if err != nil {
		return err
	}
	_, err = proto.PageNavigate{URL: s.opts.URL}.Call(p)
	if err != nil {
		return fmt.Errorf("record: open %s: %w", s.opts.URL, err)
	}
	return nil
}

// payload is what record.js sends.
type payload struct {
	Kind      string          `json:"kind"`
	Time      int64           `json:"time"`
	URL       string          `json:"url"`
	Selectors []string        `json:"selectors"`
	Frames    [][]string      `json:"frames"`
	Value     string          `json:"value"`
	Key       string          `json:"key"`
	Secret    bool            `json:"secret"`
	Param     string          `json:"param"`
	Desc      string          `json:"desc"`
	Field     importer.Field  `json:"field"`
	Raw       json.RawMessage `json:"-"`
}

// attach sets up recording in one tab: the binding, the script for every
// new document, the script in the current one (a popup may have loaded
// already), and its events.
func (s *Session) attach(id proto.TargetTargetID, main bool) (*rod.Page, error) {
	s.mu.Lock()
	if s.attached[id] {
		// Target.setDiscoverTargets reports the tabs that exist already:
		// the first tab may come here twice
		p := s.pages[id]
		s.mu.Unlock()
		return p, nil
	}
	s.attached[id] = true
	s.mu.Unlock()
	p, err := s.browser.PageFromTarget(id)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.pages[id] = p
	s.mu.Unlock()
	target := string(id)
	go p.EachEvent(
		func(e *proto.RuntimeBindingCalled) {
			if e.Name != bindingName {
				return
			}
			var pl payload
			if json.Unmarshal([]byte(e.Payload), &pl) != nil || pl.Kind == "click2" {
				return
			}
			st := importer.RecordedStep{Kind: pl.Kind, Time: pl.Time, Target: target, URL: pl.URL,
				Selectors: pl.Selectors, Frames: pl.Frames, Value: pl.Value, Key: pl.Key, Secret: pl.Secret,
				Param: pl.Param, Field: pl.Field, Desc: pl.Desc}
			if st.Secret {
				st.Value = ""
			}
			if len(st.Selectors) == 0 && st.Kind != "press" {
				return
			}
			if pl.Frames == nil {
				// inside a cross-origin frame, where the page cannot see its
				// iframe elements: ask each parent document
				s.inflight.Add(1)
				go func() {
					defer s.inflight.Done()
					st.Frames = s.framePath(p, e.ExecutionContextID)
					s.add(st)
				}()
				return
			}
			s.add(st)
		},
		func(e *proto.RuntimeExecutionContextCreated) {
			if id, ok := e.Context.AuxData["frameId"]; ok {
				s.mu.Lock()
				s.ctxFrame[e.Context.ID] = proto.PageFrameID(id.Str())
				s.mu.Unlock()
			}
		},
		func(e *proto.PageFrameAttached) {
			s.mu.Lock()
			s.parent[e.FrameID] = e.ParentFrameID
			s.mu.Unlock()
		},
		func(e *proto.PageFrameRequestedNavigation) {
			s.mu.Lock()
			s.requested[e.FrameID] = true
			s.mu.Unlock()
		},
		func(e *proto.PageFrameNavigated) {
			if e.Frame.ParentID != "" {
				s.mu.Lock()
				s.parent[e.Frame.ID] = e.Frame.ParentID
				s.mu.Unlock()
				return
			}
			s.mu.Lock()
			asked := s.requested[e.Frame.ID]
			delete(s.requested, e.Frame.ID)
			s.mu.Unlock()
			kind := "nav"
			if asked {
				kind = "pagenav"
			}
			s.add(importer.RecordedStep{Kind: kind, Time: time.Now().UnixMilli(), Target: target, URL: e.Frame.URL})
		},
	)()
	if err := (proto.RuntimeEnable{}).Call(p); err != nil {
		return nil, err
	}
	if err := (proto.RuntimeAddBinding{Name: bindingName}).Call(p); err != nil {
		return nil, err
	}
	if _, err := (proto.PageAddScriptToEvaluateOnNewDocument{Source: s.script}).Call(p); err != nil {
		return nil, err
	}
	if tree, err := (proto.PageGetFrameTree{}).Call(p); err == nil {
		s.mu.Lock()
		var walk func(t *proto.PageFrameTree)
		walk = func(t *proto.PageFrameTree) {
			for _, c := range t.ChildFrames {
				s.parent[c.Frame.ID] = t.Frame.ID
				walk(c)
			}
		}
		walk(tree.FrameTree)
		s.mu.Unlock()
	}
	if !main {
		_, _ = proto.RuntimeEvaluate{Expression: s.script}.Call(p)
	}
	return p, nil
}

func (s *Session) add(st importer.RecordedStep) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.steps = append(s.steps, st)
	}
}

// framePath returns the selector lists of the iframes around the document
// of execution context cid, outermost first: for each frame, its owner
// element is found (DOM.getFrameOwner) and its parent document's own
// record.js names it. nil when a link of the chain cannot be resolved.
func (s *Session) framePath(p *rod.Page, cid proto.RuntimeExecutionContextID) [][]string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pc := p.Context(ctx)
	s.mu.Lock()
	f := s.ctxFrame[cid]
	s.mu.Unlock()
	var out [][]string
	for f != "" {
		s.mu.Lock()
		parent := s.parent[f]
		s.mu.Unlock()
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
		res, err := proto.RuntimeCallFunctionOn{ObjectID: obj.Object.ObjectID, ReturnByValue: true,
			FunctionDeclaration: `function () { const w = this.ownerDocument.defaultView; return w.__rpaSel ? w.__rpaSel(this) : []; }`}.Call(pc)
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

// Stop reports the fields typed into and not yet reported, closes the
// browser and returns the flow.
func (s *Session) Stop() (*ast.File, diag.Diagnostics) {
	s.mu.Lock()
	pages := make([]*rod.Page, 0, len(s.pages))
	for _, p := range s.pages {
		pages = append(pages, p)
	}
	s.mu.Unlock()
	for _, p := range pages {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, _ = proto.RuntimeEvaluate{Expression: "window.__rpaFlush && window.__rpaFlush()"}.Call(p.Context(ctx))
		cancel()
	}
	if len(pages) > 0 {
		time.Sleep(200 * time.Millisecond) // binding events in flight
	}
	waited := make(chan struct{})
	go func() { s.inflight.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
	}
	s.mu.Lock()
	s.stopped = true
	steps := append([]importer.RecordedStep(nil), s.steps...)
	s.mu.Unlock()
	s.Close()
	return importer.FromRecording(&importer.Recording{Name: s.opts.Name, StartURL: s.opts.URL, MainTab: s.mainID, Steps: steps})
}

// Steps returns a copy of what was recorded so far.
func (s *Session) Steps() []importer.RecordedStep {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]importer.RecordedStep(nil), s.steps...)
}

// Close ends the browser without building a flow.
func (s *Session) Close() {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	if s.browser != nil {
		_ = s.browser.Close()
	}
	if s.kill != nil {
		s.kill()
		select {
		case <-s.exited:
		case <-time.After(5 * time.Second):
		}
	}
	s.cleanup()
	s.finish()
}

func (s *Session) cleanup() {
	if s.tmpDone != nil {
		s.tmpDone()
	}
	s.lock.Unlock()
}
