package mcpws_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

func TestControl(t *testing.T) {
	for _, tc := range []struct {
		frame string
		typ   string
		ok    bool
	}{
		{`{"type":"register","deviceId":"a"}`, "register", true},
		{`{"type":"register","jsonrpc":"2.0"}`, "", false},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, "", false},
		{`{"type":7}`, "", false},
		{`not json`, "", false},
		{`["type"]`, "", false},
	} {
		typ, ok := mcpws.Control([]byte(tc.frame))
		if typ != tc.typ || ok != tc.ok {
			t.Errorf("Control(%s) = %q, %v; want %q, %v", tc.frame, typ, ok, tc.typ, tc.ok)
		}
	}
}

type in struct {
	Msg string `json:"msg"`
}

// pair returns a link to a test server that runs a go-sdk server on its end; controls receives the
// control frames it sees.
func pair(t *testing.T, serverOpts mcpws.Options) (*mcpws.Link, chan string) {
	t.Helper()
	controls := make(chan string, 8)
	srv := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "t"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(_ context.Context, _ *mcp.CallToolRequest, a in) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo " + a.Msg}}}, nil, nil
	})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l, err := mcpws.Upgrade(w, r, serverOpts)
		if err != nil {
			return
		}
		ss, err := srv.Connect(context.Background(), &Transport{Link: l, OnControl: func(typ string, _ []byte) { controls <- typ }}, nil)
		if err != nil {
			return
		}
		_ = ss.Wait()
	}))
	t.Cleanup(hs.Close)
	l, err := mcpws.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), "", mcpws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l, controls
}

// TestTransport runs a go-sdk client and server over a link: calls work, control frames are
// split off, and a garbage frame gets a -32700 answer without ending the session.
func TestTransport(t *testing.T) {
	l, controls := pair(t, mcpws.Options{})
	if err := l.WriteJSON(mcpws.Register{Type: "register", DeviceID: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := l.WriteFrame([]byte("garbage")); err != nil {
		t.Fatal(err)
	}
	f, err := l.ReadFrame()
	if err != nil || !strings.Contains(string(f), "-32700") {
		t.Fatalf("garbage: %s %v", f, err)
	}
	select {
	case typ := <-controls:
		if typ != "register" {
			t.Errorf("control %q", typ)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("control frame not seen")
	}
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "t"}, nil).Connect(ctx, &Transport{Link: l}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "over ws"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "echo over ws" {
		t.Errorf("echo = %q", got)
	}
}

func TestFrameCap(t *testing.T) {
	l, _ := pair(t, mcpws.Options{MaxFrame: 512})
	_ = l.WriteFrame([]byte(`{"type":"big","pad":"` + strings.Repeat("x", 2048) + `"}`))
	_, err := l.ReadFrame()
	if err == nil {
		t.Fatal("the link survived an oversized frame")
	}
	if !strings.Contains(err.Error(), "1009") && !errors.Is(err, mcpws.ErrClosed) {
		t.Logf("peer saw: %v", err)
	}
}

func TestDialErrors(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer hs.Close()
	_, err := mcpws.Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http")+"?token=abc", "secret", mcpws.Options{})
	if err == nil || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "abc") || strings.Contains(err.Error(), "secret") {
		t.Errorf("Dial = %v, want a 401 without the query or the token", err)
	}
}
