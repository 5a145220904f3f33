package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/stdlib"
)

// actionOpts are the replay options one action resolved.
type actionOpts struct {
	settings
	optional   bool
	timeoutSet bool // timeout: given on the action
	waitSet    bool // wait: given on the action
	retriesSet bool // retries: given on the action
}

// action runs one action statement through the replay engine: resolve
// options (action > defaults > built-ins), run the attempts, record the
// step, apply optional / on_timeout skip.
func (r *runner) action(fr *frame, s *ast.ActionStmt, sc *Scope) (any, error) {
	spec, impl, ok := stdlib.Lookup(s.Action)
	if !ok {
		return nil, errAt(s, core.KindExpression, s.Action, nil, "unknown action %q", s.Action)
	}
	name := spec.Name
	c := &stdlib.Call{Action: spec, Args: make([]any, len(spec.Params)), Env: r, SelectorIndex: -1, Line: s.Range.Start.Line}
	if fr.flow != nil && fr.flow.File != nil {
		c.Flow = fr.flow.File.Name
	}
	for i, a := range s.Args {
		if i >= len(spec.Params) {
			return nil, errAt(a, core.KindExpression, name, nil, "%s takes %d arguments, got %d", name, len(spec.Params), len(s.Args))
		}
		var v any
		var err error
		switch {
		case i == spec.FlowParam():
			v, err = lang.Literal(a) // a bare flow name
		case spec.Params[i].Kind == actions.KindCommand:
			v, err = r.evalQ(fr, a, sc, commandQuote)
		default:
			v, err = r.eval(fr, a, sc)
		}
		if err != nil {
			return nil, r.tagAction(err, name)
		}
		c.Args[i] = v
	}
	o := actionOpts{settings: fr.defs}
	for _, op := range s.Options {
		own := ownOption(spec, op.Name)
		if own != nil && own.Kind == actions.KindExpr {
			e, frm := op.Value, fr
			if c.Opts == nil {
				c.Opts = map[string]any{}
			}
			c.Opts[op.Name] = func(context.Context) (any, error) { return r.eval(frm, e, sc) }
			continue
		}
		v, err := r.eval(fr, op.Value, sc)
		if err != nil {
			return nil, r.tagAction(err, name)
		}
		if own != nil {
			if c.Opts == nil {
				c.Opts = map[string]any{}
			}
			c.Opts[op.Name] = v
			continue
		}
		if err := o.set(op.Name, v); err != nil {
			return nil, errAt(op, core.KindExpression, name, err, "%s: %v", name, err)
		}
	}
	c.Wait, c.Timeout, c.TimeoutSet = o.wait, o.timeout, o.timeoutSet
	if r.opts.StepHook != nil {
		if err := r.beforeAction(s, name, c.Args); err != nil { // step.go
			return nil, err
		}
	}

	r.mu.Lock()
	index := len(r.res.Results) + 1
	page := r.page
	r.res.running = s.Range.Start.Line
	r.mu.Unlock()
	target := r.target(c)
	r.emit(Event{Kind: EventStarted, Index: index, Total: r.total, Action: name, Target: target, Line: s.Range.Start.Line,
		Evidence: r.evidence(c, spec)})
	if page != nil && spec.Popup {
		page.MarkPopups()
	}

	t0 := time.Now()
	var v any
	var err error
	if spec.Class == actions.ClassPage {
		v, err = r.attempts(c, impl, o)
	} else {
		v, err = r.once(c, impl, o)
	}
	dur := time.Since(t0).Milliseconds()
	if r.opts.Page != nil || page != nil || r.CurrentPage() != nil {
		r.syncDialogs()
	}

	step := &StepResult{Index: index, Action: name, Line: s.Range.Start.Line, DurationMs: dur, Status: StatusOK}
	if c.SelectorIndex >= 0 {
		i := c.SelectorIndex
		step.Selector, step.SelectorIndex = r.mask.String(c.Selector), &i
	}
	r.healStep(step, c) // heal.go
	var rerr error
	if err != nil {
		kind := kindOf(err)
		msg := r.mask.String(errMessage(name, err))
		step.Status, step.Error = StatusFailed, msg
		switch {
		case kind == core.KindCancelled || r.ctx.Err() != nil:
			ce := r.cancelled(s, r.ctx.Err())
			step.Error, rerr = name+": "+ce.Message, ce
		case kind != core.KindExpression && o.optional:
			r.logLine(fmt.Sprintf("line %d: optional %s failed: %s", step.Line, name, msg))
		case kind != core.KindExpression && o.skip:
			step.Status = StatusSkipped
			r.logLine(fmt.Sprintf("line %d: skipped %s: %s", step.Line, name, msg))
		default:
			rerr = errAt(s, kind, name, err, "%s", msg)
		}
		v = nil
	} else if v != nil {
		r.mu.Lock()
		book := r.columns
		r.mu.Unlock()
		step.Output = book.ordered(finite(r.mask.Value(v)))
	}
	r.mu.Lock()
	if !r.abandon {
		// A `call` numbers the called flow's actions while it runs: its
		// own entry comes after them, so its index is taken now.
		step.Index = len(r.res.Results) + 1
		index = step.Index
		r.res.Results = append(r.res.Results, step)
	}
	r.mu.Unlock()
	sum := step.Error
	if sum == "" && step.Output != nil {
		sum = summarize(step.Output)
	}
	r.emit(Event{Kind: EventFinished, Index: index, Total: r.total, Action: name, Target: target, Line: step.Line,
		Status: step.Status, DurationMs: dur, Summary: sum, Evidence: r.evidence(c, spec)})
	return v, rerr
}

// ownOption returns the action's own option named n (not a common one).
func ownOption(a *actions.Action, n string) *actions.Option {
	for i := range a.Options {
		if a.Options[i].Name == n {
			return &a.Options[i]
		}
	}
	return nil
}

// set applies one common option, converted by its kind in the table
// (actions.Common).
func (o *actionOpts) set(name string, v any) error {
	spec := actions.CommonOption(name)
	if spec == nil {
		return fmt.Errorf("unknown option %q", name)
	}
	v, err := lang.OptionValue(spec, v)
	if err != nil {
		return fmt.Errorf("%s: %v", name, err)
	}
	switch name {
	case "wait":
		o.wait, o.waitSet = v.(time.Duration), true
	case "every":
		o.every = v.(time.Duration)
	case "timeout":
		o.timeout, o.timeoutSet = v.(time.Duration), true
	case "retries":
		o.retries, o.retriesSet = v.(int), true
	case "optional":
		o.optional = v.(bool)
	}
	return nil
}

// tagAction names the action on an argument error.
func (r *runner) tagAction(err error, name string) error {
	var re *RunError
	if errors.As(err, &re) && re.Action == "" {
		re.Action = name
	}
	return err
}

// attempts runs a ClassPage action: up to 1+retries attempts `every`
// apart, all within `timeout` (which cuts the last one short). An attempt
// whose element wait ran out on a page that had settled (nothing loaded or
// changed for the last half of the wait: drivers.PageSettled) is the last
// unless the action itself gives retries: (LANGUAGE.md, "Fail fast");
// retries are for actions that ran and failed, and for pages still busy.
func (r *runner) attempts(c *stdlib.Call, impl stdlib.Impl, o actionOpts) (any, error) {
	actx, cancel := context.WithTimeout(r.ctx, o.timeout)
	defer cancel()
	var err error
	for try := 0; ; try++ {
		c.Selector, c.SelectorIndex = "", -1
		var v any
		v, err = impl(actx, c)
		if err == nil {
			return v, nil
		}
		if r.ctx.Err() != nil {
			return nil, r.ctx.Err()
		}
		if try >= o.retries || actx.Err() != nil || core.IsFinal(err) || (!o.retriesSet && settledMiss(err)) {
			break
		}
		if core.Sleep(actx, o.every) != nil {
			if r.ctx.Err() != nil {
				return nil, r.ctx.Err()
			}
			break
		}
	}
	if actx.Err() != nil && kindOf(err) == core.KindBrowser {
		return nil, &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("timed out after %s (%v)", o.timeout, err), Err: err}
	}
	return nil, err
}

// settledMiss reports whether err is an element wait that ran out on a
// settled page (drivers.PageSettled): another try would not find it.
func settledMiss(err error) bool {
	st := drivers.StateOf(err)
	return st != nil && st.Kind == drivers.PageSettled && kindOf(err) == core.KindNotFound
}

// once runs a ClassOnce action a single time, bounded as its table row
// says (actions.Bound): `wait` by its timeout: (or wait:, else the flow's
// wait); download by its timeout; llm by an explicit timeout:; sleep, ask
// (its own answer timeout), exec (the host applies an explicit timeout:),
// call and dialog only by cancellation.
func (r *runner) once(c *stdlib.Call, impl stdlib.Impl, o actionOpts) (any, error) {
	ctx := r.ctx
	var d time.Duration
	bounded := true
	switch c.Action.Bound {
	case actions.BoundWait:
		d = o.wait
		if o.timeoutSet {
			d = o.timeout
		}
		c.Timeout = d
	case actions.BoundTimeout:
		d = o.timeout
	case actions.BoundTimeoutSet:
		d, bounded = o.timeout, o.timeoutSet
	default:
		bounded = false
	}
	if bounded {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	v, err := impl(ctx, c)
	if err != nil && r.ctx.Err() != nil {
		return nil, r.ctx.Err()
	}
	if err != nil && ctx.Err() != nil && kindOf(err) == core.KindBrowser {
		return nil, &core.Error{Kind: core.KindTimeout, Msg: fmt.Sprintf("timed out after %s (%v)", c.Timeout, err), Err: err}
	}
	return v, err
}

// errMessage makes a step error start with the action name.
func errMessage(name string, err error) string {
	msg := core.Message(err.Error()) // a caller's megabytes quoted in it go no further
	if msg == context.DeadlineExceeded.Error() {
		msg = "timed out"
	}
	if strings.HasPrefix(msg, name+":") || strings.HasPrefix(msg, name+" ") {
		return msg
	}
	return name + ": " + msg
}

// target is the masked, shortened first argument, for events: a duration
// as written (`sleep 1s`), and, for an action without one, its url: or
// text: option (`wait url: "/done"`).
func (r *runner) target(c *stdlib.Call) string {
	if len(c.Args) == 0 || c.Args[0] == nil {
		for _, o := range []string{"url", "text"} {
			if v, ok := c.Opts[o].(string); ok {
				return shorten(r.mask.String(o+": "+v), 80)
			}
		}
		return ""
	}
	var s string
	switch x := c.Args[0].(type) {
	case time.Duration:
		s = x.String()
	case string:
		s = x
	case []any:
		if len(x) > 0 {
			s = stringify(x[0])
		}
	default:
		s = stringify(x)
	}
	return shorten(r.mask.String(s), 80)
}

// summarize is a short form of an (already masked) output.
func summarize(v any) string {
	switch x := v.(type) {
	case []any:
		return fmt.Sprintf("[%d items]", len(x))
	case string:
		return shorten(x, 80)
	}
	return shorten(stringify(v), 80)
}

func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	rs := []rune(s)
	return string(rs[:n-1]) + "…"
}

// shellQuote quotes s for sh -c (exec's interpolated values).
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./=:,+@%", c))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// emit delivers an event unless the run was abandoned.
func (r *runner) emit(e Event) {
	if r.opts.Events == nil {
		return
	}
	r.mu.Lock()
	gone := r.abandon
	r.mu.Unlock()
	if !gone {
		r.opts.Events(e)
	}
}
