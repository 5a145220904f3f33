// Package heal lets flows survive small changes of the pages they drive
// (docs/healing.md). While a flow runs, every page action that finds its
// element leaves a mark: which selector of its fallback list matched and a
// fingerprint of the element (drivers.Fingerprint: tag, id, classes, name,
// type, role and accessible name, text, label, placeholder, key
// attributes, ancestors, neighbours' texts, box; never a field's value).
// When no selector finds the element any more, the page's elements are
// scored against the last good fingerprint in one page evaluation
// (drivers.Healer) and, by the heal mode:
//
//   - off: nothing is recorded or scored;
//   - suggest (the default): the step fails as before, with the best
//     candidates in its result and the failure packet;
//   - auto: the action runs on the best candidate when its score is at
//     least AutoThreshold and ahead of the second by AutoMargin (and it
//     is in the same document); the step is marked healed with the new
//     selector list; otherwise the step fails, saying why it refused;
//   - ask-model: the caller's model (MCP sampling, core.Host.LLM) chooses
//     among the best candidates from a trimmed accessibility snapshot; an
//     answer that is not one of them is refused.
//
// Refusing is always preferred to acting on a doubtful element. Propose
// turns the marks of past runs into a patch of the flow (patch.go).
package heal

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// Mode is a heal mode: `defaults heal:` and the --heal flag.
type Mode string

// Heal modes (LANGUAGE.md, "defaults").
const (
	Off      Mode = "off"
	Suggest  Mode = "suggest"
	Auto     Mode = "auto"
	AskModel Mode = "ask-model"
)

// DefaultMode is the mode when neither the flow nor the host names one.
const DefaultMode = Suggest

// Modes lists the modes in the order the docs give them.
var Modes = []Mode{Off, Suggest, Auto, AskModel}

// Thresholds of the decision (docs/healing.md; tested on both sides in
// heal_test.go).
const (
	// AutoThreshold is the score the best candidate needs for auto to act.
	AutoThreshold = 0.75
	// AutoMargin is how far ahead of the second candidate the best must be
	// for auto to act (a look-alike within the margin means refusing).
	AutoMargin = 0.12
	// SuggestMin is the score below which a candidate is not worth
	// showing: with none at or above it the element is taken as gone.
	SuggestMin = 0.5
	// ModelMin is the score a candidate needs to be offered to the model
	// in ask-model; ModelChoices is how many are offered at most.
	ModelMin     = 0.5
	ModelChoices = 3
	// scoreMax is how many candidates the page returns.
	scoreMax = 5
	// relocateWait bounds the locate of a chosen candidate's selectors.
	relocateWait = 2 * time.Second
)

// ParseMode checks s ("" gives DefaultMode).
func ParseMode(s string) (Mode, error) {
	if s == "" {
		return DefaultMode, nil
	}
	for _, m := range Modes {
		if string(m) == s {
			return m, nil
		}
	}
	return "", fmt.Errorf("heal: %q is not a mode (off, suggest, auto, ask-model)", s)
}

// FlowMode is the mode flow f asks for with `defaults heal:` ("" when it
// names none; the checker has checked the value).
func FlowMode(f *lang.Flow) Mode {
	if f == nil || f.File == nil {
		return ""
	}
	for _, o := range f.File.Defaults {
		if o.Name != "heal" || o.Value == nil {
			continue
		}
		if s, ok := stringLit(o.Value); ok {
			return Mode(s)
		}
	}
	return ""
}

// Resolve is the mode of a run: flag (when set) over the flow's defaults
// over DefaultMode.
func Resolve(flag string, f *lang.Flow) (Mode, error) {
	if flag != "" {
		return ParseMode(flag)
	}
	if m := FlowMode(f); m != "" {
		return ParseMode(string(m))
	}
	return DefaultMode, nil
}

// Store is where marks go: *runs.Store.
type Store interface {
	AddMarks(ms []runs.Mark) error
	LastFingerprint(flow string, line int, sels []string) (json.RawMessage, error)
}

// Hook is one run's stdlib.LocateHook. Install it with
// stdlib.WithLocateHook on the context given to interp.Run and call Flush
// when the run ends.
type Hook struct {
	// Mode is the run's mode; Off makes the hook do nothing.
	Mode Mode
	// Store keeps marks across runs (nil: this run's marks only).
	Store Store
	// Run is the run's ID in the store ("" when none).
	Run string

	mu      sync.Mutex
	wg      sync.WaitGroup // fingerprints being taken
	pending []runs.Mark
	fresh   map[string]*drivers.Fingerprint // this run's, by key
}

// New returns a hook for one run.
func New(mode Mode, store Store, run string) *Hook {
	return &Hook{Mode: mode, Store: store, Run: run, fresh: map[string]*drivers.Fingerprint{}}
}

func key(flow string, sels []string) string {
	return flow + "\x00" + strings.Join(sels, "\x00")
}

// Found fingerprints el (one page evaluation) and keeps a mark.
func (h *Hook) Found(ctx context.Context, c *stdlib.Call, f drivers.Frame, el drivers.Element, sels []string, index int) {
	if h == nil || h.Mode == Off {
		return
	}
	hf, ok := f.(drivers.Healer)
	if !ok {
		return
	}
	// The fingerprint is of the element as the step found it, not as the
	// action left it: the action waits for it, up to fingerprintFirst (a
	// driver may send the action's input right away, its preparation done
	// in the locate: drivers.Aim, PrepFill). A later answer is still
	// kept; Flush waits for it.
	msels := maskSels(c, sels)
	flow, line, at := c.Flow, c.Line, time.Now()
	fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), fingerprintWait)
	taken := make(chan struct{})
	defer func() {
		t := time.NewTimer(fingerprintFirst)
		defer t.Stop()
		select {
		case <-taken:
		case <-t.C:
		case <-ctx.Done():
		}
	}()
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		defer close(taken)
		defer cancel()
		fp, err := hf.Fingerprint(fctx, el)
		if err != nil {
			return // the page moved on (a navigation): no mark this time
		}
		fp = maskFP(c, fp)
		raw, _ := json.Marshal(fp)
		h.mu.Lock()
		h.fresh[key(flow, msels)] = fp
		h.pending = append(h.pending, runs.Mark{Flow: flow, Line: line, Selectors: msels, At: at, Run: h.Run, Matched: index, Fingerprint: raw})
		h.mu.Unlock()
	}()
}

// fingerprintWait bounds one fingerprint's evaluation; fingerprintFirst
// bounds how long the action waits for it.
const (
	fingerprintWait  = 5 * time.Second
	fingerprintFirst = time.Second
)

// Flush waits for the fingerprints being taken and writes the marks kept
// so far to the store.
func (h *Hook) Flush() error {
	if h == nil {
		return nil
	}
	h.wg.Wait()
	if h.Store == nil {
		return nil
	}
	h.mu.Lock()
	ms := h.pending
	h.pending = nil
	h.mu.Unlock()
	return h.Store.AddMarks(ms)
}

// Marks returns the marks not yet flushed (tests), once the fingerprints
// being taken are in.
func (h *Hook) Marks() []runs.Mark {
	h.wg.Wait()
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]runs.Mark(nil), h.pending...)
}

// last returns the newest fingerprint of c's selector list.
func (h *Hook) last(c *stdlib.Call, sels []string) *drivers.Fingerprint {
	h.mu.Lock()
	fp := h.fresh[key(c.Flow, sels)]
	h.mu.Unlock()
	if fp != nil || h.Store == nil {
		return fp
	}
	raw, err := h.Store.LastFingerprint(c.Flow, c.Line, sels)
	if err != nil || len(raw) == 0 {
		return nil
	}
	var out drivers.Fingerprint
	if json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return &out
}

// Missed scores the page against the last fingerprint and decides.
func (h *Hook) Missed(ctx context.Context, c *stdlib.Call, f drivers.Frame, sels []string, want drivers.Checks, lerr error) (drivers.Element, error) {
	if h == nil || h.Mode == Off {
		return nil, lerr
	}
	hf, ok := f.(drivers.Healer)
	if !ok {
		return nil, lerr
	}
	msels := maskSels(c, sels)
	fp := h.last(c, msels)
	if fp == nil {
		h.failed(c, msels, nil)
		return nil, lerr // never found before: nothing to compare with
	}
	cands, err := hf.Candidates(ctx, fp, scoreMax, want&drivers.Visible != 0)
	if err != nil {
		return nil, lerr
	}
	if len(cands) > 0 && cands[0].Score >= SuggestMin {
		// the best candidate's selectors: shown (suggest), acted on (auto)
		if sels, err := hf.CandidateSelectors(ctx, cands[0].Ref); err == nil {
			cands[0].Selectors = sels
		}
	}
	for i := range cands {
		cands[i].Selectors = maskSels(c, cands[i].Selectors)
		cands[i].Desc = maskStr(c, cands[i].Desc)
		if cands[i].Fingerprint != nil {
			cands[i].Fingerprint = maskFP(c, cands[i].Fingerprint)
		}
	}
	d := Decide(h.Mode, cands)
	info := d.Info
	c.Heal = info
	pick := d.Pick
	if h.Mode == AskModel && d.Ask {
		pick = h.askModel(ctx, c, f, fp, cands, info)
	}
	if pick >= 0 {
		if len(cands[pick].Selectors) == 0 {
			sels, err := hf.CandidateSelectors(ctx, cands[pick].Ref)
			if err == nil {
				cands[pick].Selectors = maskSels(c, sels)
			}
		}
		el, err := h.act(ctx, c, f, cands[pick], want, info)
		if err == nil {
			return el, nil
		}
		info.Status, info.Reason = stdlib.HealRefused, err.Error()
	}
	h.failed(c, msels, info)
	return nil, withHeal(lerr, info)
}

// act locates the chosen candidate by its new selectors and marks the
// step healed.
func (h *Hook) act(ctx context.Context, c *stdlib.Call, f drivers.Frame, cand drivers.HealCandidate, want drivers.Checks, info *stdlib.HealInfo) (drivers.Element, error) {
	if cand.Frame > 0 || len(cand.Selectors) == 0 {
		return nil, fmt.Errorf("the candidate %s is in another document; not acted on", cand.Desc)
	}
	lctx, cancel := context.WithTimeout(ctx, relocateWait)
	el, _, err := f.Locate(lctx, cand.Selectors, want)
	cancel()
	if err != nil {
		return nil, fmt.Errorf("the candidate %s could not be used: %v", cand.Desc, err)
	}
	info.Status, info.Selectors, info.Score, info.Desc = stdlib.HealHealed, cand.Selectors, cand.Score, cand.Desc
	raw, _ := json.Marshal(cand.Fingerprint)
	h.mu.Lock()
	if cand.Fingerprint != nil {
		h.fresh[key(c.Flow, maskSels(c, origSels(c)))] = cand.Fingerprint
	}
	h.pending = append(h.pending, runs.Mark{Flow: c.Flow, Line: c.Line, Selectors: maskSels(c, origSels(c)), At: time.Now(), Run: h.Run,
		Matched: runs.MatchedHealed, Healed: cand.Selectors, Score: cand.Score, Fingerprint: raw})
	h.mu.Unlock()
	return el, nil
}

// Blocked keeps a mark saying that nothing matched because of the page (a
// sign-in page, an error, an HTTP error document: st), which `rpa heal`
// does not count against the selectors, and says so in the step's heal
// verdict instead of scoring candidates (stdlib.BlockHook).
func (h *Hook) Blocked(ctx context.Context, c *stdlib.Call, sels []string, st *drivers.PageState) {
	if h == nil || h.Mode == Off || st == nil {
		return
	}
	c.Heal = &stdlib.HealInfo{Mode: string(h.Mode), Status: stdlib.HealRefused,
		Reason: "no candidates looked for: " + maskStr(c, st.Text) + " (the page, not the selectors, is why the step failed)"}
	h.mu.Lock()
	h.pending = append(h.pending, runs.Mark{Flow: c.Flow, Line: c.Line, Selectors: maskSels(c, sels), At: time.Now(), Run: h.Run,
		Matched: runs.MatchedNone, Page: st.Kind})
	h.mu.Unlock()
}

// failed keeps a mark saying that no selector of sels matched (Matched
// MatchedNone): `rpa heal` marks lines whose first selector did not match.
// When healing had a candidate it did not act on (info: suggest mode, or a
// refused heal), the mark holds the best one's selectors and score (Healed,
// Score): the candidate the failure packet shows, which `rpa heal` then
// proposes ("suggested").
func (h *Hook) failed(c *stdlib.Call, sels []string, info *stdlib.HealInfo) {
	m := runs.Mark{Flow: c.Flow, Line: c.Line, Selectors: sels, At: time.Now(), Run: h.Run, Matched: runs.MatchedNone}
	if info != nil && len(info.Candidates) > 0 && info.Candidates[0].Score >= SuggestMin && len(info.Candidates[0].Selectors) > 0 {
		m.Healed, m.Score = info.Candidates[0].Selectors, info.Candidates[0].Score
	}
	h.mu.Lock()
	h.pending = append(h.pending, m)
	h.mu.Unlock()
}

// origSels is the action's own selector list (its first argument).
func origSels(c *stdlib.Call) []string {
	if len(c.Args) == 0 {
		return nil
	}
	switch x := c.Args[0].(type) {
	case string:
		return []string{x}
	case []string:
		return x
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// Decision is what Decide chose.
type Decision struct {
	Info *stdlib.HealInfo
	// Pick is the index of the candidate to act on (-1: none).
	Pick int
	// Ask is set in ask-model when candidates are worth offering.
	Ask bool
}

// Decide applies the thresholds to candidates (best first) for mode. It
// never picks in suggest; in auto it picks the best only when its score is
// at least AutoThreshold, it leads the second by at least AutoMargin and
// it is in the scored document.
func Decide(mode Mode, cands []drivers.HealCandidate) Decision {
	info := &stdlib.HealInfo{Mode: string(mode)}
	for i, c := range cands {
		if i == ModelChoices || c.Score < SuggestMin {
			break
		}
		info.Candidates = append(info.Candidates, stdlib.ShownCandidate(c))
	}
	d := Decision{Info: info, Pick: -1}
	if len(cands) == 0 || cands[0].Score < SuggestMin {
		info.Status = stdlib.HealRefused
		info.Reason = "the element seems to be gone: no element of the page resembles it"
		if len(cands) > 0 {
			info.Reason += fmt.Sprintf(" (closest: %s, score %.2f < %.2f)", cands[0].Desc, cands[0].Score, SuggestMin)
		}
		return d
	}
	best := cands[0]
	second := 0.0
	if len(cands) > 1 {
		second = cands[1].Score
	}
	info.Score, info.Desc = best.Score, best.Desc
	switch mode {
	case Suggest:
		info.Status, info.Selectors = stdlib.HealSuggested, best.Selectors
		info.Reason = fmt.Sprintf("best candidate %s (score %.2f); heal: \"auto\" would %s", best.Desc, best.Score, autoVerdict(best, second))
	case AskModel:
		info.Status, info.Selectors = stdlib.HealSuggested, best.Selectors
		d.Ask = true
	default: // auto
		switch {
		case best.Score < AutoThreshold:
			info.Status, info.Reason = stdlib.HealRefused, fmt.Sprintf("best candidate %s scores %.2f, below %.2f", best.Desc, best.Score, AutoThreshold)
		case best.Score-second < AutoMargin:
			info.Status, info.Reason = stdlib.HealRefused, fmt.Sprintf("best candidate %s (%.2f) is not clearly ahead of %s (%.2f): two elements look alike", best.Desc, best.Score, cands[1].Desc, second)
		case best.Frame > 0:
			info.Status, info.Reason = stdlib.HealRefused, fmt.Sprintf("best candidate %s is inside an iframe; not acted on", best.Desc)
		default:
			info.Reason = fmt.Sprintf("%s scores %.2f, %.2f ahead of the next", best.Desc, best.Score, best.Score-second)
			d.Pick = 0
		}
		if d.Pick < 0 {
			info.Selectors = best.Selectors
		}
	}
	return d
}

func autoVerdict(best drivers.HealCandidate, second float64) string {
	switch {
	case best.Score < AutoThreshold:
		return fmt.Sprintf("refuse (below %.2f)", AutoThreshold)
	case best.Score-second < AutoMargin:
		return "refuse (a look-alike within the margin)"
	case best.Frame > 0:
		return "refuse (inside an iframe)"
	}
	return "act on it"
}

// withHeal adds the heal verdict to a locate error, keeping its kind.
func withHeal(err error, info *stdlib.HealInfo) error {
	msg := err.Error()
	switch info.Status {
	case stdlib.HealSuggested:
		msg += fmt.Sprintf("; heal suggests %s (score %.2f): %s", info.Desc, info.Score, strings.Join(quote(info.Selectors), ", "))
	case stdlib.HealRefused:
		msg += "; heal refused: " + info.Reason
	}
	return &core.Error{Kind: core.KindOf(err), Msg: msg, Err: err}
}

func quote(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

func maskStr(c *stdlib.Call, s string) string {
	if c.Env == nil {
		return s
	}
	if v, ok := c.Env.Mask(s).(string); ok {
		return v
	}
	return s
}

func maskSels(c *stdlib.Call, sels []string) []string {
	out := make([]string, len(sels))
	for i, s := range sels {
		out[i] = maskStr(c, s)
	}
	return out
}

// maskFP masks every string of fp (a page may show a secret the flow typed).
func maskFP(c *stdlib.Call, fp *drivers.Fingerprint) *drivers.Fingerprint {
	if fp == nil || c.Env == nil {
		return fp
	}
	g := *fp
	m := func(s string) string { return maskStr(c, s) }
	g.ID, g.Name, g.AccName, g.Text, g.Label, g.Placeholder = m(g.ID), m(g.Name), m(g.AccName), m(g.Text), m(g.Label), m(g.Placeholder)
	g.Classes = maskSels(c, g.Classes)
	g.Ancestors = maskSels(c, g.Ancestors)
	g.Neighbours = maskSels(c, g.Neighbours)
	if len(g.Attrs) > 0 {
		a := make(map[string]string, len(g.Attrs))
		for k, v := range g.Attrs {
			a[k] = m(v)
		}
		g.Attrs = a
	}
	return &g
}
