package stdlib

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
)

// LocateHook watches Call.Locate for healing (package heal,
// docs/healing.md): it is told of every element a locate found, and asked
// for a replacement when no selector of a list found a usable one. A host
// installs one per run with WithLocateHook; without one Locate behaves as
// before.
type LocateHook interface {
	// Found is called after sels[index] found el in f (the element the
	// action then acts on). It must not act on the page.
	Found(ctx context.Context, c *Call, f drivers.Frame, el drivers.Element, sels []string, index int)
	// Missed is called when no selector of sels found an element passing
	// want within the wait (err is Locate's error: kind not_found,
	// not_visible or timeout). It returns the element to act on instead
	// (healed; it sets c.Heal) or nil and the error to report, which may
	// be err itself or err with a suggestion added.
	Missed(ctx context.Context, c *Call, f drivers.Frame, sels []string, want drivers.Checks, err error) (drivers.Element, error)
}

type locateHookKey struct{}

// WithLocateHook returns ctx carrying h; interp passes the run's context to
// every action, so a host sets it on the context it gives interp.Run.
func WithLocateHook(ctx context.Context, h LocateHook) context.Context {
	if h == nil {
		return ctx
	}
	return context.WithValue(ctx, locateHookKey{}, h)
}

// LocateHookOf returns the hook ctx carries, or nil.
func LocateHookOf(ctx context.Context) LocateHook {
	h, _ := ctx.Value(locateHookKey{}).(LocateHook)
	return h
}

// HealInfo says what healing did for one step; interp copies it into the
// step's result (field "heal", PROTOCOL.md "Healed steps").
type HealInfo struct {
	// Mode is the heal mode in force: suggest, auto or ask-model.
	Mode string `json:"mode"`
	// Status is what healing did: HealHealed, HealSuggested or HealRefused.
	Status HealStatus `json:"status"`
	// Selectors is the healed element's new fallback list (healed), or the
	// best candidate's (suggested).
	Selectors []string `json:"selectors,omitempty"`
	// Score is the chosen (or best) candidate's similarity in [0, 1].
	Score float64 `json:"score,omitempty"`
	// Desc names the chosen (or best) element for people.
	Desc string `json:"desc,omitempty"`
	// Reason is a sentence for people: why it healed or refused.
	Reason string `json:"reason,omitempty"`
	// Candidates are the best few candidates (at most 3), best first, as
	// results and packets show them: score, desc and selectors only
	// (ShownCandidate).
	Candidates []drivers.HealCandidate `json:"candidates,omitempty"`
}

// HealStatus is what healing did for one step (PROTOCOL.md, "Healed
// steps").
type HealStatus string

// The heal statuses.
const (
	// HealHealed: the action ran on the element its fingerprint found.
	HealHealed HealStatus = "healed"
	// HealSuggested: suggest mode; the step failed, and Candidates say
	// what would have been chosen.
	HealSuggested HealStatus = "suggested"
	// HealRefused: no candidate was close enough or clearly ahead of the
	// others; Reason says which.
	HealRefused HealStatus = "refused"
)

// ShownCandidate is c as a step's result and the failure packet show it:
// its score, description and selectors (the fingerprint, rank and frame
// depth stay with the healer).
func ShownCandidate(c drivers.HealCandidate) drivers.HealCandidate {
	return drivers.HealCandidate{Score: c.Score, Desc: c.Desc, Selectors: c.Selectors}
}

// BlockHook is implemented by locate hooks that want to know when a
// locate ended on a page that will not produce the element (a sign-in
// page, an error, an HTTP error document: drivers.PageState): no selector
// is to blame, and no candidate is looked for.
type BlockHook interface {
	Blocked(ctx context.Context, c *Call, sels []string, st *drivers.PageState)
}

// healable reports whether a locate error means that no selector found
// the element (the cases healing addresses); covered and disabled mean the
// element is there but blocked, and are not healed; nor is a page that
// settled into a sign-in page, an error or an HTTP error document (the
// selectors are not to blame).
func healable(err error) bool {
	if drivers.StateOf(err).Verdict() {
		return false
	}
	switch core.KindOf(err) {
	case core.KindNotFound, core.KindNotVisible, core.KindTimeout:
		return !errors.Is(err, context.Canceled)
	}
	return false
}

// healSettle is how long the page must have settled without the element
// before healing scores candidates (once), rather than after the whole
// wait: a healed step costs about this much more than a found one.
const healSettle = time.Second

// hookLocate locates sels in f within wctx (the element wait; ctx is the
// action's), through the locate hook of ctx when there is one: it is told
// of the element found, or asked for a replacement when none is. With a
// document that can say when the page has settled
// (drivers.SettledLocator), the hook is asked once the page has settled
// for healSettle without the element; when it finds none the wait goes on
// for the element until wctx ends, and its verdict stands beside the
// error.
func (c *Call) hookLocate(ctx, wctx context.Context, f drivers.Frame, sels []string, want drivers.Checks) (drivers.Element, error) {
	h := LocateHookOf(ctx)
	look := want // what Locate is asked for
	if h != nil {
		// the hook fingerprints what is found: the driver may take the
		// fingerprint in the locate's own look
		look |= drivers.TakeFingerprint
	}
	found := func(el drivers.Element, i int) drivers.Element {
		if i >= 0 && i < len(sels) {
			c.Selector, c.SelectorIndex = sels[i], i
		}
		if h != nil {
			c.Heal = nil // an earlier attempt's heal is not this one's
			h.Found(ctx, c, f, el, sels, i)
		}
		return el
	}
	sl, early := f.(drivers.SettledLocator)
	if h == nil || !early {
		el, i, err := f.Locate(wctx, sels, look)
		if err == nil {
			return found(el, i), nil
		}
		return c.missed(ctx, h, f, sels, want, err)
	}
	el, i, err := sl.LocateUntilSettled(wctx, sels, look, healSettle)
	if err == nil {
		return found(el, i), nil
	}
	if st := drivers.StateOf(err); st == nil || st.Kind != drivers.PageSettled || wctx.Err() != nil || ctx.Err() != nil {
		return c.missed(ctx, h, f, sels, want, err) // the wait ran out, or a verdict
	}
	// the page settled without the element: score once, now
	hel, herr := h.Missed(ctx, c, f, sels, want, err)
	if hel != nil {
		return hel, nil
	}
	suffix := strings.TrimPrefix(herr.Error(), err.Error()) // what healing says
	el, i, err = f.Locate(wctx, sels, look)
	if err == nil {
		return found(el, i), nil
	}
	if st := drivers.StateOf(err); st.Verdict() {
		c.Heal = nil // the page, not the selectors
		if b, ok := h.(BlockHook); ok {
			b.Blocked(ctx, c, sels, st)
		}
		return nil, err
	}
	if suffix == "" || ctx.Err() != nil {
		return nil, err
	}
	return nil, &core.Error{Kind: core.KindOf(err), Msg: err.Error() + suffix, Err: err}
}

// missed tells the hook h (when there is one) that no selector of sels
// found the element (err), and returns what the locate returns.
func (c *Call) missed(ctx context.Context, h LocateHook, f drivers.Frame, sels []string, want drivers.Checks, err error) (drivers.Element, error) {
	if h == nil || ctx.Err() != nil {
		return nil, err
	}
	if st := drivers.StateOf(err); st.Verdict() {
		if b, ok := h.(BlockHook); ok {
			b.Blocked(ctx, c, sels, st)
		}
		return nil, err
	}
	if !healable(err) {
		return nil, err
	}
	return h.Missed(ctx, c, f, sels, want, err)
}
