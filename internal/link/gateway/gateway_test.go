//lint:file-ignore SA1019 the tests exercise the forwarding of sampling, deprecated by SEP-2577 but still part of the protocol during its deprecation window.

package gateway

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/lang"
)

func TestEndToEnd(t *testing.T) {
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", nil, "only_d1"), nil)
	startDesk(t, x.wsURL(), "d2", deskServer("d2", nil), nil)
	x.waitDevices(t, 2)

	changed := make(chan struct{}, 16)
	cs := agent(t, x.mcpURL(), &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
		select {
		case changed <- struct{}{}:
		default:
		}
	}})
	ctx := context.Background()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tl := range lt.Tools {
		tools[tl.Name] = tl
	}
	for _, n := range []string{"echo", "slow", "ask", "only_d1"} {
		if tools[n] == nil {
			t.Fatalf("tool %q not listed; got %v", n, lt.Tools)
		}
	}
	var echoSchema struct {
		Properties map[string]struct {
			Enum []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	b, _ := json.Marshal(tools["echo"].InputSchema)
	_ = json.Unmarshal(b, &echoSchema)
	if got := echoSchema.Properties["deviceId"].Enum; !slices.Equal(got, []string{"d1", "d2"}) || !slices.Contains(echoSchema.Required, "deviceId") {
		t.Errorf("echo schema: deviceId enum %v, required %v; want [d1 d2], required", got, echoSchema.Required)
	}
	b, _ = json.Marshal(tools["only_d1"].InputSchema)
	if strings.Contains(string(b), "deviceId") {
		t.Errorf("only_d1 is offered once, its schema should not take deviceId: %s", b)
	}

	for _, dev := range []string{"d1", "d2"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "hi", "deviceId": dev}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := text(res), dev+": hi"; got != want {
			t.Errorf("echo on %s = %q, want %q", dev, got, want)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "only_d1", Arguments: map[string]any{}})
	if err != nil || text(res) != "d1 ran only_d1" {
		t.Errorf("only_d1 = %v, %v", res, err)
	}

	// Error codes as sent on the wire.
	raw := newRawAgent(t, x.mcpURL())
	for _, tc := range []struct {
		name string
		args map[string]any
		code int
		msg  string
	}{
		{"nope", map[string]any{}, -32003, "nope"},
		{"echo", map[string]any{"msg": "x"}, -32602, "deviceId: required"},
		{"echo", map[string]any{"msg": "x", "deviceId": "d9"}, -32602, "deviceId: no connected desktop"},
	} {
		m := raw.call(t, "tools/call", map[string]any{"name": tc.name, "arguments": tc.args})
		if errCode(m) != tc.code || !strings.Contains(m["error"].(map[string]any)["message"].(string), tc.msg) {
			t.Errorf("%s %v: got %v, want code %d with %q", tc.name, tc.args, m, tc.code, tc.msg)
		}
	}

	// GET /devices.
	req, _ := http.NewRequest("GET", "http://"+x.addr+"/devices", nil)
	resp, err := httpClient(testToken).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var devs struct{ Devices []DeviceInfo }
	_ = json.NewDecoder(resp.Body).Decode(&devs)
	resp.Body.Close()
	if len(devs.Devices) != 2 || devs.Devices[0].DeviceID != "d1" || !slices.Contains(devs.Devices[0].Tools, "only_d1") || devs.Devices[1].LinkAgeSeconds <= 0 {
		t.Errorf("/devices = %+v", devs)
	}
	for _, p := range []string{"/devices", "/mcp"} {
		resp, err := http.Get("http://" + x.addr + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %s, want 401", p, resp.Status)
		}
	}

	// A third desktop comes, then goes: the agent hears about both, and the schema follows.
	for len(changed) > 0 {
		<-changed
	}
	d3 := startDesk(t, x.wsURL(), "d3", deskServer("d3", nil), nil)
	x.waitDevices(t, 3)
	waitSignal(t, changed, "list_changed after a desktop came")
	d3.stop()
	x.waitDevices(t, 2)
	waitSignal(t, changed, "list_changed after a desktop went")
	lt, _ = cs.ListTools(ctx, nil)
	for _, tl := range lt.Tools {
		if tl.Name == "echo" {
			b, _ := json.Marshal(tl.InputSchema)
			if strings.Contains(string(b), "d3") {
				t.Errorf("echo schema still names d3: %s", b)
			}
		}
	}
}

func waitSignal(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(hangGuard):
		t.Fatalf("timed out waiting for %s", what)
	}
}

func TestProgressAndElicitation(t *testing.T) {
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", nil), nil)
	x.waitDevices(t, 1)
	ctx := context.Background()

	// Progress notices may reach the agent just after the call's answer:
	// wait for the fourth (the bound only catches a hang), then compare.
	progress := make(chan string, 16)
	cs := agent(t, x.mcpURL(), &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		progress <- r.Params.ProgressToken.(string) + " " + r.Params.Message
	}})
	p := &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "p", "ms": 80}}
	p.SetProgressToken("tok-1")
	if _, err := cs.CallTool(ctx, p); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 4 {
		select {
		case m := <-progress:
			got = append(got, m)
		case <-time.After(hangGuard):
			t.Fatalf("only %d progress notices: %q", len(got), got)
		}
	}
	if s := strings.Join(got, ","); s != "tok-1 1/4,tok-1 2/4,tok-1 3/4,tok-1 4/4" {
		t.Errorf("progress = %q", s)
	}

	// Two agents ask at once on the same desktop: each question reaches the agent whose call asked.
	var wg sync.WaitGroup
	for _, name := range []string{"alice", "bob"} {
		name := name
		a := agent(t, x.mcpURL(), &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			time.Sleep(30 * time.Millisecond)
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": name}}, nil
		}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 3; i++ {
				res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"msg": "who?"}})
				if err != nil {
					t.Error(err)
					return
				}
				if got, want := text(res), "d1 got "+name; got != want {
					t.Errorf("ask = %q, want %q", got, want)
				}
			}
		}()
	}
	wg.Wait()

	// Sampling goes to the calling agent the same way.
	sampler := agent(t, x.mcpURL(), &mcp.ClientOptions{CreateMessageHandler: func(_ context.Context, r *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "re: " + r.Params.Messages[0].Content.(*mcp.TextContent).Text}}, nil
	}})
	res, err := sampler.CallTool(ctx, &mcp.CallToolParams{Name: "think", Arguments: map[string]any{"msg": "2+2"}})
	if err != nil || text(res) != "d1 model said re: 2+2" {
		t.Errorf("sampling relay: %v %v", res, err)
	}

	// An agent without elicitation: the desktop is told -32601 and goes on (here: reports it).
	plain := agent(t, x.mcpURL(), nil)
	res, err = plain.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"msg": "who?"}})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "does not support elicitation") {
		t.Errorf("ask without elicitation = %q (isError %v)", text(res), res.IsError)
	}
}

func TestDesktopDropsMidCall(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{RelinkWait: 200 * time.Millisecond})
	d := startDesk(t, x.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	raw := newRawAgent(t, x.mcpURL())
	start := time.Now()
	got := make(chan map[string]any, 1)
	go func() {
		got <- raw.call(t, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"key": "k", "ms": 120000}})
	}()
	await(t, func() bool { return r.get("k") == 1 }, func() string { return "the desktop never ran the call" })
	d.stop()
	m := <-got
	if el := time.Since(start); el > 30*time.Second { // only a hang: the flow would take 2 minutes
		t.Errorf("the agent waited %v after the desktop dropped", el)
	}
	if errCode(m) != CodeUnreachable || !strings.Contains(m["error"].(map[string]any)["message"].(string), `desktop "d1" disconnected`) {
		t.Errorf("got %v, want -32004 desktop disconnected", m)
	}
}

// TestAgentCancelReachesDesktop: an agent giving up on a call cancels the run on the desktop.
func TestAgentCancelReachesDesktop(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	cs := agent(t, x.mcpURL(), nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "c", "ms": 10000}})
		called <- err
	}()
	await(t, func() bool { return r.get("c") == 1 }, func() string { return "the desktop never ran the call" })
	cancel() // the agent gives up while the desktop runs the call
	if err := <-called; err == nil {
		t.Fatal("the call outlived its context")
	}
	await(t, func() bool { return r.get("c/cancelled") == 1 }, func() string { return "the desktop's run was not cancelled" })
}

// TestUnknownMethod: a call of a method the gateway does not have is a JSON-RPC -32601 answer
// with the call's id (HTTP 200), as over stdio and on rpa serve --http; the SDK answered HTTP
// 400 with the text "JSON RPC not handled".
func TestUnknownMethod(t *testing.T) {
	x := startGateway(t, "", Options{})
	a := newRawAgent(t, x.mcpURL())
	m := a.call(t, "nosuch/method", map[string]any{})
	if errCode(m) != -32601 || !strings.Contains(errMessage(m), "nosuch/method") {
		t.Errorf("unknown method: %v", m)
	}
	if m := a.call(t, "ping", map[string]any{}); m["error"] != nil {
		t.Errorf("the session after them: %v", m)
	}
}

// TestGatewayBeforeInitialize: a request that needs a session, sent without one (before
// initialize), is HTTP 400 with JSON-RPC -32600 at the gateway's /mcp too (mrtr.BeforeInitialize,
// as rpa serve --http and stdio), through the unknown-method wrapper; it was code 0. So is a
// JSON-RPC batch (id null), which was 200 with code 0.
func TestGatewayBeforeInitialize(t *testing.T) {
	x := startGateway(t, "", Options{})
	a := &rawAgent{url: x.mcpURL(), hc: httpClient(testToken)}
	resp := a.post(t, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": map[string]any{}})
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusBadRequest || errCode(m) != -32600 || m["id"] != 7.0 {
		t.Errorf("tools/list before initialize: HTTP %d %v %v", resp.StatusCode, m, err)
	}
	batch := a.post(t, []map[string]any{{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}})
	defer batch.Body.Close()
	m = nil
	if err := json.NewDecoder(batch.Body).Decode(&m); err != nil || batch.StatusCode != http.StatusBadRequest || errCode(m) != -32600 || m["id"] != nil {
		t.Errorf("a batch before initialize: HTTP %d %v %v", batch.StatusCode, m, err)
	}
}

// TestGatewayCallerTextNotEchoed: a tool name or method longer than lang.MaxEcho is named by
// its length in the gateway's refusal, not sent back whole (a 100 kB tool name was echoed),
// and params that do not decode are refused naming the field, not quoted back.
func TestGatewayCallerTextNotEchoed(t *testing.T) {
	x := startGateway(t, "", Options{})
	a := newRawAgent(t, x.mcpURL())
	long := strings.Repeat("t", 100_000)
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{"tools/call", map[string]any{"name": long, "arguments": map[string]any{}}},
		{"tools/call", map[string]any{"name": long, "arguments": map[string]any{}, "deviceId": long}},
		{"resources/" + long, map[string]any{}},
	} {
		m := a.call(t, c.method, c.params)
		b, _ := json.Marshal(m)
		if m["error"] == nil || strings.Contains(string(b), long[:lang.MaxEcho+1]) || !strings.Contains(string(b), "too long to show") {
			t.Errorf("%.40s: %d bytes: %.300s", c.method, len(b), b[:200])
		}
	}
	// Params the SDK cannot decode: -32602 naming the field, where its answer quoted them whole
	// (an agent's password, a 1 MB argument).
	const canary = "pw-CANARY-93d1"
	bad := json.RawMessage(`{"name":5,"arguments":{"password":"` + canary + `","big":"` + strings.Repeat("b", 1<<20) + `"}}`)
	m := a.call(t, "tools/call", bad)
	if b, _ := json.Marshal(m); errCode(m) != -32602 || strings.Contains(string(b), canary) || len(b) > 1024 || !strings.Contains(string(b), `"field":"name"`) {
		t.Errorf("malformed params: %d bytes: %.300s", len(b), b)
	}
	m = a.call(t, "tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}})
	if b, _ := json.Marshal(m); !strings.Contains(string(b), `\"nope\"`) {
		t.Errorf("a short tool name is not quoted: %s", b)
	}
}
