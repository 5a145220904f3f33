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
)

// waitInFlight waits until the desktop runs the call key (r counts its runs), which the gateway
// then has in flight.
func waitInFlight(t *testing.T, x *gw, r *runCount, key string) {
	t.Helper()
	await(t, func() bool {
		ds := x.g.Devices()
		return r.get(key) == 1 && len(ds) == 1 && ds[0].InFlight == 1
	}, func() string { return "the desktop never had the call " + key + " in flight" })
}

func errMessage(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	s, _ := e["message"].(string)
	return s
}

// TestShutdownDrains: on Shutdown new calls are refused with "the gateway is restarting", and the
// call in flight still gets its answer before the links close.
func TestShutdownDrains(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	cs := agent(t, x.mcpURL(), nil)
	late := newRawAgent(t, x.mcpURL())
	type out struct {
		res *mcp.CallToolResult
		err error
	}
	first := make(chan out, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "k", "ms": 1500}})
		first <- out{res, err}
	}()
	waitInFlight(t, x, r, "k")
	shut := make(chan error, 1)
	go func() { shut <- x.g.Shutdown(context.Background()) }()
	await(t, x.g.drain.draining, func() string { return "Shutdown never began to drain" }) // it logs as it begins
	m := late.call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"msg": "x"}})
	if errCode(m) != CodeUnreachable || !strings.Contains(errMessage(m), "the gateway is restarting") {
		t.Errorf("a call during the drain got %v, want -32004 the gateway is restarting", m)
	}
	o := <-first
	if o.err != nil || text(o.res) != "d1 done k" {
		t.Errorf("the call in flight got %v %v, want its answer", o.res, o.err)
	}
	if err := <-shut; err != nil {
		t.Errorf("Shutdown: %v", err)
	}
}

// TestShutdownTimeoutSaysRestarting: a call still running when the drain ends is told the gateway
// is restarting (not that the desktop disconnected) and where its answer will be kept.
func TestShutdownTimeoutSaysRestarting(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	a := newRawAgent(t, x.mcpURL())
	got := make(chan map[string]any, 1)
	go func() {
		got <- a.call(t, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"key": "k", "ms": 3000}})
	}()
	waitInFlight(t, x, r, "k")
	ctx, cancel := context.WithCancel(context.Background())
	cancel() // no time to drain
	if err := x.g.Shutdown(ctx); err == nil || !strings.Contains(err.Error(), "1 calls still in flight") {
		t.Errorf("Shutdown = %v", err)
	}
	m := <-got
	msg := errMessage(m)
	if errCode(m) != CodeUnreachable || !strings.Contains(msg, "the gateway is restarting") || strings.Contains(msg, "disconnected") || !strings.Contains(msg, RunURIPrefix+"gw-") {
		t.Errorf("the call in flight got %v", m)
	}
}

// TestLostSessionAnswerKept: an agent's connection drops during a call (not a cancel): the
// desktop finishes, and its answer is kept as a resource that agent's session lists and reads;
// another agent's session (the same token) neither lists nor reads it while that session lives,
// and may once it ended (its runs pass to its token).
func TestLostSessionAnswerKept(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	a := newRawAgent(t, x.mcpURL())
	ctx, drop := context.WithCancel(context.Background())
	go func() {
		body := `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"slow","arguments":{"key":"lost","ms":600}}}`
		req, _ := http.NewRequestWithContext(ctx, "POST", a.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", a.session)
		if resp, err := a.hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitInFlight(t, x, r, "lost")
	drop() // the agent's connection goes away mid-call
	await(t, func() bool { return strings.Contains(x.logs.String(), "kept a late answer") }, func() string {
		return "no late answer kept; log:\n" + x.logs.String()
	})
	if n := r.get("lost/cancelled"); n != 0 {
		t.Errorf("the desktop's run was cancelled %d times", n)
	}
	lm := a.call(t, "resources/list", map[string]any{})
	res, _ := lm["result"].(map[string]any)
	rs, _ := res["resources"].([]any)
	if len(rs) != 1 {
		t.Fatalf("the agent's resources: %v", lm)
	}
	uri, _ := rs[0].(map[string]any)["uri"].(string)
	rm := a.call(t, "resources/read", map[string]any{"uri": uri})
	if !strings.Contains(fmt.Sprint(rm["result"]), "d1 done lost") || !strings.Contains(fmt.Sprint(rm["result"]), `"tool":"slow"`) {
		t.Fatalf("read: %v", rm)
	}
	id := strings.TrimPrefix(uri, RunURIPrefix)
	if got, ok := x.g.Late(id); !ok || got.Device != "d1" {
		t.Errorf("Late(%q) = %+v %v", id, got, ok)
	}
	cs := agentAt(t, x.mcpURL(), nil, "2025-11-25")
	if lr, err := cs.ListResources(context.Background(), nil); err != nil || len(lr.Resources) != 0 {
		t.Errorf("another agent lists: %v %+v", err, lr)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err == nil {
		t.Error("another agent read the kept answer")
	}
	a.delete(t)
	poll(t, func() bool { return !x.g.agents.live(runs.SessionDigest(a.session)) }, func() string { return "never: the agent's session to end after DELETE" })
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri}); err != nil {
		t.Errorf("once its session ended, an agent with the same token cannot read the kept answer: %v", err)
	}
}

func TestLateStoreBounded(t *testing.T) {
	s := newLateStore(3, time.Hour)
	now := time.Now()
	var evicted []string
	for i := 0; i < 5; i++ {
		id := fmt.Sprintf("gw-x-%d", i)
		evicted = append(evicted, s.put(&LateResult{ID: id, CallID: id, At: now}, now)...)
	}
	if strings.Join(evicted, ",") != "gw-x-0,gw-x-1" {
		t.Errorf("evicted %v", evicted)
	}
	if _, ok := s.get("gw-x-0"); ok {
		t.Error("an evicted answer is still there")
	}
	if _, ok := s.get("gw-x-4"); !ok {
		t.Error("the newest answer is missing")
	}
	// Expired entries go at the next put.
	later := now.Add(2 * time.Hour)
	if ev := s.put(&LateResult{ID: "run-1", CallID: "gw-x-9", At: later}, later); len(ev) != 3 {
		t.Errorf("expired evictions = %v", ev)
	}
	if r, ok := s.get("gw-x-9"); !ok || r.ID != "run-1" {
		t.Errorf("lookup by call id: %+v %v", r, ok)
	}
}

// TestCancelledCallNotAnswered: an agent cancels its call; the desktop stops the tool and sends no
// answer for it (MCP: SHOULD NOT), and nothing of it is kept as a late answer.
func TestCancelledCallNotAnswered(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{})
	deskLog := &logBuf{}
	startDesk(t, x.wsURL(), "d1", deskServer("d1", r), func(o *connect.Options) { o.Logger = slogTo(deskLog) })
	x.waitDevices(t, 1)
	cs := agent(t, x.mcpURL(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "c", "ms": 20000}})
		done <- err
	}()
	waitInFlight(t, x, r, "c")
	cancel()
	<-done
	await(t, func() bool { return strings.Contains(deskLog.String(), "answer of a cancelled request dropped") }, func() string {
		return "the desktop did not drop the cancelled call's answer; log:\n" + deskLog.String()
	})
	if r.get("c/cancelled") != 1 {
		t.Errorf("the tool was not cancelled")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "after"}})
	if err != nil || text(res) != "d1: after" {
		t.Fatalf("echo after the cancel: %v %v", res, err)
	}
	for _, bad := range []string{"kept a late answer", "dropping an answer"} {
		if strings.Contains(x.logs.String(), bad) {
			t.Errorf("the gateway saw an answer of the cancelled call (%q):\n%s", bad, x.logs.String())
		}
	}
}

// TestRunResourcesThroughGateway: an agent reads the run resources (rpa://runs/...) of a call it
// made through the gateway, from the desktop; another agent reads none of them, and cannot
// resume the run.
func TestRunResourcesThroughGateway(t *testing.T) {
	x := startGateway(t, "", Options{})
	srv := deskServer("d1", nil)
	srv.AddTool(&mcp.Tool{Name: "run", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: `{"runId":"r-1"}`}}, StructuredContent: json.RawMessage(`{"runId":"r-1"}`)}, nil
	})
	srv.AddResource(&mcp.Resource{URI: "rpa://runs/r-1/report.html", Name: "report", MIMEType: "text/html"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/html", Text: "<h1>run r-1</h1>"}}}, nil
		})
	startDesk(t, x.wsURL(), "d0", deskServer("d0", nil), nil) // a desktop without the run
	startDesk(t, x.wsURL(), "d1", srv, nil)
	x.waitDevices(t, 2)
	// Sessions (2025-11-25): one gateway token, told apart by their session. (A 2026-07-28
	// agent has none: the token is all that names it.)
	cs := agentAt(t, x.mcpURL(), nil, "2025-11-25")
	other := agentAt(t, x.mcpURL(), nil, "2025-11-25")
	if _, err := other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "rpa://runs/r-1/report.html"}); err == nil {
		t.Error("an agent read a run nobody made through the gateway")
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run"}); err != nil {
		t.Fatal(err)
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "rpa://runs/r-1/report.html"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "<h1>run r-1</h1>" {
		t.Fatalf("read through the gateway: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "rpa://runs/nope"}); err == nil {
		t.Error("a run no desktop has was found")
	}
	if _, err := other.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "rpa://runs/r-1/report.html"}); err == nil {
		t.Error("another agent read the run")
	}
	raw := newRawAgent(t, x.mcpURL())
	m := raw.call(t, "tools/call", map[string]any{"name": "run", "arguments": map[string]any{"resumeRunId": "r-1"}})
	if errCode(m) != -32602 || !strings.Contains(errMessage(m), "resumeRunId") {
		t.Errorf("another agent resuming the run got %v", m)
	}
}
