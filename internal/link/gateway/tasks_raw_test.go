package gateway

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestTasksRaw2025: a 2025-11-25 client that speaks plain Streamable HTTP (as the TypeScript
// SDK does) asks for a task with the tools/call's `task` param and gets the task at once, not
// the tool's result after the run; the agent's new session (same token) reaches it by id at
// once; tasks/cancel ends it.
func TestTasksRaw2025(t *testing.T) {
	srv, site, _ := taskDesk(t)
	x := startGateway(t, "", Options{TaskNode: "gateway-1", TaskRelinkWait: time.Minute})
	linkDesk(t, x, srv)
	x.waitDevices(t, 1)
	hc := &http.Client{Timeout: time.Minute}
	session := ""
	post := func(body string) (string, http.Header) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, x.mcpURL(), bytes.NewBufferString(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s: HTTP %d %s", body, resp.StatusCode, b)
		}
		return string(b), resp.Header
	}
	out, h := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if session = h.Get("Mcp-Session-Id"); session == "" || !strings.Contains(out, `"tasks"`) {
		t.Fatalf("initialize: session %q, %s", session, out)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	start := time.Now()
	out, _ = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"workflow_hold","arguments":{"base_url":"` + site + `","profileId":"raw"},"task":{"ttl":60000}}}`)
	m := regexp.MustCompile(`"taskId":"([^"]+)"`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("tools/call with a task param after %s: no task in %s", time.Since(start), out)
	}
	// The agent comes back on a new session (crashed, no DELETE): by its id it reaches the task
	// at once, while the first session lives; tasks/list does not hand the id out.
	first := session
	session = ""
	_, h = post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if session = h.Get("Mcp-Session-Id"); session == "" || session == first {
		t.Fatalf("second session %q", session)
	}
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if out, _ = post(`{"jsonrpc":"2.0","id":2,"method":"tasks/get","params":{"taskId":"` + m[1] + `"}}`); !strings.Contains(out, `"taskId":"`+m[1]+`"`) {
		t.Errorf("tasks/get from the agent's new session: %s", out)
	}
	if out, _ = post(`{"jsonrpc":"2.0","id":3,"method":"tasks/list","params":{}}`); strings.Contains(out, m[1]) {
		t.Errorf("tasks/list of the new session while the first lives: %s", out)
	}
	session = first
	// Cancelled while its run waits on its step (the desktop's statusMessage "line N: wait",
	// mirrored by the gateway: Options.onChange).
	awaitOn(t, &stateChanges, hangGuard, func() bool {
		out, _ := post(`{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"` + m[1] + `"}}`)
		return strings.Contains(out, `: wait`)
	}, func() string { return "the task never showed its wait step" })
	out, _ = post(`{"jsonrpc":"2.0","id":3,"method":"tasks/cancel","params":{"taskId":"` + m[1] + `"}}`)
	if !strings.Contains(out, `"cancelled"`) {
		t.Errorf("tasks/cancel: %s", out)
	}
	// Its tasks/result is the desktop's cancelled run's result, as on rpa serve (PROTOCOL.md,
	// Tasks); it was -32602 "task ... was cancelled before it had a result".
	if out, _ = post(`{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"` + m[1] + `"}}`); !strings.Contains(out, `"isError":true`) || !strings.Contains(out, `cancelled`) || strings.Contains(out, `"id":4,"error"`) {
		t.Errorf("tasks/result of the cancelled task: %s", out)
	}
}
