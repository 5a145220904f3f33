package interp

import (
	"fmt"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
)

// Checkpoint is what a failed run leaves for a host that may resume it
// (Result.Checkpoint, Options.Resume): the flow, the arguments, the names
// bound at the flow's top level as they stood when it failed, and the
// secrets the run knew. It lives only in memory: secrets are never
// stored, so a resume is possible only in the process that ran the flow.
type Checkpoint struct {
	file *ast.File
	args lang.Args
	vars map[string]any
	mask *Mask
	line int
}

// Line is the line the run failed at (where a resume starts by default).
func (c *Checkpoint) Line() int { return c.line }

// Args are the run's typed arguments (pass them as Options.Args to
// resume).
func (c *Checkpoint) Args() lang.Args { return c.args }

// Checkpoint returns the state a failed run left (nil for a run that
// succeeded, was cancelled or could not start).
func (r *Result) Checkpoint() *Checkpoint { return r.checkpoint }

// resumeBody prepares a resumed run (Options.Resume): the checkpoint's
// top-level names in sc, its secrets in the run's mask, and the body from
// the top-level statement holding line Options.ResumeFrom (the failed
// line when 0) on. A statement inside an if, a loop or a try resumes at
// that whole top-level statement.
func (r *runner) resumeBody(fl *lang.Flow, args lang.Args, sc *Scope) ([]ast.Stmt, error) {
	cp := r.opts.Resume
	if cp.file != fl.File {
		return nil, &RunError{Message: "resume: the flow is not the one that ran (it was changed or reloaded since): run it again",
			Line: fl.File.Range.Start.Line, File: fl.Path, Code: FlowFailedCode, Kind: core.KindExpression}
	}
	r.mask = cp.mask
	r.addSecretParams(args)
	for k, v := range cp.vars {
		sc.Declare(k, v)
	}
	line := r.opts.ResumeFrom
	if line <= 0 {
		line = cp.line
	}
	body := fl.File.Body
	for i, st := range body {
		rg := st.Rng()
		if rg.End.Line >= line {
			if rg.Start.Line > line {
				break // between statements: nothing starts there
			}
			return body[i:], nil
		}
	}
	return nil, &RunError{Message: fmt.Sprintf("resume: no statement of the flow starts at or holds line %d", line),
		Line: line, File: fl.Path, Code: FlowFailedCode, Kind: core.KindExpression}
}

// keepCheckpoint records the checkpoint of a failed run in r.res; r.mu is
// held.
func (r *runner) keepCheckpoint(fl *lang.Flow, args lang.Args, sc *Scope, rerr *RunError) {
	if rerr == nil || sc == nil || rerr.Kind == core.KindCancelled || rerr.Line <= 0 {
		return
	}
	vars := make(map[string]any, len(sc.vars))
	for k, v := range sc.vars {
		vars[k] = v
	}
	line := rerr.Line
	if rerr.File != "" && rerr.File != fl.Path {
		line = 0 // failed inside a called flow: resume at the call
	}
	r.res.checkpoint = &Checkpoint{file: fl.File, args: args, vars: vars, mask: r.mask, line: line}
	if line == 0 {
		r.res.checkpoint.line = r.callLine(fl)
	}
}

// callLine is the line of the last step of fl itself (the `call` that
// failed), the flow's first line when none.
func (r *runner) callLine(fl *lang.Flow) int {
	for i := len(r.res.Results) - 1; i >= 0; i-- {
		if s := r.res.Results[i]; s.Status == StatusFailed && actions.TakesFlow(s.Action) {
			return s.Line
		}
	}
	return fl.File.Range.Start.Line
}
