package interp

import (
	"context"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
)

// Options configures one Run.
type Options struct {
	// Args are the param values, already typed (see ParseArgs and
	// CheckArgs); Run checks them again and applies defaults.
	Args map[string]any
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
	// line). Args should be the checkpoint's. The result is a new run.
	Resume     *Checkpoint
	ResumeFrom int
	// Mask, when set, is the run's masker (nil: a new one). A host that
	// keeps its own record of the run (runs/record: URLs, snapshots,
	// screenshots it reads from the page) passes its masker here, so the
	// values the run derives from a secret and renders into actions
	// (open "{{ urlquery(lower(password)) }}") are hidden there too.
	Mask *Mask
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

// ParseArgs converts `--arg NAME=VALUE` strings to the flow's param types
// (int, number, bool parsed; list and map as JSON; enum values checked),
// applies defaults and reports a missing required param. Errors are
// *ArgError naming the param.
func ParseArgs(f *lang.Flow, kv map[string]string) (map[string]any, error) {
	return parseArgs(f.File, kv)
}

// CheckArgs checks JSON-decoded values against the flow's params: strings
// for string/secret/enum (enum values checked), integral numbers for int
// (returned as int), numbers for number (float64), bools, lists ([]any)
// and maps (map[string]any). It applies defaults and reports unknown
// names, missing required params and bad types as *ArgError naming the
// field. "profileId" and "deviceId" are ignored (hosts consume them).
func CheckArgs(f *lang.Flow, args map[string]any) (map[string]any, error) {
	return checkArgs(f.File, args)
}
