package stdlib

import (
	"context"
	"errors"

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

// healable reports whether a locate error means that no selector found
// the element (the cases healing addresses); covered and disabled mean the
// element is there but blocked, and are not healed.
func healable(err error) bool {
	switch core.KindOf(err) {
	case core.KindNotFound, core.KindNotVisible, core.KindTimeout:
		return !errors.Is(err, context.Canceled)
	}
	return false
}

// hookLocate runs the locate hook of ctx, if any, after f.Locate returned
// (el, i, err); it returns what Locate should return.
func (c *Call) hookLocate(ctx context.Context, f drivers.Frame, sels []string, want drivers.Checks, el drivers.Element, i int, err error) (drivers.Element, error) {
	h := LocateHookOf(ctx)
	if h == nil {
		return el, err
	}
	if err == nil {
		c.Heal = nil // an earlier attempt's heal is not this one's
		h.Found(ctx, c, f, el, sels, i)
		return el, nil
	}
	if ctx.Err() != nil || !healable(err) {
		return nil, err
	}
	return h.Missed(ctx, c, f, sels, want, err)
}
