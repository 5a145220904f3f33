package core

import (
	"context"
	"errors"
	"fmt"
)

// Kind classifies a failure. The names are the result's error kinds of
// LANGUAGE.md ("Result of a run"): a failed flow reports one of them in
// `error.kind` of its WorkflowExecutionResult, always with code -32002
// (PROTOCOL.md, "Calls and results"), in `rpa run` too. Where a built-in
// MCP tool fails instead of a flow, the MCP layer answers a JSON-RPC error:
// browser_read answers -32004 for KindBrowser (the browser could not be
// reached) and -32001 with data.kind for the others; KindBusy is -32004.
// Arguments that do not fit a flow's params are not a kind: they are
// refused before any run starts (lang.ArgError; MCP -32602, `rpa run`
// exit 2).
type Kind string

// The kinds. Each is declared here once; the drivers, the interpreter, the
// action library and the hosts all use these.
const (
	// KindTimeout: an action, a wait or the run's deadline ran out (the
	// element never became ready, the URL never matched, `rpa run
	// --timeout` passed).
	KindTimeout Kind = "timeout"
	// KindNotFound: no element matches the selector(s), no such tab, an
	// upload file that does not exist.
	KindNotFound Kind = "not_found"
	// KindNotVisible: the element exists but has no visible box (hidden,
	// zero size, outside the viewport).
	KindNotVisible Kind = "not_visible"
	// KindCovered: another element receives the pointer at the element's
	// centre (a consent banner, an overlay); the message names it.
	KindCovered Kind = "covered"
	// KindDisabled: the element is disabled, read-only or not editable.
	KindDisabled Kind = "disabled"
	// KindNavigation: a page could not be loaded (network error, HTTP
	// failure page, no history in that direction, a file: URL refused).
	KindNavigation Kind = "navigation"
	// KindBrowser: the browser failed or is gone, or an error no other kind
	// describes (the default of [KindOf]). The MCP layer answers -32004
	// where it cannot start or reach the browser.
	KindBrowser Kind = "browser"
	// KindAssertion: an `assert` statement was false.
	KindAssertion Kind = "assertion"
	// KindFail: a `fail` statement ran, a `while` loop passed max_loops, or
	// an `llm` call failed at the model.
	KindFail Kind = "fail"
	// KindExpression: a bad argument or an expression that cannot be
	// evaluated (wrong type, unknown name, unknown action or flow, calls
	// nested too deep). Never retried: another try cannot help.
	KindExpression Kind = "expression"
	// KindHITLTimeout: `ask` got no answer in time.
	KindHITLTimeout Kind = "hitl_timeout"
	// KindHITLDeclined: the person declined or cancelled `ask`, no person
	// can be asked here, or the answer is not a number when one was asked.
	KindHITLDeclined Kind = "hitl_declined"
	// KindExecRefused: `exec` is not enabled here or the command is not on
	// the allow-list; a local file outside the temp dir refused to a served
	// flow (Host.NoFiles).
	KindExecRefused Kind = "exec_refused"
	// KindCancelled: the run was stopped from outside (Ctrl-C, MCP
	// notifications/cancelled); a deadline passing is KindTimeout.
	KindCancelled Kind = "cancelled"
	// KindBusy: a limit was reached (browsers open at once, calls queued per
	// profile) or the profile is in use by another process. The MCP layer
	// answers -32004 with data.kind "busy".
	KindBusy Kind = "busy"
)

// Kinds lists every kind, in the order of the documentation.
func Kinds() []Kind {
	return []Kind{KindTimeout, KindNotFound, KindNotVisible, KindCovered, KindDisabled,
		KindNavigation, KindBrowser, KindAssertion, KindFail, KindExpression,
		KindHITLTimeout, KindHITLDeclined, KindExecRefused, KindCancelled, KindBusy}
}

// Error is a failure with a kind: what drivers return (with the driver's
// kinds), what actions return (with the result's kinds), what hosts return
// from their hooks (e.g. KindExecRefused). Msg is user-facing and names the
// culprit (`covered by div#consent`, `no element matches "#x"`).
type Error struct {
	Kind Kind
	Msg  string
	Err  error // cause, may be nil
	// Final asks the replay engine not to retry (a missing upload file,
	// a bad argument): another try cannot help.
	Final bool
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error of kind k.
func Errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// KindOf returns the kind of err: the Kind of the first *Error in its
// chain, else KindTimeout for context.DeadlineExceeded and KindBrowser for
// any other error; "" for nil.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return KindTimeout
	}
	return KindBrowser
}

// IsFinal reports whether err must not be retried: an *Error marked Final
// or of kind KindExpression anywhere in its chain (an error that wraps a
// final one with more words stays final).
func IsFinal(err error) bool {
	for ; err != nil; err = errors.Unwrap(err) {
		if e, ok := err.(*Error); ok && (e.Final || e.Kind == KindExpression) {
			return true
		}
	}
	return false
}
