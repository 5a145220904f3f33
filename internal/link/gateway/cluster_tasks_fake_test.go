package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// taskDeskFake is a desktop whose tool "quiz" runs as a task (tasks.Front, in memory) and asks
// its two questions, then answers with them ("the quiz finished"): tasks through the gateway
// without a browser.
func taskDeskFake(t *testing.T) (*mcp.Server, *tasks.Manager) {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "desk-tasks", Version: "t"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	m := tasks.New(tasks.Options{Poll: 20 * time.Millisecond})
	t.Cleanup(m.Close)
	f := &tasks.Front{M: m, Taskable: func(n string) bool { return n == "quiz" },
		Who: func(mcp.Request) tasks.Who { return tasks.Who{Owner: runs.Owner{Kind: runs.CallerLink, Device: "pc1"}} }}
	if err := f.Attach(srv); err != nil {
		t.Fatal(err)
	}
	srv.AddTool(&mcp.Tool{Name: "quiz", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		work := func(ctx context.Context, h *tasks.Handle) (*mcp.CallToolResult, error) {
			var got []string
			h.SetMessage(`line 7: sleep "20s"`)
			h.Outcome("the quiz finished")
			for _, q := range []string{"first?", "second?"} {
				resp, err := h.Ask(ctx, &mcp.ElicitParams{Mode: "form", Message: q, RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}})
				if err != nil {
					return nil, err
				}
				er, ok := resp.(*mcp.ElicitResult)
				if !ok {
					return nil, fmt.Errorf("answer %T", resp)
				}
				got = append(got, fmt.Sprint(er.Content["answer"]))
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(got, ",")}}}, nil
		}
		if tr := tasks.Requested(ctx); tr != nil {
			if err := tr.Start(ctx, work); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{}, nil
		}
		return nil, fmt.Errorf("quiz runs as a task only")
	})
	return srv, m
}

// TestClusterTasksFake: TestClusterTasks without a browser (a desktop whose tool asks two
// questions as a task): a task created through r1 (the desktop's replica) is answered through r2
// and r3; one is cancelled through them (the desktop's task ends); tasks created through r2 and
// r3 are the desktop's tasks too; r1 dies while one waits for an answer, and it completes through
// the others.
func TestClusterTasksFake(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	t.Cleanup(func() {
		if t.Failed() {
			for _, x := range rs.gws {
				t.Logf("replica %s:\n%s", x.g.rep.name, x.logs.String())
			}
		}
	})
	srv, desk := taskDeskFake(t)
	urls := rs.urls(0)
	startDesk(t, urls[0], "pc1", srv, func(o *connect.Options) {
		o.Wrap = tasks.LiftTransport
		o.More = urls[1:]
		o.RelinkJitter = 50 * time.Millisecond
	})
	rs.waitLinked(t, map[string]string{"pc1": "r1"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tcA, csA := taskAgentAt(t, rs.gws[0].mcpURL(), httpClient(testToken))
	lb := &roundRobin{hosts: []string{rs.gws[1].addr, rs.gws[2].addr}, rt: &http.Transport{}}
	tcB, csB := taskAgentAt(t, "http://"+rs.gws[1].addr+"/mcp", &http.Client{Transport: lb})
	task, _, err := tcA.Call(ctx, csA, &mcp.CallToolParams{Name: "quiz", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatalf("%v %v", task, err)
	}
	done, err := tcB.Wait(ctx, csB, task.TaskID, func(k string, r mcp.InputRequest) (mcp.InputResponse, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": k}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := done.CallResult()
	if err != nil || text(res) != "q1,q2" || done.StatusMessage != "the quiz finished" {
		t.Fatalf("result %v %v: %s %q (want the desktop's outcome)", res, err, done.Status, done.StatusMessage)
	}

	// A cancel through another replica reaches the desktop's task.
	task, _, err = tcA.Call(ctx, csA, &mcp.CallToolParams{Name: "quiz", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tcB, csB, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	if err := tcB.Cancel(ctx, csB, task.TaskID); err != nil {
		t.Fatal(err)
	}
	waitTask(t, tcA, csA, task.TaskID, "cancelled", func(g *tasks.TaskV2) bool { return g.Status == "cancelled" })
	waitIdle(t, desk, "the desktop's task to end")

	// A task created through a replica the desktop is not linked to is the desktop's task too
	// (quiz refuses a plain call), followed by pc1's replica: read and answered through r1,
	// and one cancelled through r1 ends the desktop's task.
	task, _, err = tcB.Call(ctx, csB, &mcp.CallToolParams{Name: "quiz", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	done, err = tcA.Wait(ctx, csA, task.TaskID, func(k string, r mcp.InputRequest) (mcp.InputResponse, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": k}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := done.CallResult(); err != nil || text(res) != "q1,q2" || done.StatusMessage != "the quiz finished" {
		t.Fatalf("a task created through r2 or r3: %v %v: %s %q", res, err, done.Status, done.StatusMessage)
	}
	task, _, err = tcB.Call(ctx, csB, &mcp.CallToolParams{Name: "quiz", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tcA, csA, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	if err := tcA.Cancel(ctx, csA, task.TaskID); err != nil {
		t.Fatal(err)
	}
	waitTask(t, tcB, csB, task.TaskID, "cancelled", func(g *tasks.TaskV2) bool { return g.Status == "cancelled" })
	waitIdle(t, desk, "the desktop's task to end")

	// r1 dies while a task waits for an answer: the replica pc1 links to next takes it over.
	task, _, err = tcA.Call(ctx, csA, &mcp.CallToolParams{Name: "quiz", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tcB, csB, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	rs.crash(0)
	rs.waitLinked(t, map[string]string{"pc1": "!r1"})
	done, err = tcB.Wait(ctx, csB, task.TaskID, func(k string, r mcp.InputRequest) (mcp.InputResponse, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": k}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := done.CallResult(); err != nil || len(strings.Split(text(res), ",")) != 2 {
		t.Fatalf("after r1 died: %v %v: %s %s", res, err, done.Status, done.StatusMessage)
	}
	waitIdle(t, rs.gws[1].g.Tasks(), "no task live on r2")
	waitIdle(t, rs.gws[2].g.Tasks(), "no task live on r3")
}
