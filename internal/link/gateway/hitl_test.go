package gateway

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/hitl"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
)

// TestHITLOverLink: a desktop linked to the gateway asks the agent whose
// call caused the question (elicitation relayed by the gateway): the
// captcha-then-SMS flow finishes with the agent answering both; an agent
// without elicitation makes the desktop fall through to its next channel;
// a declined question is declined; a password question never goes to the
// agent (no URL mode over the link) but to the desktop's own channel.
func TestHITLOverLink(t *testing.T) {
	if testing.Short() {
		t.Skip("short: starts Chromium")
	}
	site, dir := verifySite(t)
	pool := chromiumPool(t, t.TempDir())
	var mu sync.Mutex
	var desktopAsked []string
	desktop := hitl.Func{N: hitl.ChannelDesktop, F: func(ctx context.Context, q core.Question) (core.Answer, error) {
		mu.Lock()
		desktopAsked = append(desktopAsked, q.Title)
		mu.Unlock()
		return core.Answer{Status: "answered", Text: "typed-at-desktop"}, nil
	}}
	srv, err := mcpserver.New(mcpserver.Options{FlowsDir: dir, Pool: pool, NoWatch: true, Logger: quietLogger(),
		HITL: &hitl.Config{Order: []string{"client", "desktop"}, Desktop: desktop}, NoURLElicitation: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	x := startGateway(t, "", Options{})
	startDesk(t, x.wsURL(), "pc1", srv.MCP(), func(o *connect.Options) { o.ToolNames = srv.ToolNames })
	x.waitDevices(t, 1)

	captcha := regexp.MustCompile(`they read: (\w+)`)
	var asked []string
	person := func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		mu.Lock()
		asked = append(asked, r.Params.Message)
		mu.Unlock()
		switch m := r.Params.Message; {
		case strings.HasPrefix(m, "Captcha"):
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": captcha.FindStringSubmatch(m)[1]}}, nil
		case strings.HasPrefix(m, "SMS code"):
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "482913"}}, nil
		}
		return &mcp.ElicitResult{Action: "decline"}, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// Both protocol eras: blocking elicitation relayed to a 2025-11-25 agent's session, and
	// input requests of a call that goes on across a 2026-07-28 agent's requests.
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			mu.Lock()
			asked = nil
			mu.Unlock()
			cs := agentAt(t, x.mcpURL(), &mcp.ClientOptions{ElicitationHandler: person}, version)
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_verify", Arguments: map[string]any{"base_url": site}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Fatalf("flow failed: %s", text(res))
			}
			b, _ := json.Marshal(res.StructuredContent.(map[string]any)["outputs"])
			if string(b) != `{"captcha":"X7K2P","sms":"482913","status":"Verified"}` {
				t.Errorf("outputs %s", b)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) != 2 {
				t.Errorf("the agent was asked %q", asked)
			}
		})
	}
	if n := x.g.paused.Len(); n != 0 {
		t.Errorf("%d paused calls left at the gateway", n)
	}

	for _, tc := range []struct {
		name    string
		opts    *mcp.ClientOptions
		args    map[string]any
		want    string
		desktop bool
	}{
		{"declined", &mcp.ClientOptions{ElicitationHandler: person}, map[string]any{"title": "Anything else?"}, `{"status":"declined"}`, false},
		{"agent without elicitation", nil, map[string]any{"title": "Who?"}, `{"answer":"typed-at-desktop","status":"answered"}`, true},
		{"password stays on the desktop", &mcp.ClientOptions{ElicitationHandler: person}, map[string]any{"title": "PIN", "inputType": "password"}, `{"answer":"typed-at-desktop","status":"answered"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			before, beforeAgent := len(desktopAsked), len(asked)
			mu.Unlock()
			a := agent(t, x.mcpURL(), tc.opts)
			res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "hitl_prompt", Arguments: tc.args})
			if err != nil {
				t.Fatal(err)
			}
			if got := text(res); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if (len(desktopAsked) > before) != tc.desktop {
				t.Errorf("desktop asked: %v", desktopAsked[before:])
			}
			if tc.name == "password stays on the desktop" && len(asked) != beforeAgent {
				t.Errorf("a password question reached the agent: %q", asked[beforeAgent:])
			}
		})
	}
}
