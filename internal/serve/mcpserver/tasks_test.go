package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// taskClient connects the Go SDK client (2026-07-28, declaring the tasks
// extension) over Streamable HTTP with token.
func taskClient(t *testing.T, url, token string, opts *mcp.ClientOptions) (*tasks.Client, *mcp.ClientSession) {
	t.Helper()
	tc := &tasks.Client{}
	c := tc.NewClient(&mcp.Implementation{Name: "tasks-test", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), tc.Transport(&mcp.StreamableClientTransport{Endpoint: url, HTTPClient: bearerClient(token)}), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("negotiated %s", v)
	}
	if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Extensions[tasks.Extension] == nil {
		t.Fatalf("the server does not declare %s: %+v", tasks.Extension, caps)
	}
	return tc, cs
}

// TestTasksOverHTTP2026: the Go SDK client on 2026-07-28 over Streamable
// HTTP, with the tasks extension: a workflow call is a task whose id
// begins with its run ID; a flow that asks twice goes input_required
// twice and completes with the answers given through tasks/update; a new
// session of the same token fetches it, another token does not see it;
// tasks/cancel stops the run and frees its profile.
func TestTasksOverHTTP2026(t *testing.T) {
	base := verifySite(t)
	site := newSite(t)
	flows := verifyFlows(t)
	src, err := os.ReadFile(filepath.Join("testdata", "flows", "slow.flow"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(flows, "slow.flow"), src, 0o644)
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s, logs := newServer(t, Options{FlowsDir: flows, NoWatch: true, Pool: newPool(t), Runs: st,
		HITL: &hitl.Config{Order: []string{hitl.ChannelClient}}})
	hs := httptest.NewServer(s.HTTPHandler("tok-a", "tok-b"))
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	// The client declares elicitation: a task's questions are elicitations,
	// though they travel as the task's input (tasks/update), never as
	// requests to this handler.
	elicitOpts := &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		t.Error("a task's question came as an elicitation request")
		return &mcp.ElicitResult{Action: "decline"}, nil
	}}
	a, cs := taskClient(t, hs.URL, "tok-a", elicitOpts)
	task, res, err := a.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": base}})
	if err != nil || task == nil {
		t.Fatalf("a workflow call of a client declaring the extension: %v %v %v", task, res, err)
	}
	runID := tasks.RunIDOf(task.TaskID)
	if runID == "" || task.Status != "working" {
		t.Fatalf("created %+v", task)
	}
	var asked []string
	done, err := a.Wait(ctx, cs, task.TaskID, func(key string, r mcp.InputRequest) (mcp.InputResponse, error) {
		p := r.(*mcp.ElicitParams)
		asked = append(asked, key+" "+p.Message)
		if m := captchaRe.FindStringSubmatch(p.Message); m != nil {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": m[1]}}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "482913"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(asked) != 2 || !strings.HasPrefix(asked[0], "q1 Captcha") || !strings.HasPrefix(asked[1], "q2 SMS code") {
		t.Errorf("questions %q", asked)
	}
	out, err := done.CallResult()
	if err != nil || done.Status != "completed" || out.IsError {
		t.Fatalf("task %s: %s %v", done.Status, done.StatusMessage, err)
	}
	sc, _ := out.StructuredContent.(map[string]any)
	if b, _ := json.Marshal(sc["outputs"]); string(b) != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` || sc["runId"] != runID {
		t.Errorf("result %s (runId %v, want %s)", b, sc["runId"], runID)
	}
	if run, err := st.Get(runID); err != nil || run.Status != runs.StatusOK {
		t.Errorf("the task's run: %+v %v", run, err)
	}
	if !strings.Contains(done.StatusMessage, runID) {
		t.Errorf("statusMessage %q", done.StatusMessage)
	}

	// A new session of the same token fetches it; another token does not see it.
	a2, cs2 := taskClient(t, hs.URL, "tok-a", nil)
	if again, err := a2.Get(ctx, cs2, task.TaskID); err != nil || again.Status != "completed" || len(again.Result) == 0 {
		t.Errorf("the same token, another session: %v %v", again != nil && again.Status == "completed", err)
	}
	b, csb := taskClient(t, hs.URL, "tok-b", nil)
	for name, err := range map[string]error{
		"get":    func() error { _, err := b.Get(ctx, csb, task.TaskID); return err }(),
		"cancel": b.Cancel(ctx, csb, task.TaskID),
		"update": b.Update(ctx, csb, task.TaskID, mcp.InputResponseMap{}),
	} {
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Code != -32602 || je.Message != "Failed to retrieve task: Task not found" {
			t.Errorf("%s by another token: %v", name, err)
		}
	}

	// Cancel mid-run: cancelled, the run stops, the profile serves the next call.
	slow, _, err := a.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_slow", Arguments: map[string]any{"base_url": site.URL, ProfileArg: "slow"}})
	if err != nil || slow == nil {
		t.Fatalf("slow task: %v %v", slow, err)
	}
	waitUntil(t, func() bool { // a new browser starts for the profile: slow on a busy machine
		g, err := a.Get(ctx, cs, slow.TaskID)
		return err == nil && strings.HasPrefix(g.StatusMessage, `line 8: wait "#never"`)
	})
	if err := a.Cancel(ctx, cs, slow.TaskID); err != nil {
		t.Fatal(err)
	}
	if g, err := a.Get(ctx, cs, slow.TaskID); err != nil || g.Status != "cancelled" {
		t.Errorf("after cancel: %v %v", g != nil && g.Status == "cancelled", err)
	}
	if err := a.Cancel(ctx, cs, slow.TaskID); err != nil {
		t.Errorf("a second cancel is acknowledged too: %v", err)
	}
	rctx, rcancel := context.WithTimeout(ctx, 20*time.Second)
	defer rcancel()
	read, err := cs.CallTool(rctx, &mcp.CallToolParams{Name: ToolBrowserRead, Arguments: map[string]any{"action": "url", ProfileArg: "slow"}})
	if err != nil || !strings.HasSuffix(textOf(t, read), "/table") {
		t.Fatalf("the profile after the cancel: %v %v", read, err)
	}
	waitUntil(t, func() bool {
		run, err := st.Get(tasks.RunIDOf(slow.TaskID))
		return err == nil && run.Status == runs.StatusCancelled
	})
	if strings.Contains(logs.String(), "482913") {
		t.Error("an answer reached the log")
	}
	if err := s.Tasks().WaitIdle(ctx); err != nil {
		t.Errorf("tasks still live: %d", s.Tasks().Live())
	}
}

// TestTaskQuestionInConsole: a task's question is also put to an open
// `rpa ui` console; answered there, it is withdrawn from the task's input
// and the run goes on; the next question is answered by the caller.
func TestTaskQuestionInConsole(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	b := hitl.NewBroker()
	if err := b.Listen(home, "test console"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	_, stopWatch, err := b.Watch()
	if err != nil {
		t.Fatal(err)
	}
	defer stopWatch()
	base := verifySite(t)
	s, _ := newServer(t, Options{FlowsDir: verifyFlows(t), NoWatch: true, Pool: newPool(t),
		HITL: &hitl.Config{Order: []string{hitl.ChannelClient}}})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a, cs := taskClient(t, hs.URL, "", &mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return nil, nil
	}})
	task, _, err := a.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": base}})
	if err != nil || task == nil {
		t.Fatalf("%v %v", task, err)
	}
	// The person at the desktop answers the captcha in the console.
	var q hitl.Pending
	waitUntil(t, func() bool {
		p := b.Pending()
		if len(p) == 1 {
			q = p[0]
		}
		return len(p) == 1
	})
	if q.Title != "Captcha" {
		t.Fatalf("the console shows %+v", q)
	}
	code := captchaRe.FindStringSubmatch(q.Message)
	if err := b.Answer(q.ID, core.Answer{Status: core.AnswerAnswered, Text: code[1]}); err != nil {
		t.Fatal(err)
	}
	// The question is withdrawn from the task's input.
	waitUntil(t, func() bool {
		g, err := a.Get(ctx, cs, task.TaskID)
		if err != nil {
			return false
		}
		irs, _ := g.Inputs()
		return irs["q1"] == nil
	})
	// The caller answers the SMS code; the captcha was never its to answer.
	var keys []string
	done, err := a.Wait(ctx, cs, task.TaskID, func(key string, r mcp.InputRequest) (mcp.InputResponse, error) {
		keys = append(keys, key+" "+r.(*mcp.ElicitParams).Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "482913"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 || !strings.HasPrefix(keys[0], "q2 SMS code") {
		t.Errorf("the caller answered %q", keys)
	}
	out, err := done.CallResult()
	if err != nil || done.Status != "completed" {
		t.Fatalf("%s %s %v", done.Status, done.StatusMessage, err)
	}
	if b, _ := json.Marshal(out.StructuredContent.(map[string]any)["outputs"]); string(b) != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` {
		t.Errorf("outputs %s", b)
	}
}

// TestTaskStatusNotifications: a 2025-11-25 session that listens (its
// connection over stdio; in-process here through the same transport
// wrapper) gets notifications/tasks/status as its task goes working,
// then completed.
func TestTaskStatusNotifications(t *testing.T) {
	site := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Pool: newPool(t)})
	var lt mcp.Transport
	c, ss := rawmcp.Pipe(t, s.MCP(), func(st mcp.Transport) mcp.Transport {
		lt = s.ListenTransport(tasks.LiftTransport(st))
		return lt
	})
	s.Listening(ss, lt)
	conn := c.Conn
	c.Initialize("2025-11-25", nil)
	r := c.Call("tools/call", map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": site.URL, "p": "n", "n": 1},
		"task": map[string]any{}})
	var created struct {
		Task struct {
			TaskID string `json:"taskId"`
		} `json:"task"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &created) != nil || created.Task.TaskID == "" {
		t.Fatalf("created %s %v", r.Result, r.Error)
	}
	// Read until the completed notification (a bound that only catches a hang).
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var seen []string
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatalf("no completed status notification (saw %v): %v", seen, err)
		}
		n, ok := msg.(*jsonrpc.Request)
		if !ok || n.Method != MethodTaskStatus {
			continue
		}
		var p tasks.TaskV1
		if err := json.Unmarshal(n.Params, &p); err != nil || p.TaskID != created.Task.TaskID {
			t.Fatalf("notification %s", n.Params)
		}
		seen = append(seen, p.Status)
		if p.Status == tasks.Completed {
			break
		}
	}
}
