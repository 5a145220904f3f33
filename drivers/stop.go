package drivers

import (
	"context"
	"errors"
)

// LoadStopper is implemented by pages that can stop loading: the pending
// navigation and the requests of the document (the browser's Stop
// button; CDP Page.stopLoading).
type LoadStopper interface {
	StopLoading(ctx context.Context) error
}

// ErrNoStop is returned by StopLoading for a page that cannot stop.
var ErrNoStop = errors.New("this page cannot stop loading")

// StopLoading stops p's loading when p implements LoadStopper, else it
// returns ErrNoStop (the caller may close the tab instead).
func StopLoading(ctx context.Context, p Page) error {
	if s, ok := p.(LoadStopper); ok {
		return s.StopLoading(ctx)
	}
	return ErrNoStop
}
