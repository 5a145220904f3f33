package mcpserver

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/host/hitl"
)

// rawMRTR is a 2026-07-28 client that handles input requests itself (the
// SDK's automatic retry turned off), to see the paused-call protocol.
func rawMRTR(t *testing.T, s *Server) *mcp.ClientSession {
	return connectVersion(t, s, "2026-07-28", &mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the SDK answered an input request by itself")
			return nil, nil
		}})
}

func pausedCount(s *Server) int {
	return s.paused.Len()
}

// TestPausedCalls: a question becomes the call's input request with a
// requestState; the next call with the answer resumes it; a paused call
// nobody resumes is dropped after the TTL; past the limit a question goes
// to the next channel; an unknown requestState is refused.
func TestPausedCalls(t *testing.T) {
	desktop := hitl.Func{N: hitl.ChannelDesktop, F: func(ctx context.Context, q core.Question) (core.Answer, error) {
		return core.Answer{Status: core.AnswerAnswered, Text: "from-desktop"}, nil
	}}
	s, _ := newServer(t, Options{HITL: &hitl.Config{Order: []string{"client", "desktop"}, Desktop: desktop}})
	s.paused.TTL, s.paused.Max = 300*time.Millisecond, 1
	cs := rawMRTR(t, s)
	ctx := context.Background()
	ask := &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: map[string]any{"title": "Captcha", "timeout": 30}}

	first, err := cs.CallTool(ctx, ask)
	if err != nil {
		t.Fatal(err)
	}
	if len(first.InputRequests) != 1 || first.RequestState == "" || len(first.Content) != 0 {
		t.Fatalf("first call: %+v", first)
	}
	var key string
	for k, ir := range first.InputRequests {
		key = k
		if p, ok := ir.(*mcp.ElicitParams); !ok || !strings.HasPrefix(p.Message, "Captcha") {
			t.Fatalf("input request %T %+v", ir, ir)
		}
	}
	if pausedCount(s) != 1 {
		t.Fatalf("%d paused", pausedCount(s))
	}
	// The limit is reached: another question goes to the next channel.
	other, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: map[string]any{"title": "Other"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, other); got != `{"answer":"from-desktop","status":"answered"}` {
		t.Errorf("past the limit: %s", got)
	}
	// Resume with the answer.
	done, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: ask.Arguments, RequestState: first.RequestState,
		InputResponses: mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "X7K2P"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, done); got != `{"answer":"X7K2P","status":"answered"}` {
		t.Errorf("resumed: %s", got)
	}
	if pausedCount(s) != 0 {
		t.Errorf("%d paused after the end", pausedCount(s))
	}
	// A paused call nobody resumes expires.
	again, err := cs.CallTool(ctx, ask)
	if err != nil || again.RequestState == "" {
		t.Fatalf("%+v %v", again, err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for pausedCount(s) != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the paused call was not dropped after its TTL")
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: ask.Arguments, RequestState: again.RequestState,
		InputResponses: mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "late"}}}})
	if err == nil || !strings.Contains(err.Error(), "no paused call") {
		t.Errorf("expired requestState: %v", err)
	}
}

// TestPausedCallOnlyItsCaller: a requestState reaches only the caller that
// started the paused call. Over Streamable HTTP with a token each, agent B
// resuming agent A's paused hitl_prompt with its own answer gets exactly
// what an unknown requestState gets (no existence oracle) and never A's
// result; A then resumes it and gets its own answer.
func TestPausedCallOnlyItsCaller(t *testing.T) {
	s, _ := newServer(t, Options{HITL: &hitl.Config{Order: []string{"client"}}})
	hs := httptest.NewServer(s.HTTPHandler("token-of-a", "token-of-b"))
	t.Cleanup(hs.Close)
	dial := func(token string) *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, &mcp.ClientOptions{
			MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
			ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				t.Error("the SDK answered an input request by itself")
				return nil, nil
			}})
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL,
			HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		if cs.ID() != "" {
			t.Fatalf("session %q: want stateless 2026-07-28 requests", cs.ID())
		}
		return cs
	}
	a, b := dial("token-of-a"), dial("token-of-b")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := map[string]any{"title": "Code please", "timeout": 30}
	first, err := a.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: args})
	if err != nil || first.RequestState == "" || len(first.InputRequests) != 1 {
		t.Fatalf("A's call: %+v %v", first, err)
	}
	var key string
	for k := range first.InputRequests {
		key = k
	}
	answer := func(text string) mcp.InputResponseMap {
		return mcp.InputResponseMap{key: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": text}}}
	}
	_, unknown := b.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: args,
		RequestState: "rpa-00000000000000000000000000000000", InputResponses: answer("evil")})
	stolen, err := b.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: args,
		RequestState: first.RequestState, InputResponses: answer("evil")})
	if err == nil {
		t.Fatalf("B resumed A's paused call: %+v", stolen)
	}
	if unknown == nil || err.Error() != unknown.Error() {
		t.Errorf("B's answer for A's requestState %q differs from an unknown one's %q", err, unknown)
	}
	if pausedCount(s) != 1 {
		t.Errorf("%d paused after B's try, want A's call still paused", pausedCount(s))
	}
	done, err := a.CallTool(ctx, &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: args,
		RequestState: first.RequestState, InputResponses: answer("X7K2P")})
	if err != nil {
		t.Fatal(err)
	}
	if got := textOf(t, done); got != `{"answer":"X7K2P","status":"answered"}` {
		t.Errorf("A resumed: %s", got)
	}
}
