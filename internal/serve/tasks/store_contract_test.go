package tasks_test

import (
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
	"github.com/rpa-dev/rpa/internal/serve/tasks/taskstest"
)

// TestStores: the run store's and the memory store keep the Store contract.
func TestStores(t *testing.T) {
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	for name, s := range map[string]tasks.Store{"runs": tasks.RunStore(st), "memory": &tasks.MemStore{}} {
		t.Run(name, func(t *testing.T) { taskstest.Store(t, s) })
	}
}
