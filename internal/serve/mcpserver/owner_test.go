package mcpserver

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// rawSession opens a raw Streamable HTTP session and returns its id.
func rawSession(t *testing.T, url string) string {
	t.Helper()
	init := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}}
	code, sid, _ := postRPC(t, url, "", "", init)
	if code != 200 || sid == "" {
		t.Fatalf("initialize: %d %q", code, sid)
	}
	postRPC(t, url, "", sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return sid
}

func rawCall(t *testing.T, url, sid, tool string, args map[string]any) map[string]any {
	t.Helper()
	_, _, ans := postRPC(t, url, "", sid, map[string]any{"jsonrpc": "2.0", "id": 7, "method": "tools/call",
		"params": map[string]any{"name": tool, "arguments": args}})
	return ans
}

func rpcErr(ans map[string]any) (float64, string, map[string]any) {
	e, _ := ans["error"].(map[string]any)
	if e == nil {
		return 0, "", nil
	}
	data, _ := e["data"].(map[string]any)
	return e["code"].(float64), e["message"].(string), data
}

// TestProfileBelongsToCaller: a profile a session has used is refused to
// another session (browser_read and flows) unless ShareProfiles; other
// profiles stay free, and the profile is free again once the session ends.
func TestProfileBelongsToCaller(t *testing.T) {
	st := newSite(t)
	for _, share := range []bool{false, true} {
		s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), Pool: newPool(t), ShareProfiles: share})
		hs := httptest.NewServer(s.HTTPHandler(""))
		a, b := rawSession(t, hs.URL), rawSession(t, hs.URL)
		hit := map[string]any{"base_url": st.URL, "p": "h", "n": 3}
		if ans := rawCall(t, hs.URL, a, "workflow_hit", hit); ans["result"] == nil {
			t.Fatalf("share=%v: session A's flow: %v", share, ans)
		}
		readB := rawCall(t, hs.URL, b, "browser_read", map[string]any{"action": "url"})
		flowB := rawCall(t, hs.URL, b, "workflow_hit", hit)
		if share {
			if readB["result"] == nil || flowB["result"] == nil {
				t.Errorf("shared profiles: B was refused: %v %v", readB, flowB)
			}
			hs.Close()
			continue
		}
		for name, ans := range map[string]map[string]any{"browser_read": readB, "workflow_hit": flowB} {
			code, msg, data := rpcErr(ans)
			if code != CodeBrowser || data["kind"] != KindProfileInUse || !strings.Contains(msg, `profile "default" is in use by another MCP session`) {
				t.Errorf("%s from session B on A's profile: %v", name, ans)
			}
		}
		// Another profile is B's to use; A's own calls go on.
		if ans := rawCall(t, hs.URL, b, "workflow_hit", map[string]any{"base_url": st.URL, "p": "h", "n": 3, "profileId": "b"}); ans["result"] == nil {
			t.Errorf("B on its own profile: %v", ans)
		}
		if ans := rawCall(t, hs.URL, a, "browser_read", map[string]any{"action": "url"}); ans["result"] == nil {
			t.Errorf("A reading its own profile: %v", ans)
		}
		// A ends its session: the profile is free.
		deleteSession(t, hs.URL, a)
		waitFor(t, func() bool {
			return rawCall(t, hs.URL, b, "browser_read", map[string]any{"action": "url"})["result"] != nil
		})
		hs.Close()
	}
}

// TestErrorsCarryNoHostDetail: a browser that cannot start gives -32004
// without host paths or the browser's own output.
func TestErrorsCarryNoHostDetail(t *testing.T) {
	home := t.TempDir()
	bin := filepath.Join(home, "fake-chromium")
	os.WriteFile(bin, []byte("#!/bin/sh\necho \"[1201/120000.1:ERROR:process_singleton_posix.cc(358)] Failed to create "+home+"/profiles/default/SingletonLock: File exists (17)\" >&2\nexit 21\n"), 0o755)
	pool, err := profiles.New(profiles.Options{Driver: rod.New(), Idle: -1, Launch: func(id string) (drivers.LaunchOptions, error) {
		d := filepath.Join(home, "profiles", id)
		return drivers.LaunchOptions{UserDataDir: d, Bin: bin}, os.MkdirAll(d, 0o700)
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	s, logs := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), Pool: pool})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	sid := rawSession(t, hs.URL)
	ans := rawCall(t, hs.URL, sid, "workflow_hit", map[string]any{"base_url": "http://127.0.0.1:1", "p": "h", "n": 1})
	code, msg, _ := rpcErr(ans)
	if code != CodeBrowser {
		t.Fatalf("want -32004, got %v", ans)
	}
	for _, bad := range []string{home, "SingletonLock", "process_singleton", "fake-chromium"} {
		if strings.Contains(msg, bad) {
			t.Errorf("the error shows %q: %s", bad, msg)
		}
	}
	if !strings.Contains(msg, `profile "default"`) {
		t.Errorf("the error does not name the profile: %s", msg)
	}
	if !strings.Contains(logs.String(), "SingletonLock") && !strings.Contains(logs.String(), home) {
		t.Logf("log: %s", logs.String())
	}
}

func TestPublicMessage(t *testing.T) {
	for in, want := range map[string]string{
		"browser for profile \"x\" could not be started: fork/exec /root/.rpa/bin/chrome: no such file":   "browser for profile \"x\" could not be started: fork/exec <path>: no such file",
		"could not start: exit status 21\n[ERROR] Failed to create /home/u/.rpa/profiles/x/SingletonLock": "could not start: exit status 21",
		`open "https://example.com/a/b/c" timed out`:                                                      `open "https://example.com/a/b/c" timed out`,
		`C:\Users\me\AppData\rpa\profiles\x is locked`:                                                    `<path> is locked`,
		"plain message": "plain message",
	} {
		if got := publicMessage(in); got != want {
			t.Errorf("publicMessage(%q) = %q, want %q", in, got, want)
		}
	}
}

// deleteSession ends a Streamable HTTP session (HTTP DELETE).
func deleteSession(t *testing.T, url, sid string) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// waitFor polls cond until it holds (a bound that only catches a hang).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
