package drivers

import (
	"context"
	"errors"
	"time"
)

// Kinds of PageState (LANGUAGE.md, "Fail fast").
const (
	// PageSignIn: the page is a sign-in page or wall, by its content (a
	// password field, text such as "You are not logged in").
	PageSignIn = "sign_in"
	// PageError: the page shows an error message near the last action (a
	// role=alert, an .error-like banner, a form field's error).
	PageError = "error"
	// PageHTTPError: the document is an HTTP error document (status 400 or
	// more).
	PageHTTPError = "http_error"
	// PageSettled: nothing was added to or removed from the page and no
	// request ran for a while: it will not produce the element by itself.
	PageSettled = "settled"
)

// PageState is why a wait for an element, a URL or a text ended before its
// time, or what the page was like when it ran out: the page had settled
// into a state that will not produce what the step waits for. It is in the
// chain of the wait's error (StateOf). Every kind but PageSettled ends the
// wait as soon as the page has been settled for a second; PageSettled is
// only reported when a wait runs out.
type PageState struct {
	// Kind is PageSignIn, PageError, PageHTTPError or PageSettled.
	Kind string `json:"kind"`
	// Text is a sentence for people: `the page is a sign-in page: it asks
	// for a password and says "You are currently not logged in!"`.
	Text string `json:"text"`
	// Settled is how long the page had been settled (no element added or
	// removed, no request in flight, started or ended).
	Settled time.Duration `json:"-"`
	// Err is what ended the wait besides: the context's error when it ran
	// out (PageSettled); nil when the state ended it.
	Err error `json:"-"`
}

// Error is Text.
func (s *PageState) Error() string { return s.Text }

// Unwrap returns Err.
func (s *PageState) Unwrap() error { return s.Err }

// Verdict reports whether the state is one that ends a wait early (every
// kind but PageSettled).
func (s *PageState) Verdict() bool { return s != nil && s.Kind != PageSettled && s.Kind != "" }

// StateOf returns the PageState in err's chain, or nil.
func StateOf(err error) *PageState {
	var s *PageState
	if errors.As(err, &s) {
		return s
	}
	return nil
}

// SettledLocator is implemented by documents (drivers/rod's) whose Locate
// can also end as soon as the page has settled without a match: after
// settled of no element added or removed and no request, it returns an
// error whose chain holds a PageState of kind PageSettled (not final: the
// element may still come). Healing uses it to score candidates once, early,
// instead of after the whole wait. settled <= 0 is Locate.
type SettledLocator interface {
	LocateUntilSettled(ctx context.Context, sels []string, want Checks, settled time.Duration) (Element, int, error)
}
