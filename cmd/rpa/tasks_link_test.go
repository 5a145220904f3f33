package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

const napFlow = "flow nap \"Take a while, then answer\"\n\nsleep 8s\nreturn { \"slept\": true }\n"

// TestGatewayKilledMidTask: kill -9 of `rpa gateway` while a desktop (`rpa connect`) runs an
// agent's task; a new gateway process on the same home and address takes the task over when the
// desktop links to it, and the agent (a new session, the same token) gets the desktop's answer.
func TestGatewayKilledMidTask(t *testing.T) {
	if testing.Short() {
		t.Skip("short: builds the binary, starts Chromium")
	}
	gwHome, deskHome := t.TempDir(), t.TempDir()
	flows := filepath.Join(deskHome, "flows")
	if err := os.MkdirAll(flows, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(flows, "nap.flow"), []byte(napFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	gw, addr := startGatewayProc(t, gwHome, "127.0.0.1:0")
	startProc(t, deskHome, "connect", "ws://"+addr+"/ws", "--device-id", "pc1", "--token", linkToken, "--flows", flows)
	waitDevice(t, addr, "pc1", "workflow_nap")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	agent := func() (*tasks.Client, *mcp.ClientSession) {
		tc := &tasks.Client{}
		cs, err := tc.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, nil).Connect(ctx,
			tc.Transport(&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerRT{}}}), nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return tc, cs
	}
	tc, cs := agent()
	task, _, err := tc.Call(ctx, cs, &mcp.CallToolParams{Name: "workflow_nap", Arguments: map[string]any{}})
	if err != nil || task == nil {
		t.Fatalf("a task through the gateway: %v %v", task, err)
	}
	var g *tasks.TaskV2
	waitFor(t, "the desktop's run to reach the sleep", func() bool {
		var err error
		g, err = tc.Get(ctx, cs, task.TaskID)
		return err == nil && strings.Contains(g.StatusMessage, "sleep")
	}, func() string { return fmt.Sprintf("%v\n%s", g, gw.log()) })
	gw.signal(syscall.SIGKILL)
	gw.waitExit(t, 5*time.Second)

	gw2, _ := startGatewayProc(t, gwHome, addr)
	waitDevice(t, addr, "pc1", "workflow_nap")
	tc2, cs2 := agent()
	done, err := tc2.Wait(ctx, cs2, task.TaskID, nil)
	if err != nil {
		t.Fatalf("after the gateway restarted: %v\n%s", err, gw2.log())
	}
	res, err := done.CallResult()
	if err != nil || done.Status != "completed" || res.IsError || !strings.Contains(string(done.Result), `"slept":true`) {
		t.Errorf("the task after the restart: %s %s %v", done.Status, done.StatusMessage, err)
	}
	if !strings.Contains(gw2.log(), "task taken over") {
		t.Errorf("the new gateway did not say it took the task over:\n%s", gw2.log())
	}
}
