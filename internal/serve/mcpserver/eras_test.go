package mcpserver

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/hitl"
)

// TestHTTPBothEras: over Streamable HTTP the official Go client gets
// 2026-07-28 (no fallback to 2025-11-25) and a flow asking two questions
// completes through input requests; a client that asks for 2025-11-25
// gets a session (Mcp-Session-Id) and blocking elicitation, as before.
func TestHTTPBothEras(t *testing.T) {
	base := verifySite(t)
	s, _ := newServer(t, Options{FlowsDir: verifyFlows(t), NoWatch: true, Pool: newPool(t),
		HITL: &hitl.Config{Order: []string{hitl.ChannelClient}}})
	ts := httptest.NewServer(s.HTTPHandler("tok"))
	t.Cleanup(ts.Close)
	for _, tc := range []struct{ ask, want string }{{"", "2026-07-28"}, {"2025-11-25", "2025-11-25"}} {
		t.Run(tc.want, func(t *testing.T) {
			a := &answerer{mode: "answer"}
			c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: a.handle})
			tr := &mcp.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: bearerClient("tok")}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cs, err := c.Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: tc.ask})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if got := cs.InitializeResult().ProtocolVersion; got != tc.want {
				t.Fatalf("negotiated %s, want %s", got, tc.want)
			}
			if stateless := cs.ID() == ""; stateless != (tc.want == "2026-07-28") {
				t.Errorf("session id %q on %s", cs.ID(), tc.want)
			}
			// A profile of its own: a 2025-11-25 session does not own what a stateless
			// caller used a moment ago.
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": base, ProfileArg: "p" + tc.want[:4]}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("flow failed: %s", textOf(t, res))
			}
			got, _ := json.Marshal(structured(t, res)["outputs"])
			if want := `{"captcha":"X7K2P","sms":"482913","status":"Verified"}`; string(got) != want {
				t.Errorf("outputs %s, want %s", got, want)
			}
			if q := a.asked(); len(q) != 2 || !strings.HasPrefix(q[0], "Captcha") || !strings.HasPrefix(q[1], "SMS code") {
				t.Errorf("questions asked: %q", q)
			}
			// Without the token both eras are refused.
			anon := mcp.NewClient(&mcp.Implementation{Name: "anon", Version: "1"}, nil)
			if _, err := anon.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL}, &mcp.ClientSessionOptions{ProtocolVersion: tc.ask}); err == nil {
				t.Error("a client without the token connected")
			}
		})
	}
}

// bearerClient sends Authorization: Bearer token on every request.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: bearer{token, http.DefaultTransport}}
}
