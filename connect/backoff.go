package connect

import (
	"math/rand/v2"
	"time"
)

// Backoff is the re-dial schedule. The zero value means the defaults: retry every Min (1s) during
// the first Grace (10s) of an outage, so a short gateway outage is bridged within about a second of
// the gateway being back, then double the wait each attempt up to Max (60s). Every wait is
// jittered to a random value in [wait/2, wait]. After a link that stayed up ResetAfter (30s) the
// schedule starts again from Min. All durations are injectable so tests run fast.
type Backoff struct {
	Min        time.Duration // first wait; default 1s
	Max        time.Duration // cap; default 60s
	Grace      time.Duration // retry at Min while the outage is younger than this; default 10s (negative: none)
	ResetAfter time.Duration // a link up this long resets the schedule; default 30s
}

func (b Backoff) withDefaults() Backoff {
	if b.Min <= 0 {
		b.Min = time.Second
	}
	if b.Max <= 0 {
		b.Max = 60 * time.Second
	}
	if b.Max < b.Min {
		b.Max = b.Min
	}
	if b.Grace == 0 {
		b.Grace = 10 * time.Second
	}
	if b.ResetAfter <= 0 {
		b.ResetAfter = 30 * time.Second
	}
	return b
}

// schedule tracks one outage.
type schedule struct {
	b       Backoff
	attempt int       // failed attempts since the last reset
	since   time.Time // start of the current outage
}

// next returns the wait before the next dial, given now.
func (s *schedule) next(now time.Time) time.Duration {
	if s.since.IsZero() {
		s.since = now
	}
	var d time.Duration
	if s.b.Grace > 0 && now.Sub(s.since) < s.b.Grace {
		d = s.b.Min
	} else {
		d = s.b.Min
		for i := 0; i < s.attempt && d < s.b.Max; i++ {
			d *= 2
		}
		if d > s.b.Max {
			d = s.b.Max
		}
		s.attempt++
	}
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
}

// reset starts a new outage from Min.
func (s *schedule) reset() { s.attempt = 0; s.since = time.Time{} }
