package hitl

import "context"

// Asker names who asks a question, for the person who answers it: the
// flow, its run and the run's caller. A runner puts it on the run's
// context (WithAsker); the console channel sends it along and the
// console's question card shows it in place of the asking process.
type Asker struct {
	// Flow is the flow's NAME ("greet").
	Flow string `json:"flow,omitempty"`
	// Run is the run's ID in the run store ("" when not recorded).
	Run string `json:"run,omitempty"`
	// Caller says who started the run, as the runs list does
	// (runs.CallerText: "mcp Claude", "cli", "schedule nightly").
	Caller string `json:"caller,omitempty"`
}

type askerKey struct{}

// WithAsker returns ctx carrying a: the questions a run asks under it name
// a's flow, run and caller.
func WithAsker(ctx context.Context, a Asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// AskerOf returns the Asker ctx carries (WithAsker), and whether it has one.
func AskerOf(ctx context.Context) (Asker, bool) {
	a, ok := ctx.Value(askerKey{}).(Asker)
	return a, ok && a != Asker{}
}
