package interp

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
)

// ctl is how a block ended.
type ctl int

const (
	ctlNext ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
)

// block runs stmts in sc; the first error ends it.
func (r *runner) block(fr *frame, stmts []ast.Stmt, sc *Scope) (ctl, error) {
	for _, st := range stmts {
		if err := r.ctx.Err(); err != nil {
			return ctlNext, r.cancelled(st, err)
		}
		var c ctl
		var err error
		if r.opts.StepHook == nil {
			c, err = r.stmt(fr, st, sc)
		} else {
			c, err = r.hookedStmt(fr, st, sc) // step.go
		}
		if err != nil || c != ctlNext {
			return c, err
		}
	}
	return ctlNext, nil
}

// cancelled is the error of a run stopped from outside at n: kind
// "cancelled" (message "the run was cancelled", or the cancel cause), or,
// when the run's deadline passed (rpa run --timeout, a caller's deadline),
// kind "timeout" with "the run's deadline passed". Neither is caught by
// try or retried (the run's context is done).
func (r *runner) cancelled(n ast.Node, err error) *RunError {
	kind, msg := core.KindCancelled, "the run was cancelled"
	c := context.Cause(r.ctx)
	switch {
	case c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded):
		msg = c.Error()
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(c, context.DeadlineExceeded):
		kind, msg = core.KindTimeout, "the run's deadline passed"
	}
	return &RunError{Message: msg, Line: n.Rng().Start.Line, Code: FlowFailedCode, Kind: kind, cause: err}
}

// stopsRun reports whether re ends the run whatever the flow says: a
// cancellation or the run's own deadline (try does not catch it, retry
// does not retry it).
func (r *runner) stopsRun(re *RunError) bool {
	return re.Kind == core.KindCancelled || r.ctx.Err() != nil
}

// errAt builds a positioned run error.
func errAt(n ast.Node, kind core.Kind, action string, cause error, format string, args ...any) *RunError {
	return &RunError{Message: fmt.Sprintf(format, args...), Line: n.Rng().Start.Line, File: n.Rng().File,
		Action: action, Code: FlowFailedCode, Kind: kind, cause: cause}
}

func (r *runner) stmt(fr *frame, st ast.Stmt, sc *Scope) (ctl, error) {
	switch s := st.(type) {
	case *ast.ActionStmt:
		v, err := r.actionSignedIn(fr, s, sc) // login.go
		if err != nil {
			return ctlNext, err
		}
		if s.Target != "" {
			if err := sc.Set(s.Target, v); err != nil {
				return ctlNext, errAt(s, core.KindExpression, "", err, "%v", err)
			}
		}
	case *ast.AssignStmt:
		v, err := r.eval(fr, s.Value, sc)
		if err != nil {
			return ctlNext, err
		}
		if err := sc.Set(s.Name, v); err != nil {
			return ctlNext, errAt(s, core.KindExpression, "", err, "%v", err)
		}
	case *ast.IfStmt:
		ok, err := r.cond(fr, s.Cond, sc)
		if err != nil {
			return ctlNext, err
		}
		if ok {
			return r.block(fr, s.Then, sc.Child())
		}
		if len(s.Else) > 0 {
			return r.block(fr, s.Else, sc.Child())
		}
	case *ast.ForStmt:
		return r.forStmt(fr, s, sc)
	case *ast.WhileStmt:
		for n := 0; ; n++ {
			ok, err := r.cond(fr, s.Cond, sc)
			if err != nil || !ok {
				return ctlNext, err
			}
			if n >= fr.defs.maxLoops {
				return ctlNext, errAt(s, core.KindFail, "", nil, "while loop ran more than %d times (defaults max_loops)", fr.defs.maxLoops)
			}
			c, err := r.block(fr, s.Body, sc.Child())
			if err != nil || c == ctlReturn {
				return c, err
			}
			if c == ctlBreak {
				return ctlNext, nil
			}
			if err := r.ctx.Err(); err != nil {
				return ctlNext, r.cancelled(s, err)
			}
		}
	case *ast.BreakStmt:
		return ctlBreak, nil
	case *ast.ContinueStmt:
		return ctlContinue, nil
	case *ast.TryStmt:
		c, err := r.block(fr, s.Body, sc.Child())
		if err == nil {
			return c, nil
		}
		re := r.asRunError(err, fr.flow)
		if r.stopsRun(re) {
			return ctlNext, re
		}
		csc := sc.Child()
		if s.CatchVar != "" {
			csc.Declare(s.CatchVar, lang.CatchValue(r.mask.String(re.Message), re.Action, re.Line, re.Code, string(re.Kind)))
		}
		return r.block(fr, s.Catch, csc)
	case *ast.RetryStmt:
		return r.retryStmt(fr, s, sc)
	case *ast.FrameStmt:
		return r.frameStmt(fr, s, sc)
	case *ast.ReturnStmt:
		if s.Value != nil {
			v, err := r.eval(fr, s.Value, sc)
			if err != nil {
				return ctlNext, err
			}
			fr.outputs = v
		}
		return ctlReturn, nil
	case *ast.FailStmt:
		v, err := r.eval(fr, s.Message, sc)
		if err != nil {
			return ctlNext, err
		}
		return ctlNext, errAt(s, core.KindFail, "", nil, "%s", stringify(v))
	case *ast.AssertStmt:
		ok, err := r.cond(fr, s.Cond, sc)
		if err != nil || ok {
			return ctlNext, err
		}
		msg := "assertion failed: " + exprText(s.Cond)
		if s.Message != nil {
			v, err := r.eval(fr, s.Message, sc)
			if err != nil {
				return ctlNext, err
			}
			msg = stringify(v)
		}
		return ctlNext, errAt(s, core.KindAssertion, "", nil, "%s", msg)
	case *ast.LogStmt:
		v, err := r.eval(fr, s.Value, sc)
		if err != nil {
			return ctlNext, err
		}
		r.logLine(stringify(v))
	default:
		return ctlNext, errAt(st, core.KindExpression, "", nil, "internal error: unknown statement %T", st)
	}
	return ctlNext, nil
}

// exprText is the source of a condition for messages.
func exprText(e ast.Expr) string {
	if s, ok := e.(*ast.ExprSrc); ok {
		return s.Source
	}
	v, err := lang.Literal(e)
	if err != nil {
		return "?"
	}
	return stringify(v)
}

func (r *runner) cond(fr *frame, e ast.Expr, sc *Scope) (bool, error) {
	v, err := r.eval(fr, e, sc)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, errAt(e, core.KindExpression, "", nil, "condition %s is %s, not a bool", exprText(e), lang.TypeName(v))
	}
	return b, nil
}

func (r *runner) forStmt(fr *frame, s *ast.ForStmt, sc *Scope) (ctl, error) {
	it, err := r.eval(fr, s.Iter, sc)
	if err != nil {
		return ctlNext, err
	}
	var items []any
	switch x := it.(type) {
	case []any:
		items = x
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		items = make([]any, len(keys))
		for i, k := range keys {
			items[i] = k
		}
	case nil:
	default:
		if n, ok := lang.ToInt(it); ok {
			items = make([]any, max(n, 0))
			for i := range items {
				items[i] = i
			}
			break
		}
		rv := reflect.ValueOf(it)
		if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
			return ctlNext, errAt(s.Iter, core.KindExpression, "", nil, "for: cannot loop over %s (want a list, a map or an int)", lang.TypeName(it))
		}
		items = make([]any, rv.Len())
		for i := range items {
			items[i] = rv.Index(i).Interface()
		}
	}
	for i, v := range items {
		if err := r.ctx.Err(); err != nil {
			return ctlNext, r.cancelled(s, err)
		}
		body := sc.Child()
		body.Declare(s.Var, v)
		body.Declare("loop", lang.LoopValue(i, len(items)))
		c, err := r.block(fr, s.Body, body)
		if err != nil || c == ctlReturn {
			return c, err
		}
		if c == ctlBreak {
			break
		}
	}
	return ctlNext, nil
}

func (r *runner) retryStmt(fr *frame, s *ast.RetryStmt, sc *Scope) (ctl, error) {
	nv, err := r.eval(fr, s.Count, sc)
	if err != nil {
		return ctlNext, err
	}
	n, ok := lang.ToInt(nv)
	if !ok || n < 0 {
		return ctlNext, errAt(s.Count, core.KindExpression, "", nil, "retry: count must be a non-negative integer, got %s", lang.TypeName(nv))
	}
	every := fr.defs.every
	if s.Every != nil {
		v, err := r.eval(fr, s.Every, sc)
		if err != nil {
			return ctlNext, err
		}
		d, ok := lang.ToDuration(v)
		if !ok {
			return ctlNext, errAt(s.Every, core.KindExpression, "", nil, "retry: every: must be a duration, got %s", lang.TypeName(v))
		}
		every = d
	}
	for try := 0; ; try++ {
		c, err := r.block(fr, s.Body, sc.Child())
		if err == nil {
			return c, nil
		}
		re := r.asRunError(err, fr.flow)
		if r.stopsRun(re) || try >= n {
			return ctlNext, re
		}
		r.logLine(fmt.Sprintf("retry %d/%d (line %d) after: %s", try+1, n, s.Range.Start.Line, re.Message))
		if err := core.Sleep(r.ctx, every); err != nil {
			return ctlNext, r.cancelled(s, err)
		}
	}
}

func (r *runner) frameStmt(fr *frame, s *ast.FrameStmt, sc *Scope) (ctl, error) {
	v, err := r.eval(fr, s.Selector, sc)
	if err != nil {
		return ctlNext, err
	}
	sels, err := selList(v)
	if err != nil {
		return ctlNext, errAt(s.Selector, core.KindExpression, "frame", nil, "frame: %v", err)
	}
	parent, err := r.frame(r.ctx)
	if err != nil {
		return ctlNext, errAt(s, kindOf(err), "frame", err, "frame %s: %v", quoteSels(sels), err)
	}
	fctx, cancel := context.WithTimeout(r.ctx, fr.defs.wait)
	child, err := parent.Frame(fctx, sels)
	cancel()
	if err != nil {
		if r.ctx.Err() != nil {
			return ctlNext, r.cancelled(s, r.ctx.Err())
		}
		kind := core.KindOf(err)
		return ctlNext, errAt(s, kind, "frame", err, "frame %s: %v", quoteSels(sels), err)
	}
	r.mu.Lock()
	r.frames = append(r.frames, child)
	depth := len(r.frames)
	r.mu.Unlock()
	c, err := r.block(fr, s.Body, sc.Child())
	r.mu.Lock()
	r.frames = r.frames[:depth-1]
	r.mu.Unlock()
	return c, err
}

func selList(v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		if x != "" {
			return []string{x}, nil
		}
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok || s == "" {
				return nil, fmt.Errorf("selector list holds %s", lang.TypeName(e))
			}
			out = append(out, s)
		}
		if len(out) > 0 {
			return out, nil
		}
	}
	return nil, fmt.Errorf("want a selector or a list of selectors, got %s", lang.TypeName(v))
}

func quoteSels(sels []string) string {
	if len(sels) == 1 {
		return fmt.Sprintf("%q", sels[0])
	}
	return fmt.Sprintf("%q", sels)
}
