package connect

import (
	"math/rand/v2"
	"time"
)

// Backoff is the re-dial schedule. The zero value means the defaults: retry every Min (1s) during
// the first Grace (10s) of an outage, so a short gateway outage is bridged within about a second of
// the gateway being back, then double the wait each attempt up to Max (60s). Every wait is
// jittered to a random value in [wait/2, wait]. After a link that stayed up ResetAfter (30s) the
// schedule starts again from Min. A refusal by the backend (a token it does not accept, a device
// id another desktop holds) is not an outage: re-dialling fast cannot help, so the wait starts
// at Refused (1 min) and doubles up to RefusedMax (15 min). All durations are injectable so tests
// run fast.
type Backoff struct {
	Min        time.Duration // first wait; default 1s
	Max        time.Duration // cap; default 60s
	Grace      time.Duration // retry at Min while the outage is younger than this; default 10s (negative: none)
	ResetAfter time.Duration // a link up this long resets the schedule; default 30s
	Refused    time.Duration // first wait after a refusal; default 1 min
	RefusedMax time.Duration // cap of waits after refusals; default 15 min
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
	if b.Refused <= 0 {
		b.Refused = time.Minute
	}
	if b.RefusedMax <= 0 {
		b.RefusedMax = 15 * time.Minute
	}
	if b.RefusedMax < b.Refused {
		b.RefusedMax = b.Refused
	}
	return b
}

// schedule tracks one outage.
type schedule struct {
	b       Backoff
	attempt int       // failed attempts since the last reset
	since   time.Time // start of the current outage
	refused int       // refusals in a row
}

// nextRefused returns the wait after a refusal: Refused, doubling per refusal in a row, up to
// RefusedMax, jittered to [wait/2, wait].
func (s *schedule) nextRefused() time.Duration {
	d := s.b.Refused
	for i := 0; i < s.refused && d < s.b.RefusedMax; i++ {
		d *= 2
	}
	if d > s.b.RefusedMax {
		d = s.b.RefusedMax
	}
	s.refused++
	half := d / 2
	return half + time.Duration(rand.Int64N(int64(d-half)+1))
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
func (s *schedule) reset() { s.attempt = 0; s.since = time.Time{}; s.refused = 0 }
