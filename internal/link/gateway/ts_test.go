package gateway

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTypeScriptAgent drives e2e/ts/gateway.mjs (the official TypeScript MCP client) against a
// gateway with two desktops: listing with the deviceId enum, routing, elicitation relayed to the
// agent, progress, and the error codes as a TypeScript client sees them.
func TestTypeScriptAgent(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not installed")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "..", "..", "e2e", "ts"))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("e2e/ts/node_modules missing (npm ci in e2e/ts)")
	}
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "d1", deskServer("d1", nil), nil)
	startDesk(t, x.wsURL(), "d2", deskServer("d2", nil, "only_d2"), nil)
	x.waitDevices(t, 2)

	calls := []map[string]any{
		{"name": "echo", "arguments": map[string]any{"msg": "hi", "deviceId": "d2"}},
		{"name": "only_d2", "arguments": map[string]any{}},
		{"name": "ask", "arguments": map[string]any{"msg": "who?", "deviceId": "d1"}},
		{"name": "slow", "arguments": map[string]any{"key": "ts", "ms": 40, "deviceId": "d1"}},
		{"name": "nope", "arguments": map[string]any{}},
		{"name": "echo", "arguments": map[string]any{"msg": "hi"}},
	}
	cj, _ := json.Marshal(calls)
	cmd := exec.Command(node, "gateway.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GATEWAY_URL="+x.mcpURL(), "GATEWAY_TOKEN="+testToken, "CALLS="+string(cj))
	outb, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("node gateway.mjs: %v\n%s", err, stderr)
	}
	var out struct {
		Tools []struct {
			Name         string   `json:"name"`
			DeviceIDEnum []string `json:"deviceIdEnum"`
		} `json:"tools"`
		Calls []struct {
			Name     string   `json:"name"`
			Text     string   `json:"text"`
			IsError  bool     `json:"isError"`
			Progress []string `json:"progress"`
			Error    *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		} `json:"calls"`
	}
	if err := json.Unmarshal(outb, &out); err != nil {
		t.Fatalf("bad output %q: %v", outb, err)
	}
	enums := map[string]string{}
	for _, tl := range out.Tools {
		enums[tl.Name] = strings.Join(tl.DeviceIDEnum, ",")
	}
	if enums["echo"] != "d1,d2" || enums["only_d2"] != "" {
		t.Errorf("tools: %+v", out.Tools)
	}
	if len(out.Calls) != len(calls) {
		t.Fatalf("calls: %+v", out.Calls)
	}
	c := out.Calls
	if c[0].Text != "d2: hi" || c[1].Text != "d2 ran only_d2" {
		t.Errorf("routing: %+v %+v", c[0], c[1])
	}
	if c[2].Text != "d1 got ts-agent" {
		t.Errorf("elicitation relayed to the TypeScript agent: %+v", c[2])
	}
	if c[3].Text != "d1 done ts" || strings.Join(c[3].Progress, ",") != "1/4,2/4,3/4,4/4" {
		t.Errorf("progress: %+v", c[3])
	}
	if c[4].Error == nil || c[4].Error.Code != -32003 {
		t.Errorf("unknown tool: %+v, want -32003", c[4])
	}
	if c[5].Error == nil || c[5].Error.Code != -32602 || !strings.Contains(c[5].Error.Message, "deviceId") {
		t.Errorf("missing deviceId: %+v, want -32602 naming deviceId", c[5])
	}
}
