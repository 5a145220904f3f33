package gateway

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// TestTaskWaitsOnEvents: a task whose desktop dropped waits for it without polling: while
// nothing changes it looks for the desktop at most once a second (the fallback, recheck), and
// once the desktop links again it goes on (its questions answered, its result in). It looked
// every 250 ms before, whatever happened.
func TestTaskWaitsOnEvents(t *testing.T) {
	var events atomic.Int64
	x := startGateway(t, "", Options{TaskRelinkWait: time.Minute, onChange: func() { events.Add(1) }})
	srv, _ := taskDeskFake(t)
	desk := func() *desk {
		return startDesk(t, x.wsURL(), "pc1", srv, func(o *connect.Options) { o.Wrap = tasks.LiftTransport })
	}
	dk := desk()
	x.waitDevices(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	tc, cs := taskAgentAt(t, x.mcpURL(), httpClient(testToken))
	task, _, err := tc.Call(ctx, cs, &mcp.CallToolParams{Name: "quiz", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatalf("%v %v", task, err)
	}
	waitTask(t, tc, cs, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	dk.stop()
	waitTask(t, tc, cs, task.TaskID, "waiting for its desktop", func(g *tasks.TaskV2) bool { return strings.Contains(g.StatusMessage, "not linked") })

	// A window in which nothing happens (a measurement, not a wait for something): the task
	// looks once per change of the gateway's state and once per recheck, no more.
	const window = 1500 * time.Millisecond
	looks, changes := x.g.linkLooks.Load(), events.Load()
	time.Sleep(window)
	looks, changes = x.g.linkLooks.Load()-looks, events.Load()-changes
	if limit := changes + int64(window/recheck) + 1; looks > limit {
		t.Errorf("the task looked for its desktop %d times in %s with %d changes (at most %d: it polls)", looks, window, changes, limit)
	}

	desk()
	done, err := tc.Wait(ctx, cs, task.TaskID, func(k string, r mcp.InputRequest) (mcp.InputResponse, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": k}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := done.CallResult(); err != nil || len(strings.Split(text(res), ",")) != 2 {
		t.Fatalf("after the desktop linked again: %v %v: %s %s", res, err, done.Status, done.StatusMessage)
	}
}
