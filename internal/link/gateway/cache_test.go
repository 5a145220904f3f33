package gateway

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/serve/mrtr"
	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"
)

// TestCacheScope: at the gateway's /mcp, on 2026-07-28 and on 2025-11-25, every result that
// carries cacheScope says "private" when it depends on the agent (resources/list lists its kept
// answers; a kept answer and a desktop's run, relayed from a desktop that calls it "public", are
// the agent's alone; a resource of the gateway's own unless its handler says otherwise) and
// "public" only when it is the same for every agent (server/discover, tools/list,
// resources/templates/list, a resource whose handler says so). The listing, the kept answer and
// the relayed run said "public" before.
func TestCacheScope(t *testing.T) {
	x := startGateway(t, "", Options{})
	srv := deskServer("d1", nil)
	srv.AddTool(&mcp.Tool{Name: "record", InputSchema: map[string]any{"type": "object"}},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct {
				Run string `json:"run"`
			}
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Run}},
				StructuredContent: map[string]any{"runId": in.Run}}, nil
		})
	// The desktop's run resources, as a desktop of an older version serves them: "public".
	srv.AddResourceTemplate(&mcp.ResourceTemplate{Name: "run", URITemplate: RunURIPrefix + "{id}", MIMEType: "application/json"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{CacheScope: mrtr.CachePublic},
				Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: `{"id":"x"}`}}}, nil
		})
	startDesk(t, x.wsURL(), "d1", srv, nil)
	x.waitDevices(t, 1)
	text := func(uri, scope string) mcp.ResourceHandler {
		return func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Cacheable: mcp.Cacheable{CacheScope: scope},
				Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: "x"}}}, nil
		}
	}
	x.g.AddResource(&mcp.Resource{URI: "rpa://test/shared", Name: "shared"}, text("rpa://test/shared", mrtr.CachePublic))
	x.g.AddResource(&mcp.Resource{URI: "rpa://test/unsaid", Name: "unsaid"}, text("rpa://test/unsaid", ""))
	// An answer kept for an agent that was gone.
	x.g.keepAnswer("d1", "echo", "gw-cache-test", &jsonrpc.Response{Result: []byte(`{"content":[{"type":"text","text":"late"}]}`)})

	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			c := rawmcp.DialHTTP(t, x.mcpURL(), testToken, version)
			run := "run-cache-" + version[:4]
			if m := c.Call("tools/call", map[string]any{"name": "record", "arguments": map[string]any{"run": run}}); m["result"] == nil {
				t.Fatalf("tools/call record: %v", m)
			}
			for _, tc := range []struct {
				method, uri, want string
				only              string // the one protocol version of the method ("": both)
				listed            string // a URI the result must hold
			}{
				{method: "server/discover", want: "public", only: "2026-07-28"},
				{method: "tools/list", want: "public", listed: "record"},
				{method: "resources/templates/list", want: "public"},
				{method: "resources/list", want: "private", listed: RunURI("gw-cache-test")},
				{method: "resources/read", uri: RunURI("gw-cache-test"), want: "private", listed: "late"},
				{method: "resources/read", uri: RunURI(run), want: "private", listed: `{\"id\":\"x\"}`},
				{method: "resources/read", uri: "rpa://test/shared", want: "public"},
				{method: "resources/read", uri: "rpa://test/unsaid", want: "private"},
			} {
				if tc.only != "" && tc.only != version {
					continue
				}
				var params map[string]any
				if tc.uri != "" {
					params = map[string]any{"uri": tc.uri}
				}
				name := strings.TrimSpace(tc.method + " " + tc.uri)
				m := c.Call(tc.method, params)
				res, _ := m["result"].(map[string]any)
				if res == nil {
					t.Errorf("%s: %v", name, m)
					continue
				}
				if got := res["cacheScope"]; got != tc.want {
					t.Errorf("%s: cacheScope %v, want %q", name, got, tc.want)
				}
				if raw, _ := json.Marshal(res); tc.listed != "" && !strings.Contains(string(raw), tc.listed) {
					t.Errorf("%s: %s is not in %s", name, tc.listed, raw)
				}
			}
		})
	}
}
