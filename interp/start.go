package interp

import (
	"context"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
)

// start runs fl on its own goroutine and returns its result. When ctx ends
// and the run does not stop within cancelGrace (a driver call ignoring
// ctx), it returns the partial result at once, kind "cancelled" at the
// line of the action in flight; the abandoned goroutine records nothing
// more.
func start(ctx context.Context, fl *lang.Flow, o Options) (*Result, drivers.Page) {
	r := newRunner(ctx, o)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				r.mu.Lock()
				if !r.abandon {
					r.finish(nil, &RunError{Message: "internal error: " + stringify(p), Line: 0, Code: FlowFailedCode, Kind: core.KindBrowser})
				}
				r.mu.Unlock()
			}
		}()
		r.runFlow(fl)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		t := time.NewTimer(cancelGrace)
		defer t.Stop()
		select {
		case <-done:
		case <-t.C:
			r.mu.Lock()
			r.abandon = true
			ce := r.cancelled(fl.File, ctx.Err())
			if r.res.running > 0 {
				ce.Line = r.res.running // the action that ignored ctx
			}
			r.finish(nil, ce)
			r.mu.Unlock()
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	res := r.res
	// Copy so an abandoned goroutine can never race with the caller.
	cp := *res
	cp.Results = append(make([]*StepResult, 0, len(res.Results)), res.Results...)
	cp.Log = append([]string(nil), res.Log...)
	return &cp, r.page
}
