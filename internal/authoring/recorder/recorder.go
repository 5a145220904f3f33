// Package recorder records a person's browser session as a flow (`rpa
// record`). It opens Chromium (visible by default) through drivers/rod's
// recording browser (rod.Record), which runs a script in every document
// and frame of every tab: record.js, after the shared selector generator
// of package selectorgen, reports clicks, the final value of each field
// (never every keystroke, never a password), selects, checks,
// Enter/Tab/Escape, uploads, with a selector fallback list checked to match
// exactly one element. A navigation the page asked for (a link, a form, a
// script) is a consequence of the last action, one it did not (the address
// bar) is an `open`. New tabs are followed, closed ones noted.
// importer.FromRecording turns the steps into the flow.
package recorder

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
	"github.com/rpa-dev/rpa/internal/authoring/importer"
	"github.com/rpa-dev/rpa/internal/host/profiles"
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
	// UserDataDir is the browser profile (profiles.Dir(id) for
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
	opts Options
	rec  *rodd.Recording
	// tmpDone removes the temporary profile (profiles.Temp);
	// lock is the hold on a named profile (profiles.Claim).
	tmpDone func()
	lock    *profiles.Lock

	mu       sync.Mutex
	steps    []importer.RecordedStep
	stopped  bool
	inflight sync.WaitGroup // steps whose frame path is being resolved
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
	s := &Session{opts: opts}
	// The profile lives under $RPA_HOME (PROTOCOL.md): a named one is
	// claimed (another rpa process using it is refused, a browser left on
	// it by a killed rpa ended), without a name a temporary one under
	// $RPA_HOME/tmp is used and removed.
	dir := opts.UserDataDir
	if dir == "" {
		tmp, done, err := profiles.Temp()
		if err != nil {
			return nil, err
		}
		s.tmpDone, dir = done, tmp
	} else {
		lock, err := profiles.Claim(dir)
		if err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
		s.lock = lock
	}
	rec, err := rodd.Record(ctx, rodd.RecordOptions{
		Launch:  drivers.LaunchOptions{Bin: opts.Bin, UserDataDir: dir, Show: !opts.Headless},
		URL:     opts.URL,
		Script:  selectorgen.Script() + "\n" + strings.Replace(recordJS, "__RPA_CONFIG__", string(cfg), 1),
		Binding: bindingName,
		Control: opts.Headless, // a headless session is driven by the person's script
		// the parent document's own record.js names the iframe
		FrameOwner: `function () { const w = this.ownerDocument.defaultView; return w.__rpaSel ? w.__rpaSel(this) : []; }`,
	}, s.event)
	if err != nil {
		s.cleanup()
		return nil, fmt.Errorf("record: %w", err)
	}
	s.rec = rec
	return s, nil
}

func paramsJSON(ps []Param) []map[string]string {
	out := []map[string]string{}
	for _, p := range ps {
		out = append(out, map[string]string{"name": p.Name, "selector": p.Selector})
	}
	return out
}

// ControlURL is the control endpoint of a headless recording browser
// (ws+unix://SOCKET:/devtools/browser, rodd.ConnectControl), for a script
// or test that drives it as a person would; "" with a window.
func (s *Session) ControlURL() string { return s.rec.ControlURL() }

// MainTarget is the first tab's target id.
func (s *Session) MainTarget() string { return s.rec.MainTab() }

// Done is closed when the browser is gone (its last tab or window closed,
// or the process ended).
func (s *Session) Done() <-chan struct{} { return s.rec.Done() }

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

// event turns what the recording browser reports into steps.
func (s *Session) event(e rodd.RecordEvent) {
	now := time.Now().UnixMilli()
	switch e.Kind {
	case rodd.RecordNewTab:
		if !e.Asked { // opened by the person; one a page opened follows from its action
			s.add(importer.RecordedStep{Kind: "newtab", Time: now, Target: e.Tab})
		}
	case rodd.RecordClosed:
		s.add(importer.RecordedStep{Kind: "close", Time: now, Target: e.Tab})
	case rodd.RecordNav:
		kind := "nav"
		if e.Asked {
			kind = "pagenav"
		}
		s.add(importer.RecordedStep{Kind: kind, Time: now, Target: e.Tab, URL: e.URL})
	case rodd.RecordCall:
		var pl payload
		if json.Unmarshal([]byte(e.Payload), &pl) != nil || pl.Kind == "click2" {
			return
		}
		st := importer.RecordedStep{Kind: pl.Kind, Time: pl.Time, Target: e.Tab, URL: pl.URL,
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
				st.Frames = e.FramePath()
				s.add(st)
			}()
			return
		}
		s.add(st)
	}
}

func (s *Session) add(st importer.RecordedStep) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.steps = append(s.steps, st)
	}
}

// Stop reports the fields typed into and not yet reported, closes the
// browser and returns the flow.
func (s *Session) Stop() (*ast.File, diag.Diagnostics) {
	if s.rec.EvalAll("window.__rpaFlush && window.__rpaFlush()", 2*time.Second) {
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
	return importer.FromRecording(&importer.Recording{Name: s.opts.Name, StartURL: s.opts.URL, MainTab: s.rec.MainTab(), Steps: steps})
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
	s.rec.Close()
	s.cleanup()
}

func (s *Session) cleanup() {
	if s.tmpDone != nil {
		s.tmpDone()
	}
	s.lock.Unlock()
}
