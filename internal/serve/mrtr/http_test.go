package mrtr

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// post sends one JSON-RPC message to the handler at url and returns the
// HTTP status, the Mcp-Session-Id header and the JSON-RPC answer (the
// data of an SSE event, or the body).
func post(t *testing.T, url, session, version, body string) (int, string, map[string]any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // only a hang
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	if version >= Protocol { // the per-request protocol names the method in a header too
		var m struct{ Method string }
		_ = json.Unmarshal([]byte(body), &m)
		req.Header.Set("Mcp-Method", m.Method)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if i := bytes.Index(b, []byte("data: ")); i >= 0 {
		b, _, _ = bytes.Cut(b[i+len("data: "):], []byte("\n"))
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), m
}

// TestBeforeInitialize: over Streamable HTTP a request that needs a
// session sent before initialize (no Mcp-Session-Id) is HTTP 400 with
// JSON-RPC -32600 (the SDK answered code 0 and kept a session for it), as
// over stdio, and so is a batch (id null); a long method name is not
// echoed; initialize, ping and a 2026-07-28 request go on as before.
func TestBeforeInitialize(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "one", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	hs := httptest.NewServer(StreamableHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	defer hs.Close()

	for _, body := range []string{
		`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"one","arguments":{}}}`,
	} {
		status, session, m := post(t, hs.URL, "", "", body)
		e, _ := m["error"].(map[string]any)
		if status != http.StatusBadRequest || session != "" || e == nil || e["code"] != float64(-32600) ||
			!strings.Contains(e["message"].(string), "invalid during session initialization") {
			t.Errorf("%s before initialize: HTTP %d, session %q, %v", body, status, session, m)
		}
	}
	for _, body := range []string{
		`[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]`,
		` [{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}]`,
	} {
		status, session, m := post(t, hs.URL, "", "", body)
		e, _ := m["error"].(map[string]any)
		if status != http.StatusBadRequest || session != "" || e == nil || e["code"] != float64(-32600) || m["id"] != nil ||
			!strings.Contains(e["message"].(string), "batch") {
			t.Errorf("batch %s before initialize: HTTP %d, session %q, %v", body, status, session, m)
		}
	}
	long := strings.Repeat("m", 5000)
	if status, _, m := post(t, hs.URL, "", "", `{"jsonrpc":"2.0","id":7,"method":"`+long+`"}`); status != http.StatusBadRequest || strings.Contains(fmt.Sprint(m), long) ||
		!strings.Contains(fmt.Sprint(m), "too long to show (5000 bytes)") {
		t.Errorf("a 5000-byte method before initialize: HTTP %d, %.300v", status, m)
	}
	if status, _, m := post(t, hs.URL, "", "", `{"jsonrpc":"2.0","id":4,"method":"ping"}`); status != http.StatusOK || m["result"] == nil {
		t.Errorf("ping before initialize: HTTP %d %v", status, m)
	}
	status, session, m := post(t, hs.URL, "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if status != http.StatusOK || session == "" || m["result"] == nil {
		t.Fatalf("initialize: HTTP %d, session %q, %v", status, session, m)
	}
	post(t, hs.URL, session, "2025-11-25", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if status, _, m := post(t, hs.URL, session, "2025-11-25", `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`); status != http.StatusOK || m["result"] == nil {
		t.Errorf("tools/list in the session: HTTP %d %v", status, m)
	}
	if status, _, m := post(t, hs.URL, "", Protocol, `{"jsonrpc":"2.0","id":6,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"`+Protocol+`","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"}}}}`); status != http.StatusOK || m["result"] == nil {
		t.Errorf("2026-07-28 server/discover: HTTP %d %v", status, m)
	}
}
