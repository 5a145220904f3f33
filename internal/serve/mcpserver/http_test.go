package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
)

// postRPC sends one JSON-RPC message over Streamable HTTP and returns the
// HTTP status, the session id and the JSON answer (read from JSON or from
// the SSE stream).
func postRPC(t *testing.T, url, token, session string, msg map[string]any) (int, string, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(msg)
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, sid, nil
	}
	var answer map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var m map[string]any
				if json.Unmarshal([]byte(data), &m) == nil && m["id"] != nil {
					answer = m
					break
				}
			}
		}
	} else {
		json.NewDecoder(resp.Body).Decode(&answer)
	}
	return resp.StatusCode, sid, answer
}

func TestHTTPTokenAndCodes(t *testing.T) {
	st := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow", "slow.flow"), Pool: newPool(t)})
	hs := httptest.NewServer(s.HTTPHandler("tok-123"))
	t.Cleanup(hs.Close) // after the client sessions (cleanups run last-in first-out)
	init := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}}

	for _, tok := range []string{"", "wrong"} {
		if code, _, _ := postRPC(t, hs.URL, tok, "", init); code != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", tok, code)
		}
	}
	code, sid, ans := postRPC(t, hs.URL, "tok-123", "", init)
	if code != http.StatusOK || sid == "" || ans["result"] == nil {
		t.Fatalf("initialize with token: %d %q %v", code, sid, ans)
	}
	postRPC(t, hs.URL, "tok-123", sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	_, _, ans = postRPC(t, hs.URL, "tok-123", sid, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "workflow_missing", "arguments": map[string]any{}}})
	if e, _ := ans["error"].(map[string]any); e["code"] != float64(CodeUnknownTool) {
		t.Errorf("unknown tool over HTTP: %v", ans)
	}
	_, _, ans = postRPC(t, hs.URL, "tok-123", sid, map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call",
		"params": map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": st.URL, "p": "h"}}})
	if e, _ := ans["error"].(map[string]any); e["code"] != float64(CodeInvalidParams) || !strings.Contains(e["message"].(string), `"n"`) {
		t.Errorf("bad args over HTTP: %v", ans)
	}

	// The SDK's client with the token: list, call, list_changed.
	cs, ev := connectHTTP(t, hs.URL, "tok-123")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_hit", Arguments: map[string]any{"base_url": st.URL, "p": "h", "n": 5}})
	if err != nil || res.IsError {
		t.Fatalf("call over HTTP: %v %v", err, res)
	}
	if m := structured(t, res); m["outputs"] != "5" {
		t.Errorf("outputs = %v", m["outputs"])
	}
	os.WriteFile(filepath.Join(s.opts.FlowsDir, "watched.flow"), []byte(watchFlow), 0o644)
	waitChanged(t, ev)
	lt, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(lt.Tools) != 5 {
		t.Fatalf("tools over HTTP after add: %v %d", err, len(lt.Tools))
	}

	// Progress and cancellation over HTTP: the slow flow stops and its
	// profile serves the next call.
	ctx, cancel := context.WithCancel(context.Background())
	params := &mcp.CallToolParams{Name: "workflow_slow", Arguments: map[string]any{"base_url": st.URL}}
	params.SetProgressToken("h")
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	waitUntil(t, func() bool { return len(ev.progressMessages()) >= 2 })
	cancel()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("cancelled HTTP call did not return")
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	res, err = cs.CallTool(rctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": "url"}})
	if err != nil || !strings.HasSuffix(textOf(t, res), "/table") {
		t.Fatalf("profile after a cancelled HTTP call: %v %v", err, res)
	}
}

func TestHTTPAddr(t *testing.T) {
	for in, want := range map[string]string{
		"": "127.0.0.1:8765", "9000": "127.0.0.1:9000", ":9000": "127.0.0.1:9000",
		"0.0.0.0:9000": "0.0.0.0:9000", "localhost:1": "localhost:1",
	} {
		if got := HTTPAddr(in); got != want {
			t.Errorf("HTTPAddr(%q) = %q, want %q", in, got, want)
		}
	}
	for addr, want := range map[string]bool{"127.0.0.1:1": true, "[::1]:2": true, "localhost:3": true, "0.0.0.0:4": false, "10.0.0.1:5": false} {
		if IsLoopback(addr) != want {
			t.Errorf("IsLoopback(%q) = %v", addr, !want)
		}
	}
}

// TestHITLPrompt answers, declines and times out through an injected
// channel, and checks that a password answer is returned but not logged.
func TestHITLPrompt(t *testing.T) {
	var asked []core.Question
	s, logs := newServer(t, Options{Ask: func(ctx context.Context, q core.Question) (core.Answer, error) {
		asked = append(asked, q)
		switch q.Title {
		case "pin":
			return core.Answer{Status: core.AnswerAnswered, Text: "9911-secret"}, nil
		case "no":
			return core.Answer{Status: core.AnswerDeclined}, nil
		}
		<-ctx.Done()
		return core.Answer{}, ctx.Err()
	}})
	cs, _ := connect(t, s)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"title": "pin", "inputType": "password"}, `{"answer":"9911-secret","status":"answered"}`},
		{map[string]any{"title": "no"}, `{"status":"declined"}`},
		{map[string]any{"title": "wait", "timeout": 1}, `{"status":"timeout"}`},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolHITLPrompt, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		if got := textOf(t, res); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.args, got, tc.want)
		}
	}
	if asked[0].Input != "password" || asked[1].Input != "text" || asked[2].Timeout.Seconds() != 1 {
		t.Errorf("questions: %+v", asked)
	}
	if strings.Contains(logs.String(), "9911-secret") {
		t.Error("a password answer reached the log")
	}
}

// TestHTTPDroppedClientCancelsCall: a client that goes away during a call
// (its POST's connection closes) cancels the flow, and the next call on
// the profile starts at once instead of waiting for the flow's timeout.
func TestHTTPDroppedClientCancelsCall(t *testing.T) {
	st := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "slow.flow"), Pool: newPool(t), Heartbeat: 100 * time.Millisecond})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	_, sid, ans := postRPC(t, hs.URL, "", "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	if sid == "" || ans["result"] == nil {
		t.Fatalf("initialize: %q %v", sid, ans)
	}
	postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	ctx, drop := context.WithCancel(context.Background())
	defer drop()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"name": "workflow_slow", "arguments": map[string]any{"base_url": st.URL}, "_meta": map[string]any{"progressToken": "p"}}})
	req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// Read the stream until the flow is in its long wait, then drop it.
	sc := bufio.NewScanner(resp.Body)
	waiting := false
	for !waiting && sc.Scan() {
		waiting = strings.Contains(sc.Text(), "wait #never (running")
	}
	if !waiting {
		t.Fatalf("the slow flow never reached its wait: %v", sc.Err())
	}
	drop()
	resp.Body.Close()
	start := time.Now()

	// The next call on the same profile, on a new connection.
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second) // the flow waits 60s
	defer rcancel()
	body, _ = json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{
		"name": "browser_read", "arguments": map[string]any{"action": "url"}}})
	req, _ = http.NewRequestWithContext(rctx, "POST", hs.URL, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("the next call on the profile did not answer within 30s of the drop (%v): the dropped call still holds it", err)
	}
	if !strings.Contains(string(got), `/table`) {
		t.Fatalf("browser_read after the drop: %s", got)
	}
	if d := time.Since(start); d > 40*time.Second { // only when the flow's 60s wait held the profile
		t.Errorf("drop to next answer: %v", d)
	}
}

// TestHTTPUnknownMethod: a call of a method the server does not have gets
// JSON-RPC -32601 with its id over HTTP, as over stdio.
func TestHTTPUnknownMethod(t *testing.T) {
	s, _ := newServer(t, Options{})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	_, sid, ans := postRPC(t, hs.URL, "", "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}})
	if sid == "" || ans["result"] == nil {
		t.Fatalf("initialize: %q %v", sid, ans)
	}
	postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	for _, id := range []any{7, "seven"} {
		code, _, ans := postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "id": id, "method": "frobnicate", "params": map[string]any{}})
		e, _ := ans["error"].(map[string]any)
		if code != http.StatusOK || e["code"] != float64(-32601) || !strings.Contains(e["message"].(string), "frobnicate") || fmt.Sprint(ans["id"]) != fmt.Sprint(id) {
			t.Errorf("id %v: HTTP %d %v, want 200 and -32601 with the id", id, code, ans)
		}
	}
	// The same over stdio.
	lines := runStdio(t, s, stdioInit+`{"jsonrpc":"2.0","id":7,"method":"frobnicate","params":{}}`+"\n")
	if l := findID(lines, "7"); l == nil || l.Error == nil || l.Error.Code != -32601 {
		t.Errorf("stdio: %+v", lines)
	}
	// The session still works.
	_, _, ans = postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "id": 8, "method": "tools/list"})
	if ans["result"] == nil {
		t.Errorf("tools/list after the unknown method: %v", ans)
	}
}
