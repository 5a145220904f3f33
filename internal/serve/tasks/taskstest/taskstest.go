// Package taskstest checks an implementation of tasks.Store against the
// interface's contract (create-if-absent, atomic updates under
// concurrency, owner-keyed pages, live records, sweeping expired ones):
// every Store (the run store's, memory, a cluster's key-value bucket)
// passes the same test.
package taskstest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// Store runs the contract against st, which must start empty: records
// kept, a second create refused, updates atomic under 20 concurrent
// writers, pages by owner, the live ones listed, what expired swept.
func Store(t *testing.T, st tasks.Store) {
	t.Helper()
	ctx := context.Background()
	now := time.Now().UTC()
	mk := func(owner string, i int) *tasks.Record {
		run := runs.NewID(now)
		return &tasks.Record{ID: tasks.NewID(run), RunID: run, Owner: runs.Owner{Kind: runs.CallerMCP, Token: owner}, Tool: "t", Status: tasks.Working, Created: now, Updated: now, TTLMs: 1000}
	}
	a := mk("alice", 0)
	if err := st.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, a); !errors.Is(err, tasks.ErrExists) {
		t.Errorf("second create: %v", err)
	}
	if _, err := st.Get(ctx, "nope"); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("unknown id: %v", err)
	}
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := st.Update(ctx, a.ID, func(r *tasks.Record) error { r.PollMs++; return nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	got, err := st.Get(ctx, a.ID)
	if err != nil || got.PollMs != 20 {
		t.Fatalf("after 20 concurrent updates: %+v %v", got, err)
	}
	for i := 1; i < 4; i++ {
		if err := st.Create(ctx, mk("bob", i)); err != nil {
			t.Fatal(err)
		}
	}
	bob := tasks.OwnerKey(runs.Owner{Token: "bob"})
	bobs, err := st.List(ctx, bob, "", 2)
	if err != nil || len(bobs) != 2 {
		t.Fatalf("list's first page: %d records, %v", len(bobs), err)
	}
	more, err := st.List(ctx, bob, bobs[1].ID, 10)
	if err != nil || len(more) != 1 {
		t.Errorf("list's second page: %d records, %v", len(more), err)
	}
	live, err := st.Live(ctx)
	if err != nil || len(live) != 4 {
		t.Errorf("%d live, %v", len(live), err)
	}
	// Ended a minute ago with a ttl of 1 s: expired after KeepAfterEnd
	// (at most its ttl) — so sweepable now.
	if _, err := st.Update(ctx, a.ID, func(r *tasks.Record) error {
		r.Status, r.Created, r.Ended = tasks.Completed, now.Add(-time.Minute), now.Add(-time.Minute)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n, err := st.Sweep(ctx, now); err != nil || n != 1 {
		t.Errorf("sweep: %d %v", n, err)
	}
	if _, err := st.Get(ctx, a.ID); !errors.Is(err, tasks.ErrNotFound) {
		t.Errorf("swept task: %v", err)
	}
}
