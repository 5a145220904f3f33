package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
)

const hitlCall = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"hitl_prompt","arguments":{"title":"t","message":"waits"}}}`

// TestStdioCancelledGetsNoAnswer: after notifications/cancelled the call
// gets no response (MCP: SHOULD NOT), and the session still answers others.
func TestStdioCancelledGetsNoAnswer(t *testing.T) {
	s, _ := newServer(t, Options{}) // its Ask waits until the call is cancelled
	cancel := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"user stopped"}}`
	list := `{"jsonrpc":"2.0","id":6,"method":"tools/list"}`
	lines := runStdio(t, s, stdioInit+hitlCall+"\n"+cancel+"\n"+list+"\n")
	if l := findID(lines, "5"); l != nil {
		t.Errorf("the cancelled call was answered: result %s error %+v", l.Result, l.Error)
	}
	if l := findID(lines, "6"); l == nil || l.Result == nil {
		t.Errorf("no answer to the call after the cancelled one: %+v", lines)
	}
}

// TestHTTPCancelledGetsNoAnswer: over Streamable HTTP the cancelled call's
// event stream ends without its answer.
func TestHTTPCancelledGetsNoAnswer(t *testing.T) {
	asked := make(chan struct{}, 1)
	s, _ := newServer(t, Options{Ask: func(ctx context.Context, q core.Question) (core.Answer, error) {
		asked <- struct{}{}
		<-ctx.Done()
		return core.Answer{}, ctx.Err()
	}})
	hs := httptest.NewServer(s.HTTPHandler(""))
	t.Cleanup(hs.Close)
	init := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}}
	code, sid, _ := postRPC(t, hs.URL, "", "", init)
	if code != 200 || sid == "" {
		t.Fatalf("initialize: %d %q", code, sid)
	}
	postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(hitlCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	req.Header.Set("Mcp-Session-Id", sid)
	seen := make(chan []string, 1)
	go func() {
		var answers []string
		defer func() { seen <- answers }()
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() { // until the server ends the call's stream
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(data, `"id":5`) {
				answers = append(answers, data)
			}
		}
	}()
	<-asked // the call is running: cancel it
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": 5}})
	creq, _ := http.NewRequest("POST", hs.URL, bytes.NewReader(body))
	creq.Header.Set("Content-Type", "application/json")
	creq.Header.Set("Accept", "application/json, text/event-stream")
	creq.Header.Set("MCP-Protocol-Version", "2025-06-18")
	creq.Header.Set("Mcp-Session-Id", sid)
	cresp, err := http.DefaultClient.Do(creq)
	if err != nil {
		t.Fatal(err)
	}
	cresp.Body.Close()
	if answers := <-seen; len(answers) > 0 {
		t.Errorf("the cancelled call was answered: %s", answers)
	}
	// The session goes on.
	_, _, ans := postRPC(t, hs.URL, "", sid, map[string]any{"jsonrpc": "2.0", "id": 6, "method": "tools/list"})
	if ans["result"] == nil {
		t.Errorf("tools/list after the cancel: %v", ans)
	}
}
