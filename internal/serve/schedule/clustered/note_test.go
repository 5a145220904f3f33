package clustered

import (
	"context"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// TestNoteKeepsLaterTry: the notes of one fire's tries can arrive out of order (a retry is
// queued before its try's note and another worker may land it first); an earlier try's note
// must not replace a later try's, or the schedule shows a failure that was retried away.
func TestNoteKeepsLaterTry(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NATS")
	}
	node := clustertest.Start(t, 3)[0] // three replicas, as the package's other tests
	t0 := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Open(ctx, Config{Node: node, Lander: &fakeLander{n: map[string]int{}}, Clock: schedule.NewFakeClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(ctx, Def{Name: "flaky", Tool: "flaky", Every: schedule.Duration(time.Hour), Retries: 2}); err != nil {
		t.Fatal(err)
	}
	due := t0.Add(time.Hour)
	j := job{Name: "flaky", Tool: "flaky", Due: due, Kind: "every"}
	for _, step := range []struct {
		attempt int
		state   string
		want    int // Last.Attempt after this note
	}{
		{1, "failed", 1},
		{3, "ok", 3},     // the retry landed first
		{2, "failed", 3}, // the try before it, noted late, is not the schedule's last
	} {
		j.Attempt = step.attempt
		s.note(ctx, j, Fired{State: step.state, Attempt: step.attempt})
		r, err := s.Get(ctx, "flaky")
		if err != nil {
			t.Fatal(err)
		}
		if r.Last == nil || r.Last.Attempt != step.want {
			t.Fatalf("after try %d's note: last %+v, want try %d", step.attempt, r.Last, step.want)
		}
	}
	// A later fire's first try replaces the last fire's last try.
	j.Due, j.Attempt = due.Add(time.Hour), 1
	s.note(ctx, j, Fired{State: "ok", Attempt: 1})
	if r, err := s.Get(ctx, "flaky"); err != nil || r.Last == nil || !r.Last.Due.Equal(j.Due) || r.Last.Attempt != 1 {
		t.Fatalf("the next fire's note: %+v %v", r, err)
	}
}
