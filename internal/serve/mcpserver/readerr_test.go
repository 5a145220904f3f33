package mcpserver

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestBrowserReadErrorCodes: browser_read on a selector that is not valid
// CSS, on one that matches nothing, or asking a table of something that is
// not a table, is -32001 (a built-in failed); -32004 is kept for a browser
// that could not be started or reached.
func TestBrowserReadErrorCodes(t *testing.T) {
	st := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), Pool: newPool(t)})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	sid := rawSession(t, hs.URL)
	if ans := rawCall(t, hs.URL, sid, "workflow_hit", map[string]any{"base_url": st.URL, "p": "h", "n": 1}); ans["result"] == nil {
		t.Fatalf("flow: %v", ans)
	}
	for _, c := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"bad selector", map[string]any{"action": "text", "selector": "##not[valid"}, "selector"},
		{"no match", map[string]any{"action": "text", "selector": "#nothing-here"}, "#nothing-here"},
		{"not a table", map[string]any{"action": "table", "selector": "#n"}, "table"},
	} {
		ans := rawCall(t, hs.URL, sid, "browser_read", c.args)
		code, msg, _ := rpcErr(ans)
		if code != CodeBuiltinFailed || !strings.Contains(msg, c.want) {
			t.Errorf("%s: code %v %q, want -32001 naming %q (%v)", c.name, code, msg, c.want, ans)
		}
	}
	// The profile still works.
	if ans := rawCall(t, hs.URL, sid, "browser_read", map[string]any{"action": "url"}); ans["result"] == nil {
		t.Errorf("browser_read after the errors: %v", ans)
	}
}
