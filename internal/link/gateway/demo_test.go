package gateway

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

const demoPassword = "Gw-9c1e-walrus"

// TestDemoFlowThroughGateway: gateway + a desktop running the real server core (mcpserver, headless
// Chromium) + an SDK agent at /mcp calling the reference flow against the demo app; a flow file
// added on the desktop reaches the agent as list_changed and a new tool.
func TestDemoFlowThroughGateway(t *testing.T) {
	if testing.Short() {
		t.Skip("short: starts Chromium")
	}
	app, err := demoapp.Start(demoapp.Options{Delay: 20 * time.Millisecond, Password: demoPassword})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })

	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "flows", "query_power_data.flow"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "query_power_data.flow"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	pool := chromiumPool(t, t.TempDir())
	deskLog := &logBuf{}
	srv, err := mcpserver.New(mcpserver.Options{FlowsDir: dir, Pool: pool, Debounce: 20 * time.Millisecond, Logger: slogTo(deskLog)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	x := startGateway(t, "", Options{})
	d := startDesk(t, x.wsURL(), "pc1", srv.MCP(), func(o *connect.Options) { o.ToolNames = srv.ToolNames; o.Logger = slogTo(deskLog) })
	srv.OnToolsChanged(d.client.ToolsChanged)
	x.waitDevices(t, 1)

	changed := make(chan struct{}, 8)
	var mu sync.Mutex
	var progress []string
	cs := agent(t, x.mcpURL(), &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Message)
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	p := &mcp.CallToolParams{Name: "workflow_query_power_data", Arguments: map[string]any{
		"username": demoapp.DemoUsername, "password": demoPassword, "region": "110000", "base_url": app.URL,
	}}
	p.SetProgressToken("demo")
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("flow failed: %s", text(res))
	}
	var out struct {
		Success bool `json:"success"`
		Outputs struct {
			Count int `json:"count"`
		} `json:"outputs"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	want := len(demoapp.Records("110000"))
	if want > 50 {
		want = 50 // the first page
	}
	if !out.Success || out.Outputs.Count != want {
		t.Errorf("result %.300s: want success and %d rows", b, want)
	}
	mu.Lock()
	np := len(progress)
	mu.Unlock()
	if np == 0 {
		t.Error("no progress reached the agent")
	}

	// A flow added on the desktop: re-register, list_changed, new tool.
	for len(changed) > 0 {
		<-changed
	}
	newFlow := "flow hello \"Say hello\"\n\nparam name: string \"Who\"\n\nreturn { \"greeting\": \"hello \" + name }\n"
	if err := os.WriteFile(filepath.Join(dir, "hello.flow"), []byte(newFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(hangGuard):
		t.Fatal("no list_changed after a flow was added on the desktop")
	}
	await(t, func() bool {
		lt, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return slices.ContainsFunc(lt.Tools, func(tl *mcp.Tool) bool { return tl.Name == "workflow_hello" })
	}, func() string { return "workflow_hello never listed at the gateway" })
	if devs := x.g.Devices(); len(devs) != 1 || !strings.Contains(strings.Join(devs[0].AvailableTools, ","), "workflow_hello") {
		t.Errorf("the register message did not carry the new tool: %+v", devs)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_hello", Arguments: map[string]any{"name": "gateway"}})
	if err != nil || !strings.Contains(text(res), "hello gateway") {
		t.Errorf("workflow_hello: %v %v", res, err)
	}
	for _, l := range []string{x.logs.String(), deskLog.String()} {
		if strings.Contains(l, demoPassword) {
			t.Error("the secret reached a log")
		}
	}
}
