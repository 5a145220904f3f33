package schedule

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
)

// TestStateShowsOrphan: a running fire whose process ended (kill -9) shows
// as interrupted, saying what becomes of it, not as running.
func TestStateShowsOrphan(t *testing.T) {
	run := &runs.Fire{State: runs.FireRunning, Attempt: 1, MaxAttempts: 2}
	orphan := &runs.Fire{State: runs.FireRunning, Attempt: 1, MaxAttempts: 1, Orphan: true}
	queued := &runs.Fire{State: runs.FireQueued}
	for _, tc := range []struct {
		active []*runs.Fire
		want   string
	}{
		{nil, "active"},
		{[]*runs.Fire{run}, "running"},
		{[]*runs.Fire{orphan}, "interrupted"},
		{[]*runs.Fire{orphan, queued}, "interrupted, 1 waiting"},
	} {
		if got := state(&View{Active: tc.active}); got != tc.want {
			t.Errorf("state = %q, want %q", got, tc.want)
		}
	}
	if l := fireLine(orphan); !strings.Contains(l, "running (attempt 1 of 1), interrupted: "+OrphanText) {
		t.Errorf("fire line %q", l)
	}
	if l := fireLine(run); strings.Contains(l, "interrupted") {
		t.Errorf("fire line %q", l)
	}
}
