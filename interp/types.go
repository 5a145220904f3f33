package interp

import "time"

// Defaults overrides a flow's `defaults` for one run (tests, hosts). Zero
// fields keep the flow's value; Retries is a pointer so 0 can be asked for.
type Defaults struct {
	Wait, Every, Timeout time.Duration
	Retries              *int
	// OnTimeout is "skip", "fail" or "" (keep).
	OnTimeout string
	MaxLoops  int
}

// Event kinds.
const (
	EventStarted  = "started"  // an action starts
	EventFinished = "finished" // an action ended (Status, DurationMs, Summary set)
	EventLog      = "log"      // a run-log line (Summary is the line); Index is 0
)

// Event reports progress, once when an action starts and once when it
// finishes, and once per run-log line (`log`, dialogs, skips). Index is the
// 1-based action number in execution order (as StepResult.Index); Total is
// the number of actions when known up front (a body without control
// statements and calls), else 0. Target is the action's first argument
// (selector, URL ...), Summary a short form of the output or the error;
// both are masked. Events are delivered synchronously on the run's
// goroutine: a slow handler slows the run.
type Event struct {
	Kind       string
	Index      int
	Total      int
	Action     string
	Target     string
	Line       int
	Status     string // finished only: ok, failed, skipped
	DurationMs int64
	Summary    string
	// Evidence is what a run recorder looks at besides the text (the tab,
	// the document, the selectors); set on started and finished events of
	// actions, nil on log events (evidence.go).
	Evidence *Evidence
}
