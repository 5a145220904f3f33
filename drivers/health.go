package drivers

// GoneReporter is implemented by browsers that can tell, without a
// DevTools round trip, that they have ended: the launched process exited
// or the DevTools connection closed. The profiles pool asks it on every
// acquire (Browser.Alive costs a round trip and is asked only after a
// rest).
type GoneReporter interface {
	// Gone reports that the browser has certainly ended; false means
	// "not known to be gone".
	Gone() bool
}

// Gone reports b.Gone() when b implements GoneReporter, else false.
func Gone(b Browser) bool {
	g, ok := b.(GoneReporter)
	return ok && g.Gone()
}
