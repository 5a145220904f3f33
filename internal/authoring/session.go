package authoring

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
	"github.com/rpa-dev/rpa/drivers/snapshot"
	"github.com/rpa-dev/rpa/interp"
)

// Budgets of the answers, in tokens (characters / 4).
const (
	// ChangeTokens bounds the changes an action answers with.
	ChangeTokens = 300
	// PageTokens bounds the snapshot an action answers with when it
	// loaded another page.
	PageTokens = 400
)

// settle bounds how long an action waits for the page to go quiet
// (network idle for settleQuiet) before it looks at the result.
const (
	settle      = 3 * time.Second
	settleQuiet = 250 * time.Millisecond
)

// Session is one authoring session: the log of one profile's actions and
// the last snapshot (refs resolve against the page, diffs against it).
// It is safe for concurrent use, though the MCP server runs one call per
// profile at a time.
type Session struct {
	mu      sync.Mutex
	log     Log
	last    *snapshot.Snapshot
	next    int      // next ref number
	secrets []string // values filled as secrets: masked in every answer
	frames  snapshot.FrameIDs
}

// NewSession returns an empty session.
func NewSession() *Session { return &Session{next: 1} }

// Log returns a copy of the log.
func (s *Session) Log() *Log {
	s.mu.Lock()
	defer s.mu.Unlock()
	return &Log{Entries: append([]Entry(nil), s.log.Entries...)}
}

// Reset empties the log (flow_reset); the page and its refs stay.
func (s *Session) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.Reset()
}

// Secrets are the values filled as secrets in this session.
func (s *Session) Secrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.secrets...)
}

// Mask replaces the session's secret values in text with *** by the rules
// of interp.Mask (their escaped spellings too; a short secret only as a
// whole value, so it neither garbles nor reveals itself).
func (s *Session) Mask(text string) string {
	sec := s.Secrets()
	if len(sec) == 0 {
		return text
	}
	m := &interp.Mask{}
	for _, v := range sec {
		m.Add(v)
	}
	return m.String(text)
}

// Add appends an entry to the log and returns its step number.
func (s *Session) Add(e Entry) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.Add(e)
}

// Snapshot takes a snapshot of pg (scope: a ref or CSS selector, "" for
// the page), keeps it as the base of the next diff and renders it within
// maxTokens.
func (s *Session) Snapshot(ctx context.Context, pg drivers.Page, scope string, maxTokens int) (string, error) {
	snap, err := s.take(ctx, pg, scope)
	if err != nil {
		return "", err
	}
	if scope == "" {
		s.mu.Lock()
		s.last = snap
		s.mu.Unlock()
	}
	return s.Mask(snap.Render(maxTokens)), nil
}

// take snapshots pg, retrying once when the document was being replaced.
func (s *Session) take(ctx context.Context, pg drivers.Page, scope string) (*snapshot.Snapshot, error) {
	s.mu.Lock()
	start := s.next
	s.mu.Unlock()
	var snap *snapshot.Snapshot
	var err error
	for try := 0; try < 3; try++ {
		snap, err = snapshot.Take(ctx, pg, snapshot.Options{Scope: scope, Start: start, Frames: &s.frames})
		var se *snapshot.ScopeError
		if err == nil || errors.As(err, &se) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.next = max(s.next, snap.Next)
	s.mu.Unlock()
	return snap, nil
}

// RefError is a ref that names no element of the page now.
type RefError struct{ Ref, Msg string }

// Error says why the ref names no element and what to do.
func (e *RefError) Error() string { return e.Msg }

var refRE = regexp.MustCompile(`^(e|f\d+e)\d+$`)

// findRef is the selectorgen find expression of a ref.
const findRef = `(globalThis.__rpaRefs ? globalThis.__rpaRefs.get(a[0]) : null)`

// Locate finds the element of ref (from the last snapshot), computes its
// selector fallback list and frame path at this moment, and locates it
// again through those selectors with the checks of the action (so the
// action goes through what replay will use). The Element is what the log
// keeps.
func (s *Session) Locate(ctx context.Context, pg drivers.Page, ref string, want drivers.Checks) (drivers.Element, *Element, error) {
	if !refRE.MatchString(ref) {
		return nil, nil, &RefError{ref, fmt.Sprintf("%q is not a ref (refs look like e12 or f1e7; take a browser_snapshot)", ref)}
	}
	var path [][]string
	if strings.HasPrefix(ref, "f") {
		path = s.frames.Path(ref[:strings.Index(ref, "e")+1])
		if path == nil {
			return nil, nil, &RefError{ref, fmt.Sprintf("ref %s is not known: take a browser_snapshot", ref)}
		}
	}
	var f drivers.Frame = pg
	if len(path) > 0 {
		var err error
		if f, err = snapshot.Enter(ctx, pg, path); err != nil {
			return nil, nil, fmt.Errorf("the frame of %s: %w", ref, err)
		}
	}
	tg, err := selectorgen.Of(ctx, f, findRef, selectorgen.DefaultMax, ref)
	if err != nil {
		return nil, nil, err
	}
	if tg == nil || len(tg.Selectors) == 0 {
		return nil, nil, &RefError{ref, fmt.Sprintf("ref %s is not on the page any more: take a new browser_snapshot", ref)}
	}
	// a frame path the page could compute reaches from the top document;
	// across another origin (nil) the one the snapshot found stands
	full := tg.Frames
	if full == nil {
		full = path
	}
	af := drivers.Frame(pg)
	if len(full) > 0 {
		if af, err = snapshot.Enter(ctx, pg, full); err != nil {
			return nil, nil, fmt.Errorf("the frame of %s: %w", ref, err)
		}
	}
	el, _, err := af.Locate(ctx, tg.Selectors, want)
	if err != nil && core.KindOf(err) == core.KindBrowser && ctx.Err() == nil {
		// a DevTools object of a document that was just replaced (after
		// back, a bfcache restore): look once more
		el, _, err = af.Locate(ctx, tg.Selectors, want)
	}
	if err != nil {
		return nil, nil, err
	}
	return el, &Element{Selectors: tg.Selectors, Frames: full, Desc: tg.Desc}, nil
}

// Outcome is what an action did: its step in the log and the answer for
// the agent (the page's changes, or a small snapshot of a new page).
type Outcome struct {
	Step int
	Text string
}

// Action describes one authoring action for Do.
type Action struct {
	// Entry is logged when the action succeeds (Target and NavURL are
	// filled in by Do).
	Entry Entry
	// Ref is the element acted on ("" for page actions); Checks what it
	// must pass first (drivers.ForPointer, ForInput...).
	Ref    string
	Checks drivers.Checks
	// Run does the action; el is nil without Ref.
	Run func(ctx context.Context, el drivers.Element) error
	// Secret is a value to mask from now on (a secret fill).
	Secret string
	// Prepare, when set, runs after the element was located and before
	// Run; it may change the action (a password field makes a fill
	// secret).
	Prepare func(ctx context.Context, el drivers.Element, a *Action) error
}

// Do runs an action on pg: locate its element, run it, let the page
// settle, log it with the navigation it caused, and describe the result.
func (s *Session) Do(ctx context.Context, pg drivers.Page, a Action) (*Outcome, error) {
	var el drivers.Element
	if a.Ref != "" {
		var target *Element
		var err error
		if el, target, err = s.Locate(ctx, pg, a.Ref, a.Checks); err != nil {
			return nil, err
		}
		a.Entry.Target = target
	}
	before, _ := pg.URL(ctx)
	if a.Prepare != nil {
		if err := a.Prepare(ctx, el, &a); err != nil {
			return nil, err
		}
	}
	if s.baseMissing() {
		// diffs need a base: the page as it was before the action
		if snap, err := s.take(ctx, pg, ""); err == nil {
			s.mu.Lock()
			s.last = snap
			s.mu.Unlock()
		}
	}
	if a.Secret != "" {
		s.mu.Lock()
		s.secrets = append(s.secrets, a.Secret)
		s.mu.Unlock()
	}
	if err := a.Run(ctx, el); err != nil {
		return nil, err
	}
	return s.after(ctx, pg, before, a.Entry)
}

func (s *Session) baseMissing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last == nil
}

// After logs entry, done on pg (which was at before), and describes the
// result. Callers that run an action themselves (open, tab) use it.
func (s *Session) After(ctx context.Context, pg drivers.Page, before string, e Entry) (*Outcome, error) {
	return s.after(ctx, pg, before, e)
}

func (s *Session) after(ctx context.Context, pg drivers.Page, before string, e Entry) (*Outcome, error) {
	sctx, cancel := context.WithTimeout(ctx, settle)
	_ = pg.WaitIdle(sctx, settleQuiet)
	cancel()
	now, _ := pg.URL(ctx)
	if e.Kind != KindOpen && e.Kind != KindBack && e.Kind != KindTab && now != "" && stripFragment(now) != stripFragment(before) {
		e.NavURL = now
	}
	s.mu.Lock()
	if s.log.Len() == 0 && e.Kind != KindOpen && strings.HasPrefix(before, "http") {
		// the session starts on a page opened before it (or before
		// flow_reset): the flow opens it first
		s.log.Add(Entry{Kind: KindOpen, URL: before})
	}
	s.mu.Unlock()
	step := s.Add(e)
	snap, err := s.take(ctx, pg, "")
	head := fmt.Sprintf("step %d: %s", step, e.Describe())
	if err != nil {
		return &Outcome{Step: step, Text: s.Mask(head + "\n(no snapshot: " + err.Error() + ")\n")}, nil
	}
	s.mu.Lock()
	old := s.last
	s.last = snap
	s.mu.Unlock()
	var body string
	switch {
	case old == nil || old.URL != snap.URL || e.Kind == KindOpen || e.Kind == KindTab:
		body = snap.Render(PageTokens)
	default:
		d := snapshot.Diff(old, snap, ChangeTokens)
		if d == "" {
			body = "no visible change\n"
		} else {
			body = "changes:\n" + d
		}
	}
	return &Outcome{Step: step, Text: s.Mask(head + "\n" + body)}, nil
}

func stripFragment(u string) string {
	if pu, err := url.Parse(u); err == nil {
		pu.Fragment = ""
		return pu.String()
	}
	return u
}

// ParamName checks a param name given at an action.
func ParamName(name string) error {
	if !identRE.MatchString(name) {
		return fmt.Errorf("param %q is not a name ([A-Za-z_][A-Za-z0-9_]*)", name)
	}
	return nil
}

// SecretParamName is the param a secret fill becomes when the agent named
// none: the field's name attribute, else "password" (numbered when taken).
func (s *Session) SecretParamName(fieldName string) string {
	base := "password"
	if identRE.MatchString(fieldName) {
		base = strings.ToLower(fieldName)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	used := map[string]bool{}
	for _, e := range s.log.Entries {
		if e.Param != "" {
			used[e.Param] = true
		}
	}
	name := base
	for i := 2; used[name]; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	return name
}
