package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// Figures for tasks (PROTOCOL.md, "Tasks"): run with
//
//	go test ./internal/serve/mcpserver -run '^$' -bench 'Task' -benchtime 20x
//
// BenchmarkTaskCall: the demo flow (log in, pick a region, read the 50-row
// table of the test site) over Streamable HTTP at 2026-07-28, as a plain
// call and as a task (created, then polled every 5 ms until it completed:
// the difference is what a task costs beside the run), tasks/get of a
// completed task, and (stored) the size of a completed task's record in the
// run store, and of the result it holds (stored-B/task, result-B/task).
func BenchmarkTaskCall(b *testing.B) {
	st := newSite(b)
	store, err := runs.Open(b.TempDir(), runs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	s, _ := newServer(b, Options{FlowsDir: copyFlows(b, "demo_query.flow"), NoWatch: true, Pool: newPool(b), Runs: store, ShareProfiles: true})
	hs := httptest.NewServer(s.HTTPHandler("tok"))
	defer hs.Close()
	ctx := context.Background()
	args := demoArgs(st.URL)
	// A new params each call: the go-sdk client writes its per-request _meta into them.
	call := func() *mcp.CallToolParams { return &mcp.CallToolParams{Name: "workflow_demo_query", Arguments: args} }

	plain := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	pcs, err := plain.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: bearerClient("tok")}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer pcs.Close()
	tc := &tasks.Client{Poll: 5 * time.Millisecond}
	tcs, err := tc.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
		tc.Transport(&mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: bearerClient("tok")}), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer tcs.Close()
	if res, err := pcs.CallTool(ctx, call()); err != nil || res.IsError { // warm the browser
		b.Fatal(err, res)
	}

	b.Run("plain", func(b *testing.B) {
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			if res, err := pcs.CallTool(ctx, call()); err != nil || res.IsError {
				b.Fatal(err, res)
			}
		}
	})
	var last string
	b.Run("task", func(b *testing.B) {
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			task, _, err := tc.Call(ctx, tcs, call())
			if err != nil || task == nil {
				b.Fatal(err)
			}
			done, err := tc.Wait(ctx, tcs, task.TaskID, nil)
			if err != nil || done.Status != tasks.Completed {
				b.Fatal(err, done)
			}
			last = task.TaskID
		}
	})
	b.Run("get", func(b *testing.B) {
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			if _, err := tc.Get(ctx, tcs, last); err != nil {
				b.Fatal(err)
			}
		}
	})
	// 2025-11-25 in-process, as raw frames: the task's answer is waited for
	// with tasks/result (no polling), so the difference is the task's own
	// cost (its record written when created, at each change and at the
	// end; the run's statusMessage).
	raw, _ := rawmcp.Pipe(b, s.MCP(), func(st mcp.Transport) mcp.Transport { return tasks.LiftTransport(st) })
	raw.Initialize("2025-11-25", nil)
	b.Run("raw-plain", func(b *testing.B) {
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			if r := raw.Call("tools/call", map[string]any{"name": "workflow_demo_query", "arguments": args}); r.Error != nil {
				b.Fatal(r.Error)
			}
		}
	})
	b.Run("raw-task", func(b *testing.B) {
		cpu := startCPU()
		defer cpu.report(b)
		for b.Loop() {
			r := raw.Call("tools/call", map[string]any{"name": "workflow_demo_query", "arguments": args, "task": map[string]any{}})
			var created struct {
				Task struct {
					TaskID string `json:"taskId"`
				} `json:"task"`
			}
			if r.Error != nil || json.Unmarshal(r.Result, &created) != nil || created.Task.TaskID == "" {
				b.Fatal(r.Error, string(r.Result))
			}
			if res := raw.Call("tasks/result", map[string]any{"taskId": created.Task.TaskID}); res.Error != nil {
				b.Fatal(res.Error)
			}
		}
	})
	// What a completed task adds to the run store: its row's record (the run itself, its
	// steps and report, are stored for a plain call too).
	b.Run("stored", func(b *testing.B) {
		if last == "" {
			b.Skip("no task ran (-bench selected no task sub-benchmark)")
		}
		var r *tasks.Record
		for b.Loop() {
			if r, err = tasks.RunStore(store).Get(ctx, last); err != nil {
				b.Fatal(err)
			}
		}
		rec, _ := json.Marshal(r)
		b.ReportMetric(float64(len(rec)), "stored-B/task")
		b.ReportMetric(float64(len(r.Result)), "result-B/task")
	})
}

// BenchmarkTasks200: 200 tasks at once on one server, the demo flow each,
// spread over 3 profiles (the default --max-browsers) with an unbounded
// queue: every one completes; the figures are the wall time for all,
// and the heap in use once they were all created (runtime.MemStats).
// Run with -benchtime 1x.
func BenchmarkTasks200(b *testing.B) {
	st := newSite(b)
	home := b.TempDir()
	store, err := runs.Open(home, runs.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	pool, err := profiles.New(profiles.Options{Driver: rod.New(), MaxQueue: -1,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			d := filepath.Join(home, "profiles", id)
			return drivers.LaunchOptions{UserDataDir: d}, os.MkdirAll(d, 0o700)
		}})
	if err != nil {
		b.Fatal(err)
	}
	defer pool.Close()
	s, _ := newServer(b, Options{FlowsDir: copyFlows(b, "demo_query.flow"), NoWatch: true, Pool: pool, Runs: store, ShareProfiles: true})
	hs := httptest.NewServer(s.HTTPHandler("tok"))
	defer hs.Close()
	ctx := context.Background()
	tc := &tasks.Client{Poll: 200 * time.Millisecond}
	cs, err := tc.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx,
		tc.Transport(&mcp.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: bearerClient("tok")}), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for b.Loop() {
		var before runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		start := time.Now()
		ids := make([]string, 200)
		for i := range ids {
			args := demoArgs(st.URL)
			args[ProfileArg] = fmt.Sprintf("p%d", i%3)
			task, _, err := tc.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_demo_query", Arguments: args})
			if err != nil || task == nil {
				b.Fatalf("task %d: %v", i, err)
			}
			ids[i] = task.TaskID
		}
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		created := time.Since(start)
		var wg sync.WaitGroup
		failed := make(chan string, len(ids))
		for _, id := range ids {
			wg.Add(1)
			go func() {
				defer wg.Done()
				done, err := tc.Wait(ctx, cs, id, nil)
				if err != nil || done.Status != tasks.Completed {
					failed <- fmt.Sprint(id, err)
				}
			}()
		}
		wg.Wait()
		close(failed)
		for f := range failed {
			b.Errorf("a task did not complete: %s", f)
		}
		b.ReportMetric(float64(created.Milliseconds()), "ms-to-create-200")
		b.ReportMetric(time.Since(start).Seconds(), "s-for-all-200")
		b.ReportMetric(float64(int64(after.HeapInuse)-int64(before.HeapInuse))/(1<<20), "heap-MB-with-200-live")
	}
}
