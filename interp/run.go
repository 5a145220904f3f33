package interp

import (
	"context"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
)

// Options configures one Run.
type Options struct {
	// Args are the flow's checked arguments (lang.Flow.CheckArgs and its
	// siblings); Run takes them as they are. The zero Args means none were
	// given: Run checks the empty set (defaults apply, a required param is
	// missing). Args checked for another flow fail the run.
	Args lang.Args
	// Browser is required for page actions (nil: they fail with kind
	// "browser").
	Browser drivers.Browser
	// Page is the tab to start on; nil opens a new tab on first need (the
	// first `open` opens it at its URL).
	Page drivers.Page
	// Flows resolves `call NAME` (nil: calls fail).
	Flows func(name string) (*lang.Flow, bool)
	// Events receives progress (may be nil); called synchronously.
	Events func(Event)
	// Host holds the ask/llm/exec hooks; a nil func makes that action fail
	// with a clear "not enabled here" error.
	Host core.Host
	// Defaults optionally overrides the flow's defaults (tests).
	Defaults *Defaults
	// Resume, when set, resumes the failed run it comes from
	// (Result.Checkpoint; resume.go): its top-level names as they stood,
	// from the top-level statement holding line ResumeFrom (0: the failed
	// line), with Args (the resuming call's, or the failed run's own:
	// Checkpoint.Args). The result is a new run.
	Resume     *Checkpoint
	ResumeFrom int
	// Mask, when set, is the run's masker (nil: a new one). A host that
	// keeps its own record of the run (runs/record: URLs, snapshots,
	// screenshots it reads from the page) passes its masker here, so the
	// values the run derives from a secret and renders into actions
	// (open "{{ urlquery(lower(password)) }}") are hidden there too.
	Mask *Mask
	// StepHook, when set, is called before and after each statement and
	// may block there (a step debugger; step.go). Nil costs nothing.
	StepHook StepHook
}

// Run executes f and returns its result and the current tab at the end
// (nil when none was opened). It never panics on a bad flow or argument:
// every failure is inside the result (Success false, Error set, code
// -32002). Cancelling ctx stops the run between and inside actions; Run
// then returns within about a second with the partial result and error
// kind "cancelled". Secret values (secret params, password answers,
// values read from password fields) and values computed from them are
// masked as *** everywhere in the result and in events (rules: Mask). A
// non-finite number in the outputs or a step's output (1/0, NaN) is null,
// so the result always encodes as JSON.
func Run(ctx context.Context, f *lang.Flow, opts Options) (*Result, drivers.Page) {
	if f == nil || f.File == nil {
		return &Result{Results: []*StepResult{}, Error: &RunError{Message: "no flow to run", Code: FlowFailedCode, Kind: core.KindExpression}}, opts.Page
	}
	return start(ctx, f, opts)
}
