package mcpserver

import (
	"net/http/httptest"
	"testing"
)

// TestTaskOnProfileInUse pins PROTOCOL.md ("Tasks", States): a task-augmented call on a profile
// another session holds is refused at once, as the plain call (-32004, data.kind
// profile_in_use), and no task is created (tasks/list of the caller is empty). PROTOCOL.md listed
// this as a cause of a failed task.
func TestTaskOnProfileInUse(t *testing.T) {
	site := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), NoWatch: true, Pool: newPool(t)})
	hs := httptest.NewServer(s.HTTPHandler("tok-A", "tok-B"))
	t.Cleanup(hs.Close)
	params := func(n int, task bool) map[string]any {
		p := map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": site.URL, "p": "p1", "n": n, "profileId": "pa"}}
		if task {
			p["task"] = map[string]any{}
		}
		return p
	}
	a := openRawSession(t, hs.URL, "tok-A", "agent-a")
	if _, _, ans := postRPC(t, hs.URL, "tok-A", a, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params(1, false)}); ans["result"] == nil {
		t.Fatalf("A's call: %v", ans)
	}
	b := openRawSession(t, hs.URL, "tok-B", "agent-b")
	_, _, ans := postRPC(t, hs.URL, "tok-B", b, map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": params(2, true)})
	e, _ := ans["error"].(map[string]any)
	if data, _ := e["data"].(map[string]any); e == nil || e["code"] != -32004.0 || data["kind"] != "profile_in_use" {
		t.Fatalf("B's task on A's profile: %v, want -32004 profile_in_use at once", ans)
	}
	_, _, list := postRPC(t, hs.URL, "tok-B", b, map[string]any{"jsonrpc": "2.0", "id": 4, "method": "tasks/list", "params": map[string]any{}})
	if res, _ := list["result"].(map[string]any); res == nil || len(res["tasks"].([]any)) != 0 {
		t.Fatalf("B's tasks after the refusal: %v, want none", list)
	}
}
