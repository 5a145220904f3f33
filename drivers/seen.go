package drivers

import "errors"

// SeenError is the cause a wait gives when it runs out: what the page
// showed last, as a sentence that follows "waiting for X: " in the wait
// action's timeout message (LANGUAGE.md, "wait"): `no element matches
// "#x"`, `"#x" matches div#x, which is not visible (display: none)`,
// `the URL is https://host/login`.
type SeenError struct {
	Seen string
	Err  error // why the wait ended (ctx's error)
}

func (e *SeenError) Error() string { return e.Seen }

// Unwrap returns why the wait ended.
func (e *SeenError) Unwrap() error { return e.Err }

// Seen returns what the wait that failed with err saw last (a SeenError
// in err's chain), or "".
func Seen(err error) string {
	var s *SeenError
	if errors.As(err, &s) {
		return s.Seen
	}
	return ""
}
