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
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/check"
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
	// bound is the accessible name each ref had when a snapshot showed it:
	// Locate acts on a ref only while its element still has that name (a
	// page that rebinds a ref, or swaps the element, is caught).
	bound map[string]string
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
	if s.bound == nil {
		s.bound = map[string]string{}
	}
	for _, l := range snap.Lines {
		if l.Ref != "" {
			s.bound[l.Ref] = l.Name
		}
	}
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
	s.mu.Lock()
	name, seen := s.bound[ref]
	s.mu.Unlock()
	if seen && tg.Name != name {
		return nil, nil, &RefError{ref, fmt.Sprintf("ref %s was %s %q in the snapshot, but its element is %s now: take a new browser_snapshot",
			ref, tg.Role, clipName(name), tg.Desc)}
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

// clipName keeps a name short in a message.
func clipName(n string) string {
	if r := []rune(n); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return n
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
	before := readDoc(ctx, pg)
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
	return s.after(ctx, pg, docState{URL: before}, e)
}

// docState is what the session reads of the tab's document around an
// action: its URL, its identity (performance.timeOrigin: another document
// has another; 0 when unknown) and how many fetch/XHR requests it has
// finished (Resource Timing).
type docState struct {
	URL      string
	Origin   float64
	Requests int
}

const docStateJS = `() => [location.href, performance.timeOrigin,
	performance.getEntriesByType("resource").filter((e) => e.initiatorType === "fetch" || e.initiatorType === "xmlhttprequest").length]`

// readDoc reads pg's docState (only the URL when the page cannot answer,
// as while a document is being replaced).
func readDoc(ctx context.Context, pg drivers.Page) docState {
	if v, err := pg.Eval(ctx, docStateJS); err == nil {
		if a, ok := v.([]any); ok && len(a) == 3 {
			u, _ := a[0].(string)
			o, _ := a[1].(float64)
			n, _ := a[2].(float64)
			return docState{URL: u, Origin: o, Requests: int(n)}
		}
	}
	u, _ := pg.URL(ctx)
	return docState{URL: u}
}

// caused records in e what the action did to the tab, from the document
// before it to the one now: a new document (NavURL; also at the same
// URL), a same-document URL change (NavURL and SameDoc), the fetch/XHR
// requests it finished.
func caused(e *Entry, before, now docState) {
	if e.Kind == KindOpen || e.Kind == KindBack || e.Kind == KindTab || now.URL == "" {
		return
	}
	e.From = before.URL
	known := before.Origin != 0 && now.Origin != 0
	newDoc := known && now.Origin != before.Origin
	switch {
	case newDoc:
		e.NavURL = now.URL
	case stripFragment(now.URL) != stripFragment(before.URL):
		e.NavURL, e.SameDoc = now.URL, known
	}
	e.Requests = now.Requests
	if known && !newDoc {
		e.Requests -= before.Requests
	}
	e.Requests = max(e.Requests, 0)
}

// appearedMax bounds the elements recorded as appeared by an action, and
// appearedTries the added lines looked at for them.
const (
	appearedMax   = 3
	appearedTries = 12
)

// appeared lists elements of cur, the page after an action, that old
// showed nowhere (no element of the same role and name: snapshot.Appeared),
// each as the one selector that names it by role and name, unique on the
// page (`aria/Log Out[role="link"]`): what a content wait can wait for,
// which did not match before the action whatever else changed. Elements
// of the top document only, in document order; not messages that come and
// go (alerts, status lines, dialogs) and not names with digits in them
// (dates, counters).
func (s *Session) appeared(ctx context.Context, pg drivers.Page, old, cur *snapshot.Snapshot) []Element {
	if old == nil || cur == nil {
		return nil
	}
	var out []Element
	tried := 0
	for _, l := range snapshot.Appeared(old, cur) {
		head := l.Head()
		if l.Ref == "" || !strings.HasPrefix(l.Ref, "e") || fleeting.MatchString(head) || strings.ContainsAny(head, "0123456789") {
			continue
		}
		if tried++; tried > appearedTries || len(out) == appearedMax {
			break
		}
		tg, err := selectorgen.Of(ctx, pg, findRef, 0, l.Ref)
		if err != nil || tg == nil || len(tg.Frames) > 0 {
			continue
		}
		for _, sel := range tg.Selectors {
			if strings.HasPrefix(sel, "aria/") && strings.Contains(sel, "[role=") {
				out = append(out, Element{Selectors: []string{sel}, Desc: tg.Desc})
				break
			}
		}
	}
	return out
}

// fleeting are the roles of messages that come and go.
var fleeting = regexp.MustCompile(`^(alert|alertdialog|dialog|status|log|marquee|timer|progressbar|tooltip)\b`)

func (s *Session) after(ctx context.Context, pg drivers.Page, before docState, e Entry) (*Outcome, error) {
	sctx, cancel := context.WithTimeout(ctx, settle)
	_ = pg.WaitIdle(sctx, settleQuiet)
	cancel()
	caused(&e, before, readDoc(ctx, pg))
	s.mu.Lock()
	if s.log.Len() == 0 && e.Kind != KindOpen && strings.HasPrefix(before.URL, "http") {
		// the session starts on a page opened before it (or before
		// flow_reset): the flow opens it first
		s.log.Add(Entry{Kind: KindOpen, URL: before.URL})
	}
	s.mu.Unlock()
	snap, err := s.take(ctx, pg, "")
	if err != nil {
		step := s.Add(e)
		head := fmt.Sprintf("step %d: %s", step, e.Describe())
		return &Outcome{Step: step, Text: s.Mask(head + "\n(no snapshot: " + err.Error() + ")\n")}, nil
	}
	s.mu.Lock()
	old := s.last
	s.last = snap
	s.mu.Unlock()
	if e.NavURL != "" || e.Requests > 0 { // what a content wait can wait for
		e.Appeared = s.appeared(ctx, pg, old, snap)
	}
	step := s.Add(e)
	head := fmt.Sprintf("step %d: %s", step, e.Describe())
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

// ParamName checks a param name given at an action: an identifier, not
// BaseURLParam, not a reserved word (check.Reserved); the error names it.
func ParamName(name string) error {
	if !check.IsIdent(name) {
		return fmt.Errorf("param %s is not a name ([A-Za-z_][A-Za-z0-9_]*)", lang.Echo(name))
	}
	if name == BaseURLParam {
		return fmt.Errorf("param %q is the site's address, which every authored flow has: name this value otherwise", name)
	}
	if check.Reserved[name] {
		return fmt.Errorf("param %q is reserved (a word of the language or a builtin): name this value otherwise", name)
	}
	return nil
}

// BaseURLParam is the param every authored flow gets for the origin of the
// first page it opened; a step's value never takes its name (it would
// merge into it: the field would be filled with the site's address).
const BaseURLParam = "base_url"

// SecretParamName is the param a secret fill becomes when the agent named
// none: the field's name attribute, else "password" (numbered when taken).
func (s *Session) SecretParamName(fieldName string) string {
	base := "password"
	if identRE.MatchString(fieldName) && strings.ToLower(fieldName) != BaseURLParam {
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
