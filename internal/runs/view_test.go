package runs

import (
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2h", now.Add(-2 * time.Hour)},
		{"7d", now.AddDate(0, 0, -7)},
		{"2026-11-30", time.Date(2026, 11, 30, 0, 0, 0, 0, time.Local)},
	} {
		got, err := ParseSince(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseSince(%q) = %v, %v", c.in, got, err)
		}
	}
	if _, err := ParseSince("yesterday", now); err == nil {
		t.Error("ParseSince(yesterday) = nil error")
	}
}
