package rod

import "github.com/rpa-dev/rpa/drivers"

// IsOutOfProcess reports whether f is an iframe document entered through
// its own target (site isolation on); for tests.
func IsOutOfProcess(f drivers.Frame) bool {
	fr, ok := f.(*frame)
	return ok && fr.oopif
}
