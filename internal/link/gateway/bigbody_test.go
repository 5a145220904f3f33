package gateway

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGatewayBodyTooLarge: a POST to /mcp past the request bound (mcp.DefaultMaxRequestBodyBytes,
// 4 MiB) is HTTP 413 naming the bound, as on rpa serve --http, in a session, before initialize
// and as a 2026-07-28 request; the gateway answered 400 "malformed payload: unmarshaling jsonrpc
// message: unexpected EOF" in a cluster (the wrapper that shares a session's answers between
// replicas read the body cut at the bound and passed the cut bytes on).
func TestGatewayBodyTooLarge(t *testing.T) {
	t.Run("alone", func(t *testing.T) { bodyTooLarge(t, startGateway(t, "", Options{})) })
	t.Run("cluster", func(t *testing.T) { bodyTooLarge(t, startReplicas(t, 2, nil).gws[0]) })
}

func bodyTooLarge(t *testing.T, x *gw) {
	a := newRawAgent(t, x.mcpURL())
	big := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"x","arguments":{"big":"` + strings.Repeat("b", 5<<20) + `"}}}`
	for _, c := range []struct {
		name, session, version string
	}{
		{"in a session", a.session, "2025-11-25"},
		{"without a session", "", "2025-11-25"},
		{"stateless", "", "2026-07-28"},
	} {
		req, _ := http.NewRequest(http.MethodPost, x.mcpURL(), strings.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", c.version)
		if c.version >= "2026-07-28" {
			req.Header.Set("Mcp-Method", "tools/call")
			req.Header.Set("Mcp-Name", "x")
		}
		if c.session != "" {
			req.Header.Set("Mcp-Session-Id", c.session)
		}
		resp, err := a.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "4194304") {
			t.Errorf("%s: HTTP %d %.200q, want 413 naming %d", c.name, resp.StatusCode, b, mcp.DefaultMaxRequestBodyBytes)
		}
	}
	if m := a.call(t, "ping", map[string]any{}); m["error"] != nil {
		t.Errorf("the session after them: %v", m)
	}
}
