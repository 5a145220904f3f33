package rod

import (
	"context"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/proto"
)

// Out-of-process iframes.
//
// With site isolation on (any real Chrome, every remote pool, an attached
// Chromium; the launched one turns it off), an iframe from another site
// lives in another renderer process: its element's DOM node has a frame id
// but no content document, and the frame is a target of its own (type
// "iframe", target id = frame id). framePage attaches to that target with a
// flat session (Target.attachToTarget flatten, the session multiplexed on
// the browser's connection as Chrome's auto-attach does) and returns rod's
// page for it: engine calls run in the frame's own JS context; pointer
// input still goes to the tab (the frame's origin in the tab's viewport is
// added, see frame.origin).

// framePage returns rod's page for the out-of-process frame id, attaching
// on first use (rod caches pages by target id).
func (b *browser) framePage(ctx context.Context, id proto.TargetTargetID) (*rod.Page, error) {
	type res struct {
		rp  *rod.Page
		err error
	}
	ch := make(chan res, 1)
	go func() {
		rp, err := b.rb.PageFromTarget(id)
		ch <- res{rp, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		// its next documents get the engine up front (frame.go)
		_ = engineInit(r.rp.Context(ctx))
		return r.rp, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
