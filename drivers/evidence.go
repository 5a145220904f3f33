package drivers

import (
	"context"
	"time"

	"github.com/rpa-dev/rpa/core"
)

// Inspector is implemented by a driver's documents (Frame, and so Page) that
// can explain a failure. (The accessibility snapshot is package snapshot,
// which needs only Frame.Eval.) It is optional:
// callers type-assert (`f.(drivers.Inspector)`) and do without it (the
// fake driver has none). drivers/rod implements it.
type Inspector interface {
	// Diagnose looks once, without waiting, at each selector of sels and
	// says whether its first match would pass want now and, if not, why
	// (the reasons Frame.Locate reports: not_found, not_visible, covered
	// with the cover named, disabled). Reports are in the order of sels.
	Diagnose(ctx context.Context, sels []string, want Checks) ([]SelectorReport, error)
}

// SelectorReport is what Diagnose found for one selector.
type SelectorReport struct {
	Selector string `json:"selector"`
	// Kind is "" when the selector's first match passes the checks now,
	// else not_found, not_visible, covered, disabled (or browser for a
	// selector the engine rejects).
	Kind core.Kind `json:"kind,omitempty"`
	// Reason is a short sentence: "passes now", "no element matches",
	// "covered by div#consent", ...
	Reason string `json:"reason"`
	// Count is how many elements match the selector.
	Count int `json:"count"`
	// Box is the first match's border box in CSS pixels of the viewport
	// (nil when nothing matches or it has no box).
	Box *Box `json:"box,omitempty"`
}

// Box is a rectangle in CSS pixels relative to the viewport's top left.
type Box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"w"`
	H float64 `json:"h"`
}

// Problem is a page problem seen while a run watched it: a console error,
// an uncaught exception, or a failed network request.
type Problem struct {
	Time time.Time `json:"time"`
	// Kind is "console" (console.error/assert), "exception" (uncaught) or
	// "network" (a request that failed or answered 4xx/5xx).
	Kind   string `json:"kind"`
	Text   string `json:"text"`
	URL    string `json:"url,omitempty"`
	Status int    `json:"status,omitempty"` // HTTP status of a network problem (0: no response)
}

// ProblemWatcher is implemented by Pages that can report console errors
// and failed requests. Optional, like Inspector.
type ProblemWatcher interface {
	// WatchProblems starts recording (idempotent); the recording ends with
	// the page.
	WatchProblems(ctx context.Context) error
	// Problems returns the problems recorded since WatchProblems, oldest
	// first (at most the last 200).
	Problems() []Problem
}

// Thumbnailer is implemented by Pages that can take a small JPEG of the
// viewport cheaply (the browser scales and encodes it), for evidence
// "full". Optional, like Inspector. It does not mask fields by itself:
// take it under MaskFields, as Capture does.
type Thumbnailer interface {
	// Thumbnail is a JPEG of the viewport scaled to at most maxW pixels
	// wide, at quality q (1-100).
	Thumbnail(ctx context.Context, maxW, q int) ([]byte, error)
}
