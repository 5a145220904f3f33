package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// TestGatewayRestartDuringCall kills the gateway during a long call and starts a new one on the
// same address: the agent's call fails cleanly, the desktop re-dials and re-registers, the
// finished answer reaches the new gateway once (which keeps it as a resource the agent can read),
// the flow ran once, and the agent's retry succeeds.
func TestGatewayRestartDuringCall(t *testing.T) {
	r := &runCount{}
	data := t.TempDir() // the key of call ids: the next gateway process verifies this one's
	x := startGateway(t, "", Options{DataDir: data})
	d := startDesk(t, x.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	cs := agent(t, x.mcpURL(), nil)

	const flowMs = 5000 // a flow that outlives the gateway
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "first", "ms": flowMs}})
		callErr <- err
	}()
	await(t, func() bool { return r.get("first") == 1 }, func() string { return "the flow never started on the desktop" })
	x.kill()
	select {
	case err := <-callErr:
		if err == nil {
			t.Fatal("the call succeeded through a dead gateway")
		}
		if r.get("first/done") != 0 { // it waited for the flow's end
			t.Error("the agent's call failed only after the flow ended")
		}
	case <-time.After(hangGuard):
		t.Fatal("the agent's call hangs after the gateway died")
	}
	// The desktop tries (and fails) to re-dial while no gateway listens.
	waitFailedDial(t, d)
	y := startGateway(t, x.addr, Options{DataDir: data})
	y.waitDevices(t, 1)

	// The kept answer reaches the new gateway after the flow ends; it keeps
	// it for the agent, once: the outcome of the first call is not lost.
	cs2 := agent(t, y.mcpURL(), nil)
	var lr *mcp.ListResourcesResult
	await(t, func() bool {
		var err error
		lr, err = cs2.ListResources(context.Background(), nil)
		return err == nil && len(lr.Resources) > 0
	}, func() string { return "the new gateway never kept the late answer" })
	if r.get("first/done") != 1 || r.get("first") != 1 {
		t.Errorf("the flow ran %d times, finished %d times", r.get("first"), r.get("first/done"))
	}
	res, err := cs2.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "retry", "ms": 10}})
	if err != nil || text(res) != "d1 done retry" {
		t.Fatalf("retry: %v %v", res, err)
	}
	lr, err = cs2.ListResources(context.Background(), nil)
	if err != nil || len(lr.Resources) != 1 || !strings.HasPrefix(lr.Resources[0].URI, RunURIPrefix+"gw-") {
		t.Fatalf("resources after the restart (the kept answer, once): %v %+v", err, lr)
	}
	rr, err := cs2.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: lr.Resources[0].URI})
	if err != nil || len(rr.Contents) != 1 || !strings.Contains(rr.Contents[0].Text, "d1 done first") || !strings.Contains(rr.Contents[0].Text, `"deviceId":"d1"`) {
		t.Fatalf("reading the kept answer: %v %+v", err, rr)
	}
}

// TestGatewayClosingKeepsAnswers: Close comes before the HTTP server closes (as in Serve). Meanwhile
// the desktop, told 1012, dials the same address at once and the agent's request ends with the
// connection: the closing gateway refuses the link (no desktop is admitted into a dying gateway,
// which would then cancel the call on it) and never cancels the call on the desktop, whose
// answer reaches the next gateway.
func TestGatewayClosingKeepsAnswers(t *testing.T) {
	r := &runCount{}
	data := t.TempDir() // the key of call ids: the next gateway process verifies this one's
	x := startGateway(t, "", Options{DataDir: data})
	d := startDesk(t, x.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	waitState(t, d, connect.StateUp)
	cs := agent(t, x.mcpURL(), nil)
	callErr := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "first", "ms": 2000}})
		callErr <- err
	}()
	await(t, func() bool { return r.get("first") == 1 }, func() string { return "the flow never started on the desktop" })
	_ = x.g.Close()
	waitFailedDial(t, d) // its HTTP server still listens: the link is refused
	if len(x.g.Devices()) != 0 {
		t.Fatalf("a closing gateway admitted a desktop: %+v", x.g.Devices())
	}
	_ = x.hs.Close() // the agent's request ends now
	if err := <-callErr; err == nil {
		t.Fatal("the call succeeded through a closed gateway")
	}
	y := startGateway(t, x.addr, Options{DataDir: data})
	y.waitDevices(t, 1)
	cs2 := agent(t, y.mcpURL(), nil)
	await(t, func() bool {
		lr, err := cs2.ListResources(context.Background(), nil)
		return err == nil && len(lr.Resources) == 1
	}, func() string { return "the next gateway never kept the answer" })
	if r.get("first/done") != 1 {
		t.Errorf("the flow finished %d times, want 1 (not cancelled)", r.get("first/done"))
	}
}

// waitState waits for d to reach state s.
func waitState(t *testing.T, d *desk, s connect.State) {
	t.Helper()
	for {
		select {
		case got := <-d.states:
			if got == s {
				return
			}
		case <-time.After(hangGuard):
			t.Fatalf("desk %s never reached state %v", d.id, s)
		}
	}
}

// waitFailedDial waits until d's link went down, dialled again and failed.
func waitFailedDial(t *testing.T, d *desk) {
	t.Helper()
	seen := []connect.State{}
	for {
		select {
		case s := <-d.states:
			seen = append(seen, s)
			n := len(seen)
			if n >= 3 && seen[n-3] == connect.StateDown && seen[n-2] == connect.StateDialing && seen[n-1] == connect.StateDown {
				return
			}
		case <-time.After(hangGuard):
			t.Fatalf("the desktop never failed a re-dial; states %v", seen)
		}
	}
}

// TestBadDesktops: garbage frames, oversized frames, a wrong token and a link that never
// registers get clear errors; the gateway and its other desktops carry on.
func TestBadDesktops(t *testing.T) {
	x := startGateway(t, "", Options{Link: mcpws.Options{MaxFrame: 64 << 10}})
	startDesk(t, x.wsURL(), "good", deskServer("good", nil), nil)
	x.waitDevices(t, 1)
	ctx := context.Background()

	// Wrong token: 401 before any upgrade.
	if _, err := mcpws.Dial(ctx, x.wsURL(), "wrong", mcpws.Options{}); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("wrong token: %v, want 401", err)
	}
	// A link that does not start with register is closed with 1008.
	l, err := mcpws.Dial(ctx, x.wsURL(), testToken, mcpws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = l.WriteFrame([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	var ce *websocket.CloseError
	if _, err := l.ReadFrame(); !errors.As(err, &ce) || ce.Code != 1008 {
		t.Errorf("no register: %v, want close 1008", err)
	}

	// A hand-made desktop: register, answer initialize and tools/list, then misbehave.
	bad, err := mcpws.Dial(ctx, x.wsURL(), testToken, mcpws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer bad.Close()
	_ = bad.WriteJSON(mcpws.Register{Type: "register", DeviceID: "bad", AvailableTools: []string{}})
	for i := 0; i < 2; i++ {
		f, err := bad.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     any    `json:"id"`
			Method string `json:"method"`
		}
		_ = json.Unmarshal(f, &m)
		if m.Method == "notifications/initialized" {
			i--
			continue
		}
		result := `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"bad","version":"0"}}`
		if m.Method == "tools/list" {
			result = `{"tools":[{"name":"bad_tool","inputSchema":{"type":"object"}},{"name":"no schema"}]}`
		}
		idj, _ := json.Marshal(m.ID)
		_ = bad.WriteFrame([]byte(`{"jsonrpc":"2.0","id":` + string(idj) + `,"result":` + result + `}`))
	}
	x.waitDevices(t, 2)
	_ = bad.WriteFrame([]byte("garbage {"))
	f, err := bad.ReadFrame()
	if err != nil || !strings.Contains(string(f), "-32700") {
		t.Errorf("garbage frame: got %s %v, want a -32700 answer", f, err)
	}
	if len(x.g.Devices()) != 2 {
		t.Error("the garbage frame cost the link")
	}
	// The gateway closes the link with 1009 (the writer may see its write fail first).
	if err := bad.WriteFrame([]byte(`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("a", 100<<10) + `"}`)); err == nil {
		if _, err := bad.ReadFrame(); !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
			t.Errorf("oversized frame: %v, want close 1009", err)
		}
	}
	x.waitDevices(t, 1) // the oversized frame cost that link, and only it

	cs := agent(t, x.mcpURL(), nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "still here"}})
	if err != nil || text(res) != "good: still here" {
		t.Errorf("the good desktop after the bad one: %v %v", res, err)
	}
	resp, err := http.Get("http://" + x.addr + "/devices")
	if err == nil {
		resp.Body.Close()
	}
	if strings.Contains(x.logs.String(), testToken) { // a secret never reaches the log
		t.Error("the token reached the log")
	}
}
