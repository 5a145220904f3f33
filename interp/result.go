package interp

import (
	"os"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/stdlib"
)

// Result is the WorkflowExecutionResult of one run (LANGUAGE.md, "Result of
// a run"); its JSON form is the contract of `rpa run --json` and of MCP
// structuredContent. Every secret value is already masked as "***".
type Result struct {
	Success          bool          `json:"success"`
	TotalActions     int           `json:"totalActions"`
	CompletedActions int           `json:"completedActions"`
	FailedActions    int           `json:"failedActions"`
	Results          []*StepResult `json:"results"`
	Outputs          any           `json:"outputs"`
	Error            *RunError     `json:"error"`
	DurationMs       int64         `json:"durationMs"`
	// Log is the run log (`log` lines, dialogs seen, skipped actions), masked.
	Log []string `json:"log,omitempty"`
	// checkpoint is what a failed run leaves for a resume (resume.go).
	checkpoint *Checkpoint
	// running is the line of the action in flight (0: none yet): where an
	// abandoned run (start.go) was cancelled.
	running int
	// temps are the files the run's actions wrote to the temporary folder
	// for the run alone (stdlib.Env.TempFile).
	temps []string
}

// RemoveTempFiles deletes the files and folders the run's actions wrote
// to the temporary folder for the run alone (the pictures of `screenshot`
// without path:, the folders of `download` without to:; a path the flow
// named is kept), so no picture of a page or downloaded file is left
// behind. Call it once the result is sent or printed and the run's
// evidence took its copy; nil-safe.
func (r *Result) RemoveTempFiles() {
	if r == nil {
		return
	}
	for _, p := range r.temps {
		_ = os.RemoveAll(p)
	}
	r.temps = nil
}

// StepResult is one executed action (loop iterations each count).
type StepResult struct {
	Index         int    `json:"index"` // 1-based, in execution order
	Action        string `json:"action"`
	Line          int    `json:"line"`
	Status        string `json:"status"` // "ok", "failed" or "skipped"
	DurationMs    int64  `json:"durationMs"`
	Selector      string `json:"selector,omitempty"`
	SelectorIndex *int   `json:"selectorIndex,omitempty"`
	Output        any    `json:"output,omitempty"`
	Error         string `json:"error,omitempty"`
	// Heal is set when healing looked at this step (PROTOCOL.md, "Healed
	// steps"): status healed (the step ran on the element its fingerprint
	// found; Heal.Selectors is the new list), suggested or refused.
	Heal *stdlib.HealInfo `json:"heal,omitempty"`
}

// Status values of StepResult.
const (
	StatusOK      = "ok"
	StatusFailed  = "failed"
	StatusSkipped = "skipped"
)

// FlowFailedCode is the JSON-RPC code of every flow failure (PROTOCOL.md),
// also used by `rpa run`.
const FlowFailedCode = -32002

// RunError is the one error that ends a run, with its position. Kind is one
// of the spec's kinds: timeout, not_found, not_visible, covered, disabled,
// navigation, assertion, fail, expression, hitl_timeout, hitl_declined,
// exec_refused, browser, cancelled.
type RunError struct {
	Message string    `json:"message"`
	Line    int       `json:"line"`
	Col     int       `json:"col,omitempty"`
	File    string    `json:"file,omitempty"`
	Action  string    `json:"action,omitempty"`
	Code    int       `json:"code"`
	Kind    core.Kind `json:"kind"`
	cause   error
}

func (e *RunError) Error() string { return e.Message }

// Unwrap returns the underlying cause (a *core.Error, context error, ...).
func (e *RunError) Unwrap() error { return e.cause }
