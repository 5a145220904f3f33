package mcpserver

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/mrtr"
)

// TestGoClientGetsToolErrors: the Go SDK's client turns -32003 and -32004
// into "connection closed" and drops the code; a Go client that declares
// the dev.rpa/tool-errors extension gets them as a tool error instead,
// code and message in _meta["dev.rpa/error"], in both protocol eras.
func TestGoClientGetsToolErrors(t *testing.T) {
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true})
	ts := httptest.NewServer(s.HTTPHandler("tok"))
	t.Cleanup(ts.Close)
	connect := func(t *testing.T, version string, ext bool) *mcp.ClientSession {
		var opts *mcp.ClientOptions
		if ext {
			caps := &mcp.ClientCapabilities{}
			caps.AddExtension(mrtr.ToolErrorsExtension, nil)
			opts = &mcp.ClientOptions{Capabilities: caps}
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "go-agent", Version: "1"}, opts)
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: bearerClient("tok")},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	for _, version := range []string{"", "2025-11-25"} {
		t.Run("era "+version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs := connect(t, version, true)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_nope", Arguments: map[string]any{}})
			if err != nil {
				t.Fatalf("with the extension: %v", err)
			}
			e, _ := res.Meta[mrtr.MetaToolError].(map[string]any)
			if !res.IsError || e == nil || e["code"] != float64(CodeUnknownTool) || e["message"] == "" {
				t.Fatalf("with the extension: %+v", res)
			}
			// Without it the JSON-RPC error stays as PROTOCOL.md says, which
			// this client reports as a closed connection.
			_, err = connect(t, version, false).CallTool(ctx, &mcp.CallToolParams{Name: "workflow_nope", Arguments: map[string]any{}})
			if !errors.Is(err, mcp.ErrConnectionClosed) {
				t.Errorf("without the extension: %v", err)
			}
		})
	}
}
