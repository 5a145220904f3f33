package connect

import (
	"testing"
	"time"
)

// TestRefusedBackoff: after a refusal the wait starts at a minute and doubles to 15 minutes (each
// jittered to [wait/2, wait]); a link that stayed up resets it.
func TestRefusedBackoff(t *testing.T) {
	s := &schedule{b: Backoff{}.withDefaults()}
	caps := []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 15 * time.Minute, 15 * time.Minute}
	for i, max := range caps {
		got := s.nextRefused()
		if got < max/2 || got > max {
			t.Errorf("refusal %d: wait %v, want in [%v, %v]", i+1, got, max/2, max)
		}
	}
	s.reset()
	if got := s.nextRefused(); got > time.Minute {
		t.Errorf("after a reset: %v", got)
	}
}
