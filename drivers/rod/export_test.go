package rod

import "github.com/rpa-dev/rpa/drivers"

// IsOutOfProcess reports whether f is an iframe document entered through
// its own target (site isolation on); for tests.
func IsOutOfProcess(f drivers.Frame) bool {
	fr, ok := f.(*frame)
	return ok && fr.oopif
}

// Endpoint returns the remote endpoint a browser was attached through
// ("" for a launched one); for tests.
func Endpoint(b drivers.Browser) string {
	if br, ok := b.(*browser); ok {
		return br.endpoint
	}
	return ""
}
