package mcpserver

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/hitl"
)

// TestElicitOverHTTP: over Streamable HTTP the calling client answers
// through elicitation too (the stateful handler negotiates 2025-11-25:
// blocking elicitation/create on the call's stream).
func TestElicitOverHTTP(t *testing.T) {
	s, _ := newServer(t, Options{HITL: &hitl.Config{Order: []string{"client"}}})
	hs := httptest.NewServer(s.HTTPHandler(""))
	defer hs.Close()
	a := &answerer{mode: "answer"}
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, &mcp.ClientOptions{ElicitationHandler: a.handle})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, tc := range []struct{ title, want string }{
		{"Captcha", `{"answer":"X7K2P","status":"answered"}`},
		{"SMS code", `{"answer":"482913","status":"answered"}`},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolHITLPrompt,
			Arguments: map[string]any{"title": tc.title, "message": "they read: X7K2P"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := textOf(t, res); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.title, got, tc.want)
		}
	}
	if len(a.asked()) != 2 {
		t.Errorf("asked %q", a.asked())
	}
}
