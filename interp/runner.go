package interp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/expr-lang/expr/vm"
	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/stdlib"
)

// runner is the state of one Run: tabs, frames, results, log and masking.
// Statements run on one goroutine; mu guards what Run may read while it
// abandons a run that does not stop in time (results, log, page).
type runner struct {
	ctx   context.Context
	opts  Options
	mask  *Mask
	start time.Time

	mu       sync.Mutex
	res      *Result
	abandon  bool
	page     drivers.Page
	frames   []drivers.Frame // innermost last; empty = the page's top document
	openers  map[drivers.Page]drivers.Page
	closed   map[drivers.Page]bool
	policy   *dialogPolicy
	dialogs  []map[string]any
	seen     map[drivers.Page]int // dialogs of each page already recorded
	total    int
	depth    int
	vm       vm.VM
	pageFns  lang.PageFuncs
	dialogFn func() []map[string]any
	idents   map[*ast.ExprSrc][]string
	held     heldCache // holdsSecret of lists and maps in scope, by identity
	// signingIn is set while the sign-in flow runs; signIns counts them
	// (login.go).
	signingIn bool
	signIns   int
	// columns are the column lists of the tables the run read (row.go).
	columns columnBook
	// hookAction is the action statement whose StepHook Before is due
	// once its arguments are resolved, hookInfo its Step (step.go).
	hookAction *ast.ActionStmt
	hookInfo   *Step
}

type dialogPolicy struct {
	accept bool
	text   string
}

// frame is one flow invocation (the run's flow, or a `call`).
type frame struct {
	flow    *lang.Flow
	defs    settings
	outputs any
	// signedInAt is the action statement being tried again after a
	// sign-in (login.go): it does not sign in twice.
	signedInAt *ast.ActionStmt
	// trail is what the flow did to the page since its last `open`
	// (login.go): a read that finds the tab signed out after them does
	// them again once signed in.
	trail []trailStep
}

// settings are resolved replay options.
type settings struct {
	wait, every, timeout time.Duration
	retries              int
	skip                 bool // on_timeout: "skip"
	maxLoops             int
}

// Built-in defaults (LANGUAGE.md, "Action options and the replay engine").
const (
	DefaultWait     = 10 * time.Second
	DefaultRetries  = 2
	DefaultEvery    = time.Second
	DefaultTimeout  = 30 * time.Second
	DefaultMaxLoops = 1000
	// MaxCallDepth bounds nested `call`s (recursion).
	MaxCallDepth = 32
	// cancelGrace is how long Run waits for a cancelled run to stop by
	// itself before returning the partial result anyway.
	cancelGrace = 700 * time.Millisecond
)

func newRunner(ctx context.Context, o Options) *runner {
	r := &runner{ctx: ctx, opts: o, mask: &Mask{}, start: time.Now(), page: o.Page,
		res: &Result{Results: []*StepResult{}}, openers: map[drivers.Page]drivers.Page{},
		seen: map[drivers.Page]int{}}
	if o.Mask != nil {
		r.mask = o.Mask
	}
	// page.* look without waiting and without side effects: with no tab
	// open yet, nothing exists and the URL and title are "".
	r.pageFns = lang.PageFuncs{
		Exists: func(sel string) (bool, error) {
			f := r.lookFrame()
			if f == nil {
				return false, nil
			}
			return f.Exists(r.ctx, sel)
		},
		Count: func(sel string) (int, error) {
			f := r.lookFrame()
			if f == nil {
				return 0, nil
			}
			return f.Count(r.ctx, sel)
		},
		URL: func() (string, error) {
			p := r.CurrentPage()
			if p == nil {
				return "", nil
			}
			return p.URL(r.ctx)
		},
		Title: func() (string, error) {
			p := r.CurrentPage()
			if p == nil {
				return "", nil
			}
			return p.Title(r.ctx)
		},
	}
	if o.Page != nil {
		// A run starts with the default policy and sees only its own dialogs.
		o.Page.SetDialogPolicy(false, "")
		r.seen[o.Page] = len(o.Page.Dialogs())
	}
	r.dialogFn = func() []map[string]any {
		r.syncDialogs()
		out := make([]map[string]any, len(r.dialogs))
		copy(out, r.dialogs)
		return out
	}
	return r
}

// runFlow executes the whole flow and fills r.res.
func (r *runner) runFlow(fl *lang.Flow) {
	fr := &frame{flow: fl, defs: r.settingsOf(fl.File)}
	args, err := r.opts.Args, error(nil)
	switch {
	case args.IsZero():
		args, err = fl.CheckArgs(nil)
	case !args.For(fl):
		err = errors.New("the arguments were checked for another flow (or another version of this one)")
	}
	var rerr *RunError
	var sc *Scope
	if err != nil {
		rerr = &RunError{Message: err.Error(), Line: fl.File.Range.Start.Line, File: fl.Path, Code: FlowFailedCode, Kind: core.KindExpression, cause: err}
	} else {
		r.addSecretParams(args)
		if isStraight(fl.File.Body) {
			r.total = countActions(fl.File.Body)
		}
		sc = NewScope(args.Map(), true).Child()
		body := fl.File.Body
		if r.opts.Resume != nil {
			body, err = r.resumeBody(fl, args, sc) // resume.go
		}
		if err == nil {
			_, err = r.block(fr, body, sc)
		}
		if err != nil {
			rerr = r.asRunError(err, fl)
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.abandon {
		return
	}
	r.finish(fr.outputs, rerr)
	r.keepCheckpoint(fl, args, sc, rerr) // resume.go
}

// finish fills the totals of r.res; r.mu is held.
func (r *runner) finish(outputs any, rerr *RunError) {
	res := r.res
	res.TotalActions = len(res.Results)
	res.CompletedActions, res.FailedActions = 0, 0
	for _, s := range res.Results {
		if s.Status == StatusOK {
			res.CompletedActions++
		} else {
			res.FailedActions++
		}
	}
	res.Success = rerr == nil
	if rerr == nil {
		res.Outputs = r.columns.ordered(finite(r.mask.Value(outputs)))
	}
	if rerr != nil {
		rerr.Message = r.mask.String(rerr.Message)
		res.Error = rerr
	}
	res.DurationMs = time.Since(r.start).Milliseconds()
}

func (r *runner) addSecretParams(args lang.Args) {
	for _, s := range args.Secrets() {
		r.mask.Add(s)
	}
}

// settingsOf resolves a flow's defaults over the built-in ones, then
// Options.Defaults over those.
func (r *runner) settingsOf(f *ast.File) settings {
	s := settings{wait: DefaultWait, every: DefaultEvery, timeout: DefaultTimeout, retries: DefaultRetries, maxLoops: DefaultMaxLoops}
	for _, o := range f.Defaults {
		spec := actions.DefaultsKey(o.Name)
		if spec == nil {
			continue // the checker reports unknown keys
		}
		v, err := lang.Literal(o.Value)
		if err == nil {
			v, err = lang.OptionValue(spec, v) // its type from the table
		}
		if err != nil {
			continue // the checker reports bad defaults
		}
		switch o.Name {
		case "wait":
			s.wait = v.(time.Duration)
		case "every":
			s.every = v.(time.Duration)
		case "timeout":
			s.timeout = v.(time.Duration)
		case "retries":
			s.retries = v.(int)
		case "max_loops":
			if n := v.(int); n > 0 {
				s.maxLoops = n
			}
		case "on_timeout":
			s.skip = v == "skip"
		}
	}
	if d := r.opts.Defaults; d != nil {
		if d.Wait > 0 {
			s.wait = d.Wait
		}
		if d.Every > 0 {
			s.every = d.Every
		}
		if d.Timeout > 0 {
			s.timeout = d.Timeout
		}
		if d.Retries != nil {
			s.retries = *d.Retries
		}
		if d.MaxLoops > 0 {
			s.maxLoops = d.MaxLoops
		}
		switch d.OnTimeout {
		case "skip":
			s.skip = true
		case "fail":
			s.skip = false
		}
	}
	return s
}

// isStraight reports whether body has only actions, assignments, log,
// assert, fail and return, and no call: then the number of actions is known
// up front (a fail or return may end the run before the last one).
func isStraight(body []ast.Stmt) bool {
	for _, st := range body {
		switch s := st.(type) {
		case *ast.ActionStmt:
			if actions.TakesFlow(s.Action) {
				return false
			}
		case *ast.AssignStmt, *ast.LogStmt, *ast.AssertStmt, *ast.FailStmt, *ast.ReturnStmt:
		default:
			return false
		}
	}
	return true
}

func countActions(body []ast.Stmt) int {
	n := 0
	for _, st := range body {
		if _, ok := st.(*ast.ActionStmt); ok {
			n++
		}
	}
	return n
}

// ---- tabs and frames (stdlib.Env) ----

func (r *runner) Browser() drivers.Browser { return r.opts.Browser }

func (r *runner) CurrentPage() drivers.Page {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.page
}

func (r *runner) Page(ctx context.Context) (drivers.Page, error) { return r.ensurePage(ctx) }

func (r *runner) ensurePage(ctx context.Context) (drivers.Page, error) {
	if p := r.CurrentPage(); p != nil {
		return p, nil
	}
	if r.opts.Browser == nil {
		return nil, core.Errorf(core.KindBrowser, "no browser: this run was started without one")
	}
	p, err := r.opts.Browser.NewPage(ctx, "")
	if err != nil {
		return nil, err
	}
	r.SetPage(p, nil)
	return p, nil
}

func (r *runner) Frame(ctx context.Context) (drivers.Frame, error) { return r.frame(ctx) }

func (r *runner) frame(ctx context.Context) (drivers.Frame, error) {
	r.mu.Lock()
	if n := len(r.frames); n > 0 && r.frames[n-1] != nil {
		f := r.frames[n-1]
		r.mu.Unlock()
		return f, nil
	}
	r.mu.Unlock()
	return r.ensurePage(ctx)
}

// lookFrame is the current document, nil when no tab is open.
func (r *runner) lookFrame() drivers.Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.frames); n > 0 && r.frames[n-1] != nil {
		return r.frames[n-1]
	}
	if r.page == nil {
		return nil
	}
	return r.page
}

func (r *runner) SetPage(p drivers.Page, opener drivers.Page) {
	r.mu.Lock()
	if r.page != nil && r.page != p {
		r.syncDialogsLocked(r.page)
	}
	r.page = p
	for i := range r.frames {
		r.frames[i] = nil // frames of another tab do not apply; the block's end restores
	}
	if p != nil && opener != nil {
		r.openers[p] = opener
	}
	pol := r.policy
	r.mu.Unlock()
	if p != nil && pol != nil {
		p.SetDialogPolicy(pol.accept, pol.text)
	}
}

func (r *runner) Opener(p drivers.Page) drivers.Page {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.openers[p]
	if r.closed[o] {
		return nil
	}
	return o
}

func (r *runner) Closed(p drivers.Page) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed == nil {
		r.closed = map[drivers.Page]bool{}
	}
	r.closed[p] = true
	delete(r.openers, p)
}

func (r *runner) SetDialogPolicy(accept bool, text string) {
	r.mu.Lock()
	r.policy = &dialogPolicy{accept: accept, text: text}
	p := r.page
	r.mu.Unlock()
	if p != nil {
		p.SetDialogPolicy(accept, text)
	}
}

func (r *runner) Host() core.Host { return r.opts.Host }

func (r *runner) AddSecret(s string) { r.mask.Add(s) }

// TempFile records a temporary file of the run (stdlib.Env).
func (r *runner) TempFile(path string) {
	r.mu.Lock()
	r.res.temps = append(r.res.temps, path)
	r.mu.Unlock()
}

// Mask returns v with secrets shown as *** (stdlib.Env).
func (r *runner) Mask(v any) any { return r.mask.Value(v) }

func (r *runner) Logf(format string, args ...any) { r.logLine(fmt.Sprintf(format, args...)) }

func (r *runner) logLine(s string) {
	s = r.mask.String(s)
	r.mu.Lock()
	if r.abandon {
		r.mu.Unlock()
		return
	}
	r.res.Log = append(r.res.Log, s)
	r.mu.Unlock()
	r.emit(Event{Kind: EventLog, Summary: s})
}

// syncDialogs records the dialogs the current tab saw since the last look.
func (r *runner) syncDialogs() {
	r.mu.Lock()
	p := r.page
	if p != nil {
		r.syncDialogsLocked(p)
	}
	r.mu.Unlock()
}

func (r *runner) syncDialogsLocked(p drivers.Page) {
	ds := p.Dialogs()
	n := r.seen[p]
	if len(ds) <= n {
		return
	}
	for _, d := range ds[n:] {
		r.dialogs = append(r.dialogs, map[string]any{"type": d.Type, "message": d.Message})
		if !r.abandon {
			line := r.mask.String(fmt.Sprintf("dialog %s: %s", d.Type, d.Message))
			r.res.Log = append(r.res.Log, line)
		}
	}
	r.seen[p] = len(ds)
}

// CallFlow runs the flow named name (stdlib.Env).
func (r *runner) CallFlow(ctx context.Context, name string, args map[string]any) (any, error) {
	if r.opts.Flows == nil {
		return nil, core.Errorf(core.KindExpression, "call %s: no other flows are available here", name)
	}
	fl, ok := r.opts.Flows(name)
	if !ok || fl == nil || fl.File == nil {
		return nil, core.Errorf(core.KindExpression, "call %s: no flow named %q", name, name)
	}
	if r.depth >= MaxCallDepth {
		return nil, &core.Error{Kind: core.KindExpression, Err: errTooDeep,
			Msg: fmt.Sprintf("call %s: calls nested more than %d deep (a flow calls itself, directly or through others)", name, MaxCallDepth)}
	}
	typed, err := fl.CheckArgs(args)
	if err != nil {
		return nil, &core.Error{Kind: core.KindExpression, Msg: fmt.Sprintf("call %s: %v", name, err), Err: err}
	}
	r.addSecretParams(typed)
	r.depth++
	defer func() { r.depth-- }()
	fr := &frame{flow: fl, defs: r.settingsOf(fl.File)}
	r.mu.Lock()
	saved := r.frames
	r.frames = nil
	r.mu.Unlock()
	_, err = r.block(fr, fl.File.Body, NewScope(typed.Map(), true).Child())
	r.mu.Lock()
	r.frames = saved
	r.mu.Unlock()
	if err != nil {
		var re *RunError
		if errors.As(err, &re) && errors.Is(err, errTooDeep) {
			// One message, not one "call NAME:" per level.
			return nil, re
		}
		if errors.As(err, &re) {
			where := fl.Path
			if where == "" {
				where = name
			}
			return nil, &calledError{re: re, msg: fmt.Sprintf("call %s: %s (%s:%d)", name, re.Message, where, re.Line)}
		}
		return nil, err
	}
	return fr.outputs, nil
}

// errTooDeep marks the error of a call past MaxCallDepth.
var errTooDeep = errors.New("calls nested too deep")

// calledError is a failure inside a called flow; its kind is the inner one.
type calledError struct {
	re  *RunError
	msg string
}

func (e *calledError) Error() string { return e.msg }
func (e *calledError) Unwrap() error { return e.re }

var _ stdlib.Env = (*runner)(nil)
