package mcpserver

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// rawSession opens a Streamable HTTP session by hand (initialize,
// initialized), as a client that never opens an event stream nor sends
// DELETE, named client.
func openRawSession(t *testing.T, url, token, client string) string {
	t.Helper()
	code, sid, ans := postRPC(t, url, token, "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": client, "version": "1"}}})
	if code != 200 || sid == "" || ans["result"] == nil {
		t.Fatalf("initialize: %d %q %v", code, sid, ans)
	}
	if code, _, _ := postRPC(t, url, token, sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); code != 202 && code != 200 {
		t.Fatalf("initialized: %d", code)
	}
	return sid
}

// TestIdleHTTPSessionsEnd: a session nobody uses ends after the idle
// time (its ID is then unknown: 404), so sessions of clients gone without
// DELETE do not pile up.
func TestIdleHTTPSessionsEnd(t *testing.T) {
	s, _ := newServer(t, Options{NoWatch: true, SessionIdle: 300 * time.Millisecond})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	sid := openRawSession(t, hs.URL, "", "idle")
	if code, _, _ := postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "ping"}); code != 200 {
		t.Fatalf("ping at once: %d", code)
	}
	// Wait, without a request (which would keep it alive), for the server
	// to end the session.
	live := func() bool {
		for ss := range s.MCP().Sessions() {
			if ss.ID() == sid {
				return true
			}
		}
		return false
	}
	waitUntil(t, func() bool { return !live() }) // the SDK tells nobody when it ends a session
	if code, _, _ := postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "id": 3, "method": "ping"}); code != 404 {
		t.Fatalf("a request of the ended session: %d, want 404", code)
	}
	if s.opts.SessionIdle != 300*time.Millisecond || DefaultSessionIdle != 30*time.Minute {
		t.Fatal("idle times")
	}
}

// TestReconnectedClientKeepsItsProfile: a client that reconnects without
// DELETE (a new session from the same host, token and clientInfo while
// the old one idles) calls on its profile at once; another client is
// still refused it.
func TestReconnectedClientKeepsItsProfile(t *testing.T) {
	site := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Pool: newPool(t)})
	hs := httptest.NewServer(s.HTTPHandler("tok"))
	t.Cleanup(hs.Close)
	call := func(sid string, n int) map[string]any {
		_, _, ans := postRPC(t, hs.URL, "tok", sid, map[string]any{"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
			"params": map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": site.URL, "p": "p1", "n": n, "profileId": "mine"}}})
		return ans
	}
	first := openRawSession(t, hs.URL, "tok", "agent-x")
	if ans := call(first, 1); ans["result"] == nil {
		t.Fatalf("first call: %v", ans)
	}
	again := openRawSession(t, hs.URL, "tok", "agent-x") // the same client, reconnected without DELETE
	if ans := call(again, 2); ans["result"] == nil {
		t.Fatalf("the reconnected client was refused its profile: %v", ans)
	}
	other := openRawSession(t, hs.URL, "tok", "agent-y")
	ans := call(other, 3)
	if e, _ := ans["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "in use by another MCP session") {
		t.Fatalf("another client on the profile: %v", ans)
	}
}

// TestReconnectNeedsToken: without a bearer token two local clients of
// the same name are told apart by their sessions alone: the second is
// refused the first one's profile.
func TestReconnectNeedsToken(t *testing.T) {
	site := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Pool: newPool(t)})
	hs := httptest.NewServer(s.HTTPHandler())
	t.Cleanup(hs.Close)
	call := func(sid string, n int) map[string]any {
		_, _, ans := postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "id": 10 + n, "method": "tools/call",
			"params": map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": site.URL, "p": "p1", "n": n, "profileId": "mine"}}})
		return ans
	}
	first := openRawSession(t, hs.URL, "", "agent-x")
	if ans := call(first, 1); ans["result"] == nil {
		t.Fatalf("first call: %v", ans)
	}
	second := openRawSession(t, hs.URL, "", "agent-x")
	if e, _ := call(second, 2)["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "in use by another MCP session") {
		t.Fatalf("a second tokenless client took the profile: %v", e)
	}
}
