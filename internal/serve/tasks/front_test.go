package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

// testServer is an MCP server with one task tool "work" (args: "ms" to
// run, "ask" a question to put to the caller first, "fail" a JSON-RPC
// error to end with, "isError" a tool error result) and one plain tool
// "plain", behind a Front whose callers are named by the test.
type testServer struct {
	srv *mcp.Server
	m   *Manager
	who func(req mcp.Request) Who
	ran sync.Map // task id → true once its work started
}

func newTestServer(t *testing.T, o Options) *testServer {
	t.Helper()
	ts := &testServer{}
	ts.srv = mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}})
	if o.Poll == 0 {
		o.Poll = 20 * time.Millisecond
	}
	ts.m = New(o)
	t.Cleanup(ts.m.Close)
	if err := ts.m.Recover(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := &Front{M: ts.m, Taskable: func(n string) bool { return n == "work" },
		Who: func(req mcp.Request) Who {
			if ts.who != nil {
				return ts.who(req)
			}
			return Who{Owner: runs.Owner{Kind: runs.CallerMCP, Token: "t-test"}}
		}}
	if err := f.Attach(ts.srv); err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"type":"object"}`)
	ts.srv.AddTool(&mcp.Tool{Name: "plain", InputSchema: schema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "plain done"}}}, nil
	})
	ts.srv.AddTool(&mcp.Tool{Name: "work", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			Ms      int    `json:"ms"`
			Ask     string `json:"ask"`
			Ask2    string `json:"ask2"`
			Fail    string `json:"fail"`
			IsError bool   `json:"isError"`
			Outcome string `json:"outcome"`
			// ErrOnCancel: a cancelled work returns an error, no result
			ErrOnCancel bool `json:"errOnCancel"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		work := func(ctx context.Context, h *Handle) (*mcp.CallToolResult, error) {
			if h != nil {
				ts.ran.Store(h.ID(), true)
			}
			var answers []string
			for _, q := range []string{args.Ask, args.Ask2} {
				if q == "" || h == nil {
					continue
				}
				resp, err := h.Ask(ctx, &mcp.ElicitParams{Mode: "form", Message: q, RequestedSchema: map[string]any{
					"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}})
				if err != nil {
					return nil, err
				}
				er, ok := resp.(*mcp.ElicitResult)
				if !ok {
					return nil, fmt.Errorf("answer %T", resp)
				}
				answers = append(answers, fmt.Sprint(er.Content["answer"]))
			}
			if h != nil {
				h.SetMessage("working")
				if args.Outcome != "" {
					h.Outcome(args.Outcome)
				}
			}
			select {
			case <-time.After(time.Duration(args.Ms) * time.Millisecond):
			case <-ctx.Done():
				if args.ErrOnCancel {
					return nil, ctx.Err()
				}
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "cancelled"}}}, nil
			}
			if args.Fail != "" {
				return nil, &jsonrpc.Error{Code: -32004, Message: args.Fail}
			}
			return &mcp.CallToolResult{IsError: args.IsError, Content: []mcp.Content{&mcp.TextContent{Text: "done " + strings.Join(answers, ",")}}}, nil
		}
		if tr := Requested(ctx); tr != nil {
			if err := tr.Start(ctx, work); err != nil {
				var be *BusyError
				if errors.As(err, &be) {
					return nil, &jsonrpc.Error{Code: -32004, Message: be.Error()}
				}
				return nil, err
			}
			return &mcp.CallToolResult{}, nil
		}
		return work(ctx, nil)
	})
	return ts
}

func (ts *testServer) connect(t *testing.T, version string, caps map[string]any) *rawmcp.Client {
	t.Helper()
	c, _ := rawmcp.Pipe(t, ts.srv, func(st mcp.Transport) mcp.Transport { return LiftTransport(st) })
	if version < "2026" {
		c.Initialize(version, caps)
	}
	return c
}

// modernMeta is the per-request _meta of a 2026-07-28 request; ext
// declares the tasks extension.
func modernMeta(ext bool) map[string]any {
	caps := map[string]any{}
	if ext {
		caps["extensions"] = map[string]any{Extension: map[string]any{}}
	}
	return map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": caps,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"},
	}
}

// result decodes a response's result, failing on an error.
func result(t *testing.T, r *jsonrpc.Response) map[string]any {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("error: %v", r.Error)
	}
	var m map[string]any
	if err := json.Unmarshal(r.Result, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func errorOf(t *testing.T, r *jsonrpc.Response) (int64, string) {
	t.Helper()
	if r.Error == nil {
		t.Fatalf("no error: %s", r.Result)
	}
	we, ok := r.Error.(*jsonrpc.Error)
	if !ok {
		t.Fatalf("error %T", r.Error)
	}
	return we.Code, we.Message
}

// waitStatus reads the task with tasks/get until it has status, waiting
// for each change of it in m between reads (Manager.Changed).
func waitStatus(t *testing.T, m *Manager, c *rawmcp.Client, id, status string, params map[string]any) map[string]any {
	t.Helper()
	p := map[string]any{"taskId": id}
	for k, v := range params {
		p[k] = v
	}
	for {
		changed := m.Changed(id)
		got := result(t, c.Call(MethodGet, p))
		if got["status"] == status {
			return got
		}
		if Terminal(fmt.Sprint(got["status"])) {
			t.Fatalf("task %s ended %v, want %s (%v)", id, got["status"], status, got)
		}
		select {
		case <-changed:
		case <-time.After(30 * time.Second): // only a hang
			t.Fatalf("task %s: status %v, want %s (%v)", id, got["status"], status, got)
		}
	}
}

// TestTasksV1 drives the 2025-11-25 experimental tasks on the wire.
func TestTasksV1(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.connect(t, "2025-11-25", map[string]any{"elicitation": map[string]any{}})

	// The capability and the tool's execution.
	c2 := ts.connect(t, "2025-11-25", map[string]any{})
	init := c2.Call("tools/list", map[string]any{})
	var tl struct {
		Tools []struct {
			Name      string         `json:"name"`
			Execution map[string]any `json:"execution"`
		} `json:"tools"`
	}
	json.Unmarshal(init.Result, &tl)
	for _, tool := range tl.Tools {
		if got := fmt.Sprint(tool.Execution); (tool.Name == "work") != (got == "map[taskSupport:optional]") {
			t.Errorf("tool %s execution %s", tool.Name, got)
		}
	}

	// A task call returns at once; the task completes; tasks/result is the
	// tool's result tied to the task.
	created := result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 50}, "task": map[string]any{"ttl": 60000}}))
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if RunIDOf(id) == "" || task["status"] != "working" || task["ttl"] != float64(60000) || task["createdAt"] == nil {
		t.Fatalf("CreateTaskResult %v", created)
	}
	if meta, _ := created["_meta"].(map[string]any); meta[MetaImmediateResponse] == nil {
		t.Errorf("no immediate response: %v", created)
	}
	waitStatus(t, ts.m, c, id, "completed", nil)
	res := result(t, c.Call(MethodResult, map[string]any{"taskId": id}))
	if b, _ := json.Marshal(res["content"]); !strings.Contains(string(b), "done") {
		t.Errorf("tasks/result %v", res)
	}
	if meta, _ := res["_meta"].(map[string]any); fmt.Sprint(meta[MetaRelatedTask]) != "map[taskId:"+id+"]" {
		t.Errorf("tasks/result _meta %v", res["_meta"])
	}
	lst := result(t, c.Call(MethodList, map[string]any{}))
	if ts, _ := lst["tasks"].([]any); len(ts) != 1 {
		t.Errorf("tasks/list %v", lst)
	}

	// A question: input_required, then tasks/result asks it (tied to the
	// task) and returns the result.
	c.OnRequest = func(req *jsonrpc.Request) (any, error) {
		if req.Method != "elicitation/create" || !strings.Contains(string(req.Params), MetaRelatedTask) {
			return nil, fmt.Errorf("unexpected %s %s", req.Method, req.Params)
		}
		if strings.Contains(string(req.Params), "Captcha") {
			return map[string]any{"action": "accept", "content": map[string]any{"answer": "X7K2P"}}, nil
		}
		return map[string]any{"action": "accept", "content": map[string]any{"answer": "482913"}}, nil
	}
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ask": "Captcha?", "ask2": "SMS code?"}, "task": map[string]any{}}))
	id = created["task"].(map[string]any)["taskId"].(string)
	got := waitStatus(t, ts.m, c, id, "input_required", nil)
	if !strings.Contains(fmt.Sprint(got["statusMessage"]), "Captcha?") {
		t.Errorf("statusMessage %v", got["statusMessage"])
	}
	res = result(t, c.Call(MethodResult, map[string]any{"taskId": id}))
	if b, _ := json.Marshal(res["content"]); !strings.Contains(string(b), "done X7K2P,482913") {
		t.Errorf("answers: %s", b)
	}

	// A tool error result makes a failed task on 2025-11-25; tasks/result
	// still gives the result.
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"isError": true}, "task": map[string]any{}}))
	id = created["task"].(map[string]any)["taskId"].(string)
	waitStatus(t, ts.m, c, id, "failed", nil)
	if res := result(t, c.Call(MethodResult, map[string]any{"taskId": id})); res["isError"] != true {
		t.Errorf("isError result %v", res)
	}
	// A JSON-RPC error: failed, and tasks/result is that error.
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"fail": "the browser is gone"}, "task": map[string]any{}}))
	id = created["task"].(map[string]any)["taskId"].(string)
	waitStatus(t, ts.m, c, id, "failed", nil)
	if code, msg := errorOf(t, c.Call(MethodResult, map[string]any{"taskId": id})); code != -32004 || msg != "the browser is gone" {
		t.Errorf("tasks/result of a failed task: %d %s", code, msg)
	}

	// Cancel: cancelled at once, and a second cancel is refused.
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 60000}, "task": map[string]any{}}))
	id = created["task"].(map[string]any)["taskId"].(string)
	if got := result(t, c.Call(MethodCancel, map[string]any{"taskId": id})); got["status"] != "cancelled" {
		t.Errorf("tasks/cancel %v", got)
	}
	if code, msg := errorOf(t, c.Call(MethodCancel, map[string]any{"taskId": id})); code != -32602 || msg != "Cannot cancel task: already in terminal status 'cancelled'" {
		t.Errorf("second cancel: %d %s", code, msg)
	}
	// Its tasks/result waits for the cancelled work's end and is the result it left (one contract
	// with the gateway: PROTOCOL.md, Tasks).
	if got := result(t, c.Call(MethodResult, map[string]any{"taskId": id})); got["isError"] != true || !strings.Contains(fmt.Sprint(got["content"]), "cancelled") {
		t.Errorf("tasks/result of the cancelled task: %v", got)
	}
	if err := ts.m.WaitIdle(ctxTimeout(t)); err != nil {
		t.Fatalf("the cancelled task's work did not stop: %v", err)
	}
	// A cancelled work that left no result: -32001, data.kind cancelled (was -32602).
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 60000, "errOnCancel": true}, "task": map[string]any{}}))
	id = created["task"].(map[string]any)["taskId"].(string)
	result(t, c.Call(MethodCancel, map[string]any{"taskId": id}))
	if r := c.Call(MethodResult, map[string]any{"taskId": id}); r.Error == nil {
		t.Errorf("tasks/result of a cancelled task without a result: %s", r.Result)
	} else if we, _ := r.Error.(*jsonrpc.Error); we == nil || we.Code != CodeCancelled || !strings.Contains(string(we.Data), `"kind":"cancelled"`) {
		t.Errorf("tasks/result of a cancelled task without a result: %v", r.Error)
	}

	// Bad input.
	for _, tc := range []struct {
		method string
		params map[string]any
		code   int64
		msg    string
	}{
		{MethodGet, map[string]any{"taskId": "nope"}, -32602, "Failed to retrieve task: Task not found"},
		{MethodGet, map[string]any{}, -32602, "taskId: required"},
		{MethodResult, map[string]any{"taskId": runs.NewID(time.Now()) + "." + strings.Repeat("0", 32)}, -32602, "Failed to retrieve task: Task not found"},
		{MethodGet, map[string]any{"taskId": 7}, -32602, "taskId: want a string, got a number"},
		{MethodCancel, map[string]any{"taskId": map[string]any{}}, -32602, "taskId: want a string, got an object"},
		{MethodList, map[string]any{"cursor": true}, -32602, "cursor: want a string, got true or false"},
		{MethodList, map[string]any{"cursor": "garbage"}, -32602, "cursor: not a cursor of tasks/list"},
		{MethodUpdate, map[string]any{"taskId": id}, -32601, "Method not found: tasks/update (tasks/update belongs to protocol 2026-07-28; on 2025-11-25 a task's question comes through tasks/result)"},
		{"tools/call", map[string]any{"name": "work", "task": "soon"}, -32602, `task: want an object {"ttl"?: milliseconds}, got "soon"`},
		{"tools/call", map[string]any{"name": "work", "task": map[string]any{"ttl": 0}}, -32602, "task.ttl: 0 is not a time to live; want a positive whole number of milliseconds"},
		{"tools/call", map[string]any{"name": "work", "task": map[string]any{"ttl": -5}}, -32602, ""},
		{"tools/call", map[string]any{"name": "work", "task": map[string]any{"ttl": 1.5}}, -32602, ""},
		{"tools/call", map[string]any{"name": "plain", "task": map[string]any{}}, -32601, `tool "plain" does not support task-augmented calls (its execution.taskSupport is forbidden): call it without the task param`},
	} {
		code, msg := errorOf(t, c.Call(tc.method, tc.params))
		if code != tc.code || tc.msg != "" && msg != tc.msg {
			t.Errorf("%s %v: %d %q, want %d %q", tc.method, tc.params, code, msg, tc.code, tc.msg)
		}
	}
	// A huge ttl is cut to the maximum.
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "task": map[string]any{"ttl": 1e18}}))
	if got := created["task"].(map[string]any)["ttl"]; got != float64(DefaultMaxTTL.Milliseconds()) {
		t.Errorf("huge ttl became %v", got)
	}
	// Without a task param: a plain call, no task.
	if got := result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{}})); got["task"] != nil || got["content"] == nil {
		t.Errorf("plain call %v", got)
	}
}

func ctxTimeout(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestTasksV2 drives the 2026-07-28 extension on the wire.
func TestTasksV2(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.connect(t, "2026-07-28", nil)

	disc := result(t, c.Call("server/discover", map[string]any{"_meta": modernMeta(true)}))
	if caps, _ := disc["capabilities"].(map[string]any); fmt.Sprint(caps["extensions"]) != "map["+Extension+":map[]]" || caps["tasks"] != nil {
		t.Errorf("discover capabilities %v", disc["capabilities"])
	}
	// Without the extension declared: a plain result.
	plain := result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{}, "_meta": modernMeta(false)}))
	if plain["resultType"] == "task" || plain["content"] == nil {
		t.Errorf("a call without the extension became %v", plain)
	}
	// With it: a task, questions as inputRequests, answered by tasks/update.
	created := result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ask": "Captcha?", "ask2": "SMS?"},
		"task": map[string]any{"ttl": 5}, "_meta": modernMeta(true)}))
	id, _ := created["taskId"].(string)
	if created["resultType"] != "task" || created["status"] != "working" || RunIDOf(id) == "" || created["ttlMs"] != float64(DefaultTTL.Milliseconds()) {
		t.Fatalf("CreateTaskResult %v (the task param is ignored on 2026-07-28)", created)
	}
	meta := map[string]any{"_meta": modernMeta(true)}
	for i, answer := range []string{"X7K2P", "482913"} {
		key := fmt.Sprintf("q%d", i+1)
		var got map[string]any
		for { // an update is acknowledged before the task shows it (eventually consistent)
			got = waitStatus(t, ts.m, c, id, "input_required", meta)
			if irs, _ := got["inputRequests"].(map[string]any); irs[key] != nil || irs[fmt.Sprintf("q%d", i)] == nil {
				break
			}
		}
		irs, _ := got["inputRequests"].(map[string]any)
		if _, ok := irs[key]; len(irs) != 1 || !ok || got["resultType"] != "complete" {
			t.Fatalf("input_required %v", got)
		}
		// A key that is not outstanding is ignored.
		ack := result(t, c.Call(MethodUpdate, map[string]any{"taskId": id, "_meta": modernMeta(true),
			"inputResponses": map[string]any{"zz": map[string]any{"action": "accept", "content": map[string]any{"answer": "no"}},
				key: map[string]any{"action": "accept", "content": map[string]any{"answer": answer}}}}))
		if ack["resultType"] != "complete" {
			t.Errorf("tasks/update %v", ack)
		}
	}
	got := waitStatus(t, ts.m, c, id, "completed", meta)
	if b, _ := json.Marshal(got["result"]); !strings.Contains(string(b), "done X7K2P,482913") {
		t.Errorf("result %s", b)
	}
	// isError stays completed on 2026-07-28; a JSON-RPC error is failed with it.
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"isError": true}, "_meta": modernMeta(true)}))
	if got := waitStatus(t, ts.m, c, created["taskId"].(string), "completed", meta); got["result"].(map[string]any)["isError"] != true {
		t.Errorf("isError task %v", got)
	}
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"fail": "gone"}, "_meta": modernMeta(true)}))
	if got := waitStatus(t, ts.m, c, created["taskId"].(string), "failed", meta); fmt.Sprint(got["error"]) != "map[code:-32004 message:gone]" {
		t.Errorf("failed task %v", got)
	}
	// Cancel is an ack, twice too.
	created = result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 60000}, "_meta": modernMeta(true)}))
	id = created["taskId"].(string)
	for range 2 {
		if ack := result(t, c.Call(MethodCancel, map[string]any{"taskId": id, "_meta": modernMeta(true)})); ack["resultType"] != "complete" {
			t.Errorf("cancel %v", ack)
		}
	}
	waitStatus(t, ts.m, c, id, "cancelled", meta)
	// Errors.
	for _, tc := range []struct {
		method string
		params map[string]any
		code   int64
	}{
		{MethodGet, map[string]any{"taskId": id, "_meta": modernMeta(false)}, CodeMissingCapability},
		{MethodResult, map[string]any{"taskId": id, "_meta": modernMeta(true)}, -32601},
		{MethodList, map[string]any{"_meta": modernMeta(true)}, -32601},
		{MethodGet, map[string]any{"taskId": "x", "_meta": modernMeta(true)}, -32602},
		{MethodUpdate, map[string]any{"taskId": "x", "_meta": modernMeta(true), "inputResponses": map[string]any{}}, -32602},
		{MethodCancel, map[string]any{"taskId": "x", "_meta": modernMeta(true)}, -32602},
	} {
		if code, msg := errorOf(t, c.Call(tc.method, tc.params)); code != tc.code {
			t.Errorf("%s: %d %s, want %d", tc.method, code, msg, tc.code)
		}
	}
}

// TestCompletedTaskMessage: once a task completes, the statusMessage its work set while it worked
// ("working", a step, "waiting for an answer: ...") is gone in both eras: the task shows the
// outcome its work gave, or none.
func TestCompletedTaskMessage(t *testing.T) {
	ts := newTestServer(t, Options{})
	for _, era := range []struct {
		version string
		call    map[string]any
		get     map[string]any
	}{
		{"2025-11-25", map[string]any{"task": map[string]any{"ttl": 60000}}, nil},
		{"2026-07-28", map[string]any{"_meta": modernMeta(true)}, map[string]any{"_meta": modernMeta(true)}},
	} {
		c := ts.connect(t, era.version, map[string]any{"elicitation": map[string]any{}})
		for _, tc := range []struct{ outcome, want string }{
			{"", ""},
			{"the work finished", "the work finished"},
		} {
			p := map[string]any{"name": "work", "arguments": map[string]any{"ms": 10, "outcome": tc.outcome}}
			for k, v := range era.call {
				p[k] = v
			}
			created := result(t, c.Call("tools/call", p))
			id, _ := created["taskId"].(string)
			if task, ok := created["task"].(map[string]any); ok {
				id, _ = task["taskId"].(string)
			}
			got := waitStatus(t, ts.m, c, id, "completed", era.get)
			if msg, _ := got["statusMessage"].(string); msg != tc.want {
				t.Errorf("%s, outcome %q: completed with statusMessage %q, want %q", era.version, tc.outcome, msg, tc.want)
			}
		}
	}
}

// TestTaskOwners: another caller cannot see, cancel, answer or fetch a
// task: "task not found", as for an id that never existed.
func TestTaskOwners(t *testing.T) {
	ts := newTestServer(t, Options{})
	who := "t-alice"
	ts.who = func(mcp.Request) Who { return Who{Owner: runs.Owner{Kind: runs.CallerMCP, Token: who}} }
	c := ts.connect(t, "2025-11-25", map[string]any{})
	created := result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 60000}, "task": map[string]any{}}))
	id := created["task"].(map[string]any)["taskId"].(string)
	who = "t-mallory"
	for _, m := range []string{MethodGet, MethodResult, MethodCancel} {
		if code, msg := errorOf(t, c.Call(m, map[string]any{"taskId": id})); code != -32602 || msg != "Failed to retrieve task: Task not found" {
			t.Errorf("%s by another caller: %d %s", m, code, msg)
		}
	}
	if lst := result(t, c.Call(MethodList, map[string]any{})); len(lst["tasks"].([]any)) != 0 {
		t.Errorf("another caller lists %v", lst)
	}
	who = "t-alice"
	if got := result(t, c.Call(MethodGet, map[string]any{"taskId": id})); got["status"] != "working" {
		t.Errorf("the owner's task after another caller's tries: %v", got)
	}
}

// TestUnboundList: callers bound to nothing (HTTP without --token) are
// listed only their own session's tasks; another's task, once its
// session ended, is reached by its id alone (PROTOCOL.md "Who sees a
// task").
func TestUnboundList(t *testing.T) {
	ts := newTestServer(t, Options{})
	session, aliveA := "s-alice", true
	live := func(s string) bool { return s == "s-mallory" || s == "s-alice" && aliveA }
	ts.who = func(mcp.Request) Who {
		return Who{Owner: runs.Owner{Kind: runs.CallerMCP, Session: session}, Live: live}
	}
	c := ts.connect(t, "2025-11-25", map[string]any{})
	created := result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 60000}, "task": map[string]any{}}))
	id := created["task"].(map[string]any)["taskId"].(string)
	listed := func() []any { return result(t, c.Call(MethodList, map[string]any{}))["tasks"].([]any) }
	if l := listed(); len(l) != 1 || l[0].(map[string]any)["taskId"] != id {
		t.Errorf("alice lists %v", l)
	}
	session = "s-mallory"
	for _, ended := range []bool{false, true} {
		aliveA = !ended
		if l := listed(); len(l) != 0 {
			t.Errorf("another unbound session lists %v (alice's session ended: %v)", l, ended)
		}
	}
	if got := result(t, c.Call(MethodGet, map[string]any{"taskId": id})); got["status"] != "working" {
		t.Errorf("by its id once alice's session ended: %v", got)
	}
}

// TestListShowsGet: tasks/list shows a live task's state as tasks/get
// does, its latest statusMessage too (the store has it only every
// messageEvery).
func TestListShowsGet(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.connect(t, "2025-11-25", map[string]any{})
	created := result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 60000}, "task": map[string]any{}}))
	id := created["task"].(map[string]any)["taskId"].(string)
	var got map[string]any
	for {
		changed := ts.m.Changed(id)
		if got = result(t, c.Call(MethodGet, map[string]any{"taskId": id})); got["statusMessage"] == "working" {
			break
		}
		select {
		case <-changed:
		case <-time.After(time.Minute): // only a hang
			t.Fatalf("tasks/get never showed the work's message: %v", got)
		}
	}
	l := result(t, c.Call(MethodList, map[string]any{}))["tasks"].([]any)
	if len(l) != 1 || l[0].(map[string]any)["statusMessage"] != got["statusMessage"] || l[0].(map[string]any)["status"] != got["status"] {
		t.Errorf("tasks/get shows %v, tasks/list %v", got, l)
	}
}

// TestTaskLimit: one task more than Max is refused (busy), the others run.
func TestTaskLimit(t *testing.T) {
	ts := newTestServer(t, Options{Max: 2})
	c := ts.connect(t, "2025-11-25", map[string]any{})
	for i := 0; i < 2; i++ {
		result(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 60000}, "task": map[string]any{}}))
	}
	if code, msg := errorOf(t, c.Call("tools/call", map[string]any{"name": "work", "arguments": map[string]any{"ms": 1}, "task": map[string]any{}})); code != -32004 || !strings.Contains(msg, "too many tasks") {
		t.Errorf("third task: %d %s", code, msg)
	}
	if ts.m.Live() != 2 {
		t.Errorf("%d live", ts.m.Live())
	}
}

// TestNoParams: tasks/list and tasks/get without params are answered, not
// a crash (the go-sdk would dereference a nil params of a custom method).
func TestNoParams(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.connect(t, "2025-11-25", map[string]any{})
	for i, m := range []string{MethodList, MethodGet, MethodCancel, MethodResult} {
		id, _ := jsonrpc.MakeID(fmt.Sprintf("no-params-%d", i)) // beside Call's numbered ids
		if err := c.Conn.Write(context.Background(), &jsonrpc.Request{ID: id, Method: m}); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only a hang
		msg, err := c.Conn.Read(ctx)
		cancel()
		if err != nil {
			t.Fatalf("%s without params: %v", m, err)
		}
		r, _ := msg.(*jsonrpc.Response)
		if r == nil || m == MethodList && r.Error != nil || m != MethodList && r.Error == nil {
			t.Errorf("%s without params: %+v", m, msg)
		}
	}
}

// TestListenForTasks: a 2026-07-28 subscriptions/listen asking for task
// notifications without declaring the extension is -32021.
func TestListenForTasks(t *testing.T) {
	ts := newTestServer(t, Options{})
	c := ts.connect(t, "2026-07-28", nil)
	params := map[string]any{"_meta": modernMeta(false), "notifications": map[string]any{"taskIds": []string{"x"}}}
	if code, _ := errorOf(t, c.Call("subscriptions/listen", params)); code != CodeMissingCapability {
		t.Errorf("listen for tasks without the extension: %d", code)
	}
}
