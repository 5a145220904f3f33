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

// Discarder is implemented by browsers that can end at once, without the
// graceful shutdown that writes their profile to disk (drivers/rod: the
// launched process group is killed). For a browser whose profile folder is
// thrown away right after (a temporary profile), that writing is wasted
// time; a persistent profile is always closed with Close.
type Discarder interface {
	// Discard ends the browser at once and returns when its process has
	// exited; an attached browser is closed as by Close.
	Discard() error
}

// Discard ends b at once when b implements Discarder, else closes it.
func Discard(b Browser) error {
	if d, ok := b.(Discarder); ok {
		return d.Discard()
	}
	return b.Close()
}
