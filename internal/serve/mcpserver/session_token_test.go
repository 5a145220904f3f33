package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSessionBelongsToItsToken: a Streamable HTTP session answers only the
// bearer token that opened it. Another token naming it (a leaked
// Mcp-Session-Id) gets exactly the answer of a session that does not
// exist, 404 "session not found", for a call on the owner's profile, a
// ping, a cancel, its event stream and DELETE; the owner's session goes
// on. Before, the other token called in the session as its owner.
func TestSessionBelongsToItsToken(t *testing.T) {
	site := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Pool: newPool(t)})
	hs := httptest.NewServer(s.HTTPHandler("tok-A", "tok-B"))
	t.Cleanup(hs.Close)
	call := func(token, sid string, n int) (int, map[string]any) {
		code, _, ans := postRPC(t, hs.URL, token, sid, map[string]any{"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
			"params": map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": site.URL, "p": "p1", "n": n, "profileId": "pa"}}})
		return code, ans
	}
	a := openRawSession(t, hs.URL, "tok-A", "agent-a")
	if code, ans := call("tok-A", a, 1); code != 200 || ans["result"] == nil {
		t.Fatalf("A's call: %d %v", code, ans)
	}

	raw := func(method, token, sid string, body string) (int, string) {
		t.Helper()
		var rd io.Reader
		if body != "" {
			rd = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, hs.URL, rd)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if method == http.MethodGet {
			req.Header.Set("Accept", "text/event-stream")
		}
		req.Header.Set("MCP-Protocol-Version", "2025-06-18")
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode == http.StatusOK && method == http.MethodGet {
			return resp.StatusCode, "" // an event stream: do not wait for it
		}
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	_, unknown := raw(http.MethodPost, "tok-B", "no-such-session", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)

	if code, ans := call("tok-B", a, 2); code != http.StatusNotFound {
		t.Errorf("B's call in A's session on A's profile: %d %v, want 404", code, ans)
	}
	for _, c := range []struct{ method, body string }{
		{http.MethodPost, `{"jsonrpc":"2.0","id":3,"method":"ping"}`},
		{http.MethodPost, `{"jsonrpc":"2.0","id":4,"method":"no/such/method"}`},
		{http.MethodPost, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":11}}`},
		{http.MethodGet, ""},
		{http.MethodDelete, ""},
	} {
		if code, body := raw(c.method, "tok-B", a, c.body); code != http.StatusNotFound || body != unknown {
			t.Errorf("B: %s %s in A's session: %d %q, want 404 %q (as an unknown session)", c.method, c.body, code, body, unknown)
		}
	}
	if code, ans := call("tok-A", a, 5); code != 200 || ans["result"] == nil {
		t.Fatalf("A's session after B's tries: %d %v", code, ans)
	}
	// B in a session of its own is refused A's profile, as before.
	b := openRawSession(t, hs.URL, "tok-B", "agent-b")
	if _, ans := call("tok-B", b, 6); ans["error"] == nil {
		t.Fatalf("B in its own session on A's profile: %v", ans)
	}
}
