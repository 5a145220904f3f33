package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// taskDesk is a desktop (a real mcpserver with a Chromium pool and a run store) serving
// verify.flow (two questions) and hold.flow (opens the page, then waits a minute), and the
// page site.
func taskDesk(t *testing.T) (srv *mcpserver.Server, site string, st *runs.Store) {
	t.Helper()
	if testing.Short() {
		t.Skip("short: starts Chromium")
	}
	site, dir := verifySite(t)
	os.WriteFile(filepath.Join(dir, "hold.flow"), []byte("flow hold \"Open the page and wait\"\n\nparam base_url: string \"site\"\n\n"+
		"open \"{{ base_url }}/verify.html\"\nwait \"#never\" timeout: 60s retries: 0\n"), 0o644)
	home := t.TempDir()
	pool := chromiumPool(t, home)
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts := connectLinkOptions("pc1")
	opts.FlowsDir, opts.Pool, opts.NoWatch, opts.Logger, opts.Runs = dir, pool, true, quietLogger(), st
	opts.HITL = &hitl.Config{Order: []string{hitl.ChannelClient}}
	srv, err = mcpserver.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, site, st
}

// connectLinkOptions are the desktop server's options behind `rpa connect` (flowserver.LinkOptions).
func connectLinkOptions(device string) mcpserver.Options {
	return mcpserver.Options{NoURLElicitation: true, ShareProfiles: true, RunCaller: runs.CallerLink, RunDevice: device}
}

// linkDesk links srv to the gateway as device pc1, as `rpa connect` does (task params lifted).
func linkDesk(t *testing.T, x *gw, srv *mcpserver.Server) *desk {
	return startDesk(t, x.wsURL(), "pc1", srv.MCP(), func(o *connect.Options) {
		o.ToolNames = srv.ToolNames
		o.Wrap = tasks.LiftTransport
	})
}

// taskAgent is a Go SDK agent (2026-07-28, declaring the tasks extension) at the gateway.
func taskAgent(t *testing.T, x *gw) (*tasks.Client, *mcp.ClientSession) {
	t.Helper()
	tc := &tasks.Client{}
	c := tc.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("a task's question came as an elicitation request")
			return nil, nil
		}})
	cs, err := c.Connect(context.Background(), tc.Transport(&mcp.StreamableClientTransport{Endpoint: x.mcpURL(), HTTPClient: httpClient(testToken)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return tc, cs
}

var captchaRe = regexp.MustCompile(`they read: (\w+)`)

// answer answers verify.flow's questions.
func answer(_ string, r mcp.InputRequest) (mcp.InputResponse, error) {
	msg := r.(*mcp.ElicitParams).Message
	if m := captchaRe.FindStringSubmatch(msg); m != nil {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": m[1]}}, nil
	}
	return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "482913"}}, nil
}

func outputsOf(t *testing.T, task *tasks.TaskV2) string {
	t.Helper()
	res, err := task.CallResult()
	if err != nil {
		t.Fatalf("%s: %s", task.Status, task.StatusMessage)
	}
	b, _ := json.Marshal(res.StructuredContent.(map[string]any)["outputs"])
	if string(b) == "null" {
		e, _ := json.Marshal(res.StructuredContent.(map[string]any)["error"])
		return "null: " + task.StatusMessage + ": " + string(e)
	}
	return string(b)
}

// waitTask gets the task (tasks/get, as an agent would) until cond holds, again at each change
// of a gateway's state (a task's status, questions or end, or its desktop's statusMessage, on
// the gateway that follows it: Options.onChange; not at log lines, which its own tasks/get
// makes); the bound only catches a hang.
func waitTask(t *testing.T, tc *tasks.Client, cs *mcp.ClientSession, id string, what string, cond func(*tasks.TaskV2) bool) *tasks.TaskV2 {
	t.Helper()
	var got *tasks.TaskV2
	var err error
	awaitOn(t, &stateChanges, hangGuard, func() bool {
		got, err = tc.Get(context.Background(), cs, id)
		return err == nil && cond(got)
	}, func() string { return fmt.Sprintf("task %s never %s (last: %v %v)", id, what, got, err) })
	return got
}

// waitIdle waits until m runs no task (tasks.Manager.WaitIdle); the bound only catches a hang.
func waitIdle(t *testing.T, m *tasks.Manager, what string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangGuard)
	defer cancel()
	if err := m.WaitIdle(ctx); err != nil {
		t.Fatalf("never: %s (%d tasks live)", what, m.Live())
	}
}

// TestTasksThroughGateway: an agent's task lives at the gateway and the desktop runs it (as a
// task of its own, with the same run ID): a flow asking twice completes with the answers the
// agent gives through tasks/update; a link dropped and re-dialled while a question waits asks
// it again and the task completes; tasks/cancel reaches the desktop and frees its profile; a
// gateway killed while the desktop works is replaced by another process on the same store,
// which takes the task over and delivers the desktop's answer.
func TestTasksThroughGateway(t *testing.T) {
	srv, site, st := taskDesk(t)
	store := tasks.RunStore(func() *runs.Store {
		s, err := runs.Open(t.TempDir(), runs.Options{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}())
	x := startGateway(t, "", Options{Tasks: store, TaskNode: "gateway-1", TaskRelinkWait: time.Minute})
	linkDesk(t, x, srv)
	x.waitDevices(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	// Two questions, answered through tasks/update.
	tc, cs := taskAgent(t, x)
	task, _, err := tc.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": site}})
	if err != nil || task == nil {
		t.Fatalf("%v %v", task, err)
	}
	var asked []string
	done, err := tc.Wait(ctx, cs, task.TaskID, func(k string, r mcp.InputRequest) (mcp.InputResponse, error) {
		asked = append(asked, k)
		// A related-task stamp may only name the agent's own task, never the desktop's.
		if rel, ok := r.(*mcp.ElicitParams).Meta[tasks.MetaRelatedTask].(map[string]any); ok && rel["taskId"] != task.TaskID {
			t.Errorf("question %s names task %v, not the agent's %s", k, rel["taskId"], task.TaskID)
		}
		return answer(k, r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := outputsOf(t, done); got != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` || len(asked) != 2 {
		t.Errorf("outputs %s, asked %v", got, asked)
	}
	runID := tasks.RunIDOf(task.TaskID)
	if run, err := st.Get(runID); err != nil || run.Status != runs.StatusOK || run.Caller.Kind != runs.CallerLink {
		t.Errorf("the desktop's run %s: %+v %v", runID, run, err)
	}

	// The link drops while the captcha question waits: the desktop asks again on the next link.
	task, _, err = tc.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": site}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tc, cs, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	x.g.mu.Lock()
	d := x.g.devices["pc1"]
	x.g.mu.Unlock()
	d.link.Close()
	done, err = tc.Wait(ctx, cs, task.TaskID, answer)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputsOf(t, done); got != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` {
		t.Errorf("after the link dropped: %s", got)
	}

	// Cancel reaches the desktop: its run stops, its profile serves the next call.
	task, _, err = tc.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_hold", Arguments: map[string]any{"base_url": site, "profileId": "held"}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tc, cs, task.TaskID, "at its wait", func(g *tasks.TaskV2) bool { return strings.HasPrefix(g.StatusMessage, `line 6: wait "#never"`) })
	if err := tc.Cancel(ctx, cs, task.TaskID); err != nil {
		t.Fatal(err)
	}
	waitTask(t, tc, cs, task.TaskID, "cancelled", func(g *tasks.TaskV2) bool { return g.Status == "cancelled" })
	poll(t, func() bool {
		run, err := st.Get(tasks.RunIDOf(task.TaskID))
		return err == nil && run.Status == runs.StatusCancelled
	}, func() string { return "never: the desktop's run to be cancelled" })
	read, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": "url", "profileId": "held"}})
	if err != nil || read.IsError || !strings.HasSuffix(text(read), "/verify.html") {
		t.Errorf("the profile after the cancel: %v %v", read, err)
	}

	// The gateway dies while the desktop waits for an answer; another gateway process (the
	// same store) takes the task over once the desktop links to it.
	task, _, err = tc.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": site}})
	if err != nil || task == nil {
		t.Fatal(err)
	}
	waitTask(t, tc, cs, task.TaskID, "asked", func(g *tasks.TaskV2) bool { return g.Status == "input_required" })
	addr := x.addr
	x.kill()
	y := startGateway(t, addr, Options{Tasks: store, TaskNode: "gateway-2", TaskRelinkWait: time.Minute})
	y.waitDevices(t, 1)
	tc2, cs2 := taskAgent(t, y)
	done, err = tc2.Wait(ctx, cs2, task.TaskID, answer)
	if err != nil {
		t.Fatal(err)
	}
	if got := outputsOf(t, done); got != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` {
		t.Errorf("after the gateway restarted: %s", got)
	}
	if err := y.g.Tasks().WaitIdle(ctx); err != nil {
		t.Errorf("%d tasks still live at the gateway", y.g.Tasks().Live())
	}
}
