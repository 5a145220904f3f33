package rod

import (
	"context"

	"github.com/go-rod/rod/lib/proto"
)

// StopLoading stops the tab's loading like the browser's Stop button
// (CDP Page.stopLoading): the pending navigation and the document's
// requests are cancelled, so Chromium lets go of their cache entries
// (drivers.LoadStopper).
func (p *page) StopLoading(ctx context.Context) error {
	return wrapErr(ctx, "stop loading", proto.PageStopLoading{}.Call(p.rp.Context(ctx)))
}
