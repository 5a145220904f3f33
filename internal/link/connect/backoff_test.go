package connect

import (
	"testing"
	"time"
)

func TestBackoffSchedule(t *testing.T) {
	b := Backoff{}.withDefaults()
	if b.Min != time.Second || b.Max != time.Minute || b.Grace != 10*time.Second || b.ResetAfter != 30*time.Second {
		t.Fatalf("defaults: %+v", b)
	}
	s := &schedule{b: b}
	now := time.Unix(1000, 0)
	// During the grace period: every Min, jittered into [Min/2, Min].
	start := now
	for now.Sub(start) < b.Grace-b.Min {
		d := s.next(now)
		if d < b.Min/2 || d > b.Min {
			t.Fatalf("grace wait %v outside [%v, %v]", d, b.Min/2, b.Min)
		}
		now = now.Add(d)
	}
	now = now.Add(b.Grace) // past the grace period: doubling up to Max
	want := b.Min
	for i := 0; i < 10; i++ {
		d := s.next(now)
		if d < want/2 || d > want {
			t.Fatalf("attempt %d: wait %v outside [%v, %v]", i, d, want/2, want)
		}
		if want *= 2; want > b.Max {
			want = b.Max
		}
		now = now.Add(d)
	}
	if want != b.Max {
		t.Fatalf("never reached the cap: %v", want)
	}
	s.reset()
	if d := s.next(now); d > b.Min {
		t.Errorf("after reset: %v, want at most %v", d, b.Min)
	}
	// No grace: doubling from the first attempt.
	s = &schedule{b: Backoff{Min: 10 * time.Millisecond, Max: 40 * time.Millisecond, Grace: -1}.withDefaults()}
	var got []time.Duration
	for i := 0; i < 4; i++ {
		got = append(got, s.next(now))
	}
	for i, max := range []time.Duration{10, 20, 40, 40} {
		if got[i] > max*time.Millisecond || got[i] < max*time.Millisecond/2 {
			t.Errorf("no-grace waits %v, want about 10,20,40,40ms", got)
		}
	}
}
