package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

// A call through the gateway is recorded where the flow runs (the
// desktop of `rpa connect`), as caller link with the device ID, and its
// runId comes back through the gateway.
func TestRunsOverTheLink(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary")
	}
	home := t.TempDir()
	flows := filepath.Join(home, "myflows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "hello.flow"), []byte(helloFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	_, addr := startGatewayProc(t, home, "127.0.0.1:0")
	startProc(t, home, "connect", "ws://"+addr+"/ws", "--device-id", "pc7", "--token", linkToken, "--flows", flows)
	waitDevice(t, addr, "pc7", "workflow_hello")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "t"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerRT{}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_hello", Arguments: map[string]any{"name": "link", "deviceId": "pc7"}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	m, _ := res.StructuredContent.(map[string]any)
	id, _ := m["runId"].(string)
	if runs.ValidID(id) != nil {
		t.Fatalf("runId = %v", m["runId"])
	}
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	r, err := st.Get(id)
	if err != nil || r.Caller.Kind != runs.CallerLink || r.Caller.Device != "pc7" || r.Status != runs.StatusOK {
		t.Fatalf("record: %+v %v", r, err)
	}
}
