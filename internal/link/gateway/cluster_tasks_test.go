package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
	"github.com/rpa-dev/rpa/internal/serve/tasks/taskstest"
)

// TestClusterTaskStore: the cluster's bucket keeps the tasks.Store contract, and a record over
// NATS's payload limit (a result with a screenshot) goes through the object store whole.
func TestClusterTaskStore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NATS")
	}
	nodes := clustertest.Start(t, 3)
	st := kvTasks{nodes[1]}
	taskstest.Store(t, st)
	ctx := context.Background()
	big, _ := json.Marshal(map[string]string{"image": strings.Repeat("x", 3<<20)})
	now := time.Now().UTC()
	run := runs.NewID(now)
	r := &tasks.Record{ID: tasks.NewID(run), RunID: run, Status: tasks.Completed, Created: now, Updated: now, TTLMs: 60000, Result: big}
	if err := st.Create(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, r.ID)
	if err != nil {
		t.Fatalf("a 3 MB record: %v", err)
	}
	if !bytes.Equal(got.Result, big) {
		t.Fatalf("a 3 MB record: %d bytes back", len(got.Result))
	}
}

// taskAgentAt is a Go SDK agent (2026-07-28, the tasks extension, declaring elicitation) at url
// through hc.
func taskAgentAt(t *testing.T, url string, hc *http.Client) (*tasks.Client, *mcp.ClientSession) {
	t.Helper()
	tc := &tasks.Client{Poll: 50 * time.Millisecond}
	c := tc.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("a task's question came as an elicitation request")
			return nil, nil
		}}) // declares elicitation: a task's questions come as its input requests
	cs, err := c.Connect(context.Background(),
		tc.Transport(&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return tc, cs
}

// TestClusterTasks: an agent's task created through one replica (the desktop's) lives in the
// cluster's bucket: an agent whose every request lands on another replica (a load balancer
// without stickiness over r2 and r3) follows it, answers its questions (forwarded to the replica
// running it) and cancels it (the desktop's run stops); when the creating replica dies while the
// task waits for an answer, the replica the desktop links to next takes the task over and it
// completes with the answers given through the others.
func TestClusterTasks(t *testing.T) {
	srv, site, st := taskDesk(t)
	rs := startReplicas(t, 3, func(_ int, o *Options) { o.TaskRelinkWait = time.Minute })
	t.Cleanup(func() {
		if t.Failed() {
			for _, x := range rs.gws {
				t.Logf("replica %s:\n%s", x.g.rep.name, x.logs.String())
			}
		}
	})
	urls := rs.urls(0)
	startDesk(t, urls[0], "pc1", srv.MCP(), func(o *connect.Options) {
		o.ToolNames = srv.ToolNames
		o.Wrap = tasks.LiftTransport
		o.More = urls[1:]
		o.RelinkJitter = 50 * time.Millisecond
	})
	rs.waitLinked(t, map[string]string{"pc1": "r1"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // only a hang
	defer cancel()
	tcA, csA := taskAgentAt(t, rs.gws[0].mcpURL(), httpClient(testToken))
	lb := &roundRobin{hosts: []string{rs.gws[1].addr, rs.gws[2].addr}, rt: &http.Transport{}}
	tcB, csB := taskAgentAt(t, "http://"+rs.gws[1].addr+"/mcp", &http.Client{Transport: lb})
	const verified = `{"captcha":"X7K2P","sms":"482913","status":"Verified"}`

	// Two questions, answered through the other replicas.
	task, _, err := tcA.Call(ctx, csA, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": site}})
	if err != nil || task == nil {
		t.Fatalf("%v %v", task, err)
	}
	if n := rs.gws[0].g.Tasks().Live(); n != 1 {
		t.Fatalf("the creating replica runs %d tasks", n)
	}
	var asked []string
	done, err := tcB.Wait(ctx, csB, task.TaskID, func(k string, r mcp.InputRequest) (mcp.InputResponse, error) {
		asked = append(asked, k)
		return answer(k, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := outputsOf(t, done); got != verified || len(asked) != 2 {
		t.Errorf("outputs %s, asked %v", got, asked)
	}
	for _, x := range rs.gws[1:] {
		if n := x.g.Tasks().Live(); n != 0 {
			t.Errorf("replica %s runs %d tasks, want none (the work stays where it began)", x.g.rep.name, n)
		}
	}
	if seen := lbSeen(lb); seen[rs.gws[1].addr] == 0 || seen[rs.gws[2].addr] == 0 {
		t.Errorf("the agent's requests did not reach both other replicas: %v", seen)
	}

	// A cancel through another replica reaches the desktop.
	task, _, err = tcA.Call(ctx, csA, &mcp.CallToolParams{Name: "workflow_hold", Arguments: map[string]any{"base_url": site, "profileId": "held"}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tcB, csB, task.TaskID, "at its wait", func(g *tasks.TaskV2) bool { return strings.HasPrefix(g.StatusMessage, `line 6: wait "#never"`) })
	if err := tcB.Cancel(ctx, csB, task.TaskID); err != nil {
		t.Fatal(err)
	}
	waitTask(t, tcA, csA, task.TaskID, "cancelled", func(g *tasks.TaskV2) bool { return g.Status == "cancelled" })
	poll(t, func() bool {
		run, err := st.Get(tasks.RunIDOf(task.TaskID))
		return err == nil && run.Status == runs.StatusCancelled
	}, func() string { return "never: the desktop's run to be cancelled" })

	// The creating replica dies while the task waits for an answer: the replica the desktop
	// links to next takes it over.
	task, _, err = tcA.Call(ctx, csA, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": site}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tcB, csB, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	rs.crash(0)
	rs.waitLinked(t, map[string]string{"pc1": "!r1"})
	done, err = tcB.Wait(ctx, csB, task.TaskID, answer)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputsOf(t, done); got != verified {
		t.Errorf("after the creating replica died: %s", got)
	}
	waitIdle(t, rs.gws[1].g.Tasks(), "no task live on r2")
	waitIdle(t, rs.gws[2].g.Tasks(), "no task live on r3")
}

// lbSeen counts the requests the balancer sent to each host.
func lbSeen(lb *roundRobin) map[string]int64 {
	out := map[string]int64{}
	lb.seen.Range(func(k, v any) bool {
		out[k.(string)] = v.(interface{ Load() int64 }).Load()
		return true
	})
	return out
}
