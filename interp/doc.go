// Package interp runs a checked flow (lang.Flow) against a browser:
// scopes, control flow, the replay engine (waits, retries, per-action
// timeouts, optional and skipped actions), events, secret masking and the
// WorkflowExecutionResult of LANGUAGE.md ("Result of a run").
//
// # The universe of actions
//
// The interpreter owns its universe, as starlark-go's does: the set of
// actions is closed (lang/actions.Table, fixed by the spec), stdlib binds
// each row to one implementation, and interp imports stdlib and looks each
// action statement up there (stdlib.Lookup). Nothing registers actions at
// run time, and stdlib never imports interp: it sees the run only through
// the stdlib.Env interface, which the runner implements. What an action is
// (params, options, whether it may open a popup, how it is bounded, whether
// it takes a flow name) is data in lang/actions; what it does is stdlib;
// when and how often it is tried is decided here and nowhere else.
//
// The host contract (core.Host: ask, llm, exec, NoFiles) and the error
// kinds (core.Kind) live in package core, shared with the hosts.
package interp
