package interp

import (
	"context"
	"errors"
	"sort"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang/ast"
)

// StepHook is called on the run's goroutine before and after each
// statement of the run (Options.StepHook): the statements of the run's
// flow, of the flows it calls and of its sign-in flow, nested ones (a loop
// body's, a branch's) each time they run. It may block as long as it likes
// (a step debugger waits there for Step or Continue); the run goes on when
// it returns. It must return when ctx (the run's) ends. A non-nil error
// stops the run at the statement: the run fails with kind "cancelled" and
// the error's text (try does not catch it).
//
// st is valid only during the call: read what you need (Scopes, Picture)
// before returning, and do not keep it.
type StepHook func(ctx context.Context, st *Step) error

// Step phases (Step.Phase).
const (
	StepBefore = "before" // the statement is about to run (an action: its arguments are resolved)
	StepAfter  = "after"  // the statement ended (Err set when it failed)
)

// Step is one statement the run reached, as a StepHook sees it.
//
// For an action, Before comes once its arguments are resolved, just before
// it touches the page; an action whose arguments fail to evaluate gets its
// Before (Args nil) and then its After with the error. An action that the
// run does again after signing in (defaults login:) does not call the hook
// again. A compound statement (if, for, while, try, retry, frame) gets its
// Before, then the hooks of the statements of its body, then its After.
type Step struct {
	// Phase is StepBefore or StepAfter.
	Phase string
	// File is the statement's file as the flow was loaded (lang.Flow.Path
	// of its flow); Flow is the flow's name.
	File, Flow string
	// Line and Col are the statement's start, 1-based.
	Line, Col int
	// Kind is the statement's keyword: action, assign, if, for, while,
	// break, continue, try, retry, frame, return, fail, assert, log.
	Kind string
	// Action is the action's name (Kind "action"), aliases resolved.
	Action string
	// Args are the action's positional arguments as resolved (Before of an
	// action), with every secret as "***" (Mask.Value); nil otherwise.
	Args []any
	// Depth is how deep in `call`s the statement is: 0 in the run's flow.
	Depth int
	// Err is the statement's error, masked (After only; "" when it did
	// not fail, also for an optional action that failed and was passed).
	Err string

	r  *runner
	sc *Scope
}

// ScopeVars is one scope of the interpreter's, as Step.Scopes lists it.
type ScopeVars struct {
	// Kind is "params" (the flow's params, read-only), "flow" (its
	// top-level names) or "block" (a branch's or loop body's: loop and
	// catch variables live there).
	Kind string
	// Flow is the flow the scope belongs to (a called flow has its own).
	Flow string
	// Vars are the scope's names in name order.
	Vars []Var
}

// Var is one name bound in a scope. Value is masked (every secret, and
// every value derived from one, as "***"; Mask) and, for tables read from
// the page, in the page's column order (Row); it is a copy only where
// masking changed it: encode it, do not modify it.
type Var struct {
	Name  string
	Value any
}

// Scopes lists the scopes visible at the statement, innermost first, each
// with its names. A called flow sees only its own scopes (its params and
// below), as the interpreter does.
func (st *Step) Scopes() []ScopeVars {
	if st.sc == nil {
		return nil
	}
	r := st.r
	r.mu.Lock()
	book := r.columns
	r.mu.Unlock()
	var out []ScopeVars
	for sc := st.sc; sc != nil; sc = sc.parent {
		kind := "block"
		switch {
		case sc.readOnly:
			kind = "params"
		case sc.parent != nil && sc.parent.readOnly:
			kind = "flow"
		}
		if len(sc.vars) == 0 && kind == "block" {
			continue // a branch that bound nothing yet
		}
		names := make([]string, 0, len(sc.vars))
		for k := range sc.vars {
			names = append(names, k)
		}
		sort.Strings(names)
		sv := ScopeVars{Kind: kind, Flow: st.Flow, Vars: make([]Var, len(names))}
		for i, k := range names {
			sv.Vars[i] = Var{Name: k, Value: book.ordered(finite(r.mask.Value(sc.vars[k])))}
		}
		out = append(out, sv)
	}
	return out
}

// Picture is a PNG of the run's current tab's viewport, taken as the run
// record's screenshots are (drivers.Capture): password fields, fields and
// text holding a secret of the run show drivers.MaskGlyphs. It is nil
// with no error when the run has no tab open yet.
func (st *Step) Picture(ctx context.Context) ([]byte, error) {
	p := st.r.CurrentPage()
	if p == nil {
		return nil, nil
	}
	return drivers.Capture(ctx, p, nil, false, st.HoldsSecret())
}

// Page is the run's current tab (nil when it has none yet), for looking at
// it while the hook blocks: the console's element picker shows it and
// names elements on it while a debug run is paused. The run does not use
// the tab until the hook returns, and it does not expect it changed then:
// whoever looks must send it no input, must undo what it changed (as
// drivers.MaskFields does) and must be done before the hook returns.
func (st *Step) Page() drivers.Page { return st.r.CurrentPage() }

// HoldsSecret reports whether a text holds a secret of the run (one of its
// secret values, or a value derived from one): what Picture masks, for a
// caller that pictures the tab itself (drivers.MaskFields).
func (st *Step) HoldsSecret() drivers.HoldsSecret {
	m := st.r.mask
	return func(v string) bool { return m.IsSecret(v) || m.String(v) != v }
}

// stepKind is a statement's keyword for Step.Kind: "action" for an action, "assign" for an
// assignment, else the statement's keyword (ast.Keyword), "?" for none.
func stepKind(st ast.Stmt) string {
	switch st.(type) {
	case *ast.ActionStmt:
		return "action"
	case *ast.AssignStmt:
		return "assign"
	}
	if k := ast.Keyword(st); k != "" {
		return k
	}
	return "?"
}

// hookedStmt is stmt with Options.StepHook called around it. An action's
// Before is called by action once its arguments are resolved
// (beforeAction); r.hookAction marks the statement whose Before is due.
func (r *runner) hookedStmt(fr *frame, st ast.Stmt, sc *Scope) (ctl, error) {
	rg := st.Rng()
	info := &Step{Phase: StepBefore, File: rg.File, Line: rg.Start.Line, Col: rg.Start.Col, Kind: stepKind(st), Depth: r.depth, r: r, sc: sc}
	if fr.flow != nil && fr.flow.File != nil {
		info.Flow = fr.flow.File.Name
		if fr.flow.Path != "" {
			info.File = fr.flow.Path
		}
	}
	as, isAction := st.(*ast.ActionStmt)
	if isAction {
		info.Action = as.Action
		r.hookAction, r.hookInfo = as, info
	} else if err := r.callHook(st, info); err != nil {
		return ctlNext, err
	}
	c, err := r.stmt(fr, st, sc)
	if isAction && r.hookAction == as {
		// Its arguments failed: Before (no args) comes now.
		r.hookAction, r.hookInfo = nil, nil
		if herr := r.callHook(st, info); herr != nil {
			return ctlNext, herr
		}
	}
	info.Phase, info.Args, info.Err = StepAfter, nil, ""
	if err != nil {
		info.Err = r.mask.String(err.Error())
	}
	if herr := r.callHook(st, info); herr != nil && err == nil {
		return ctlNext, herr
	}
	return c, err
}

// beforeAction calls the hook's Before of action statement s (its
// arguments resolved) when it is the one hookedStmt marked; a second try
// of the same statement (after a sign-in, or redone from the trail) does
// not call it again.
func (r *runner) beforeAction(s *ast.ActionStmt, name string, args []any) error {
	if r.hookAction != s {
		return nil
	}
	info := r.hookInfo
	r.hookAction, r.hookInfo = nil, nil
	info.Action = name
	info.Args = make([]any, len(args))
	for i, a := range args {
		info.Args[i] = finite(r.mask.Value(a))
	}
	return r.callHook(s, info)
}

// callHook calls Options.StepHook; its error stops the run (kind
// cancelled, not caught by try).
func (r *runner) callHook(n ast.Node, info *Step) error {
	err := r.opts.StepHook(r.ctx, info)
	if err == nil {
		return nil
	}
	if r.ctx.Err() != nil {
		return r.cancelled(n, r.ctx.Err())
	}
	msg := r.mask.String(err.Error())
	if errors.Is(err, context.Canceled) {
		msg = "the run was cancelled"
	}
	return &RunError{Message: msg, Line: n.Rng().Start.Line, File: n.Rng().File, Code: FlowFailedCode, Kind: core.KindCancelled, cause: err}
}
