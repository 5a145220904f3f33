package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/serve/tasks"
)

// rawSession is a 2025-11-25 agent speaking Streamable HTTP by hand (as the TypeScript SDK does),
// each request sent to the replica the test names, as a load balancer without stickiness would.
type rawSession struct {
	t       *testing.T
	id      string
	hc      *http.Client
	next    int
	answers []string // what it answers to elicitation requests, in turn
}

// post sends one message to addr and reads the answer to request id (none for a notification
// or a response), answering the elicitation requests that come on the way (through addr too).
func (s *rawSession) post(addr string, msg map[string]any) map[string]any {
	s.t.Helper()
	b, _ := json.Marshal(msg)
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	if s.id == "" {
		s.id = resp.Header.Get("Mcp-Session-Id")
	}
	if resp.StatusCode >= 300 {
		var body bytes.Buffer
		_, _ = body.ReadFrom(resp.Body)
		s.t.Fatalf("%s to %s: HTTP %d %s", msg["method"], addr, resp.StatusCode, body.String())
	}
	id, isCall := msg["id"]
	if _, isRequest := msg["method"]; !isCall || !isRequest {
		return nil
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok && !strings.HasPrefix(sc.Text(), "{") {
			continue
		} else if !ok {
			data = sc.Text()
		}
		var m map[string]any
		if json.Unmarshal([]byte(data), &m) != nil {
			continue
		}
		if m["method"] == "elicitation/create" && m["id"] != nil {
			if s.next >= len(s.answers) {
				s.t.Fatalf("an elicitation request too many: %s", data)
			}
			a := s.answers[s.next]
			s.next++
			s.post(addr, map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"action": "accept", "content": map[string]any{"answer": a}}})
			continue
		}
		if m["method"] == nil && fmt.Sprint(m["id"]) == fmt.Sprint(id) {
			return m
		}
	}
	s.t.Fatalf("%s to %s: no answer", msg["method"], addr)
	return nil
}

// call sends request method with params to addr and returns its result (fails on an error).
func (s *rawSession) call(addr, method string, params map[string]any) map[string]any {
	s.t.Helper()
	m := s.post(addr, map[string]any{"jsonrpc": "2.0", "id": fmt.Sprintf("%s-%d", method, time.Now().UnixNano()), "method": method, "params": params})
	res, _ := m["result"].(map[string]any)
	if res == nil {
		s.t.Fatalf("%s to %s: %v", method, addr, m)
	}
	return res
}

// TestClusterTasksOnAdoptedSession: a 2025-11-25 session started on r1 uses tasks/* on the
// replicas that continue it (they answered HTTP 400 "tasks/list unsupported": a session adopted
// from another replica had the SDK's standard methods only): a task created through r2 is read
// (tasks/get) and listed (tasks/list) through r3 and r2, and its result (tasks/result) comes
// through r3 after the desktop's two questions, asked over that request, are answered. The
// session's record keeps naming r1 as where it started, and the version agreed there.
func TestClusterTasksOnAdoptedSession(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	t.Cleanup(func() {
		if t.Failed() {
			for _, x := range rs.gws {
				t.Logf("replica %s:\n%s", x.g.rep.name, x.logs.String())
			}
		}
	})
	srv, _ := taskDeskFake(t)
	urls := rs.urls(0)
	startDesk(t, urls[0], "pc1", srv, func(o *connect.Options) {
		o.Wrap = tasks.LiftTransport
		o.More = urls[1:]
	})
	rs.waitLinked(t, map[string]string{"pc1": "r1"})
	r1, r2, r3 := rs.gws[0].addr, rs.gws[1].addr, rs.gws[2].addr
	s := &rawSession{t: t, hc: &http.Client{Timeout: time.Minute}, answers: []string{"one", "two"}}
	s.call(r1, "initialize", map[string]any{"protocolVersion": "2025-11-25", "clientInfo": map[string]any{"name": "raw", "version": "1"},
		"capabilities": map[string]any{"elicitation": map[string]any{"form": map[string]any{}}}})
	s.post(r1, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	created := s.call(r2, "tools/call", map[string]any{"name": "quiz", "arguments": map[string]any{}, "task": map[string]any{"ttl": 60000}})
	// The session's record, after r2 continued it: still started on r1, with the version r1
	// agreed (it was stored as "": the result tasks wraps was not recognised).
	if e, err := rs.gws[1].g.rep.sessions.bucket(t.Context()).Get(t.Context(), sessionKey(s.id)); err != nil {
		t.Errorf("the session's record: %v", err)
	} else if v := string(e.Value()); !strings.Contains(v, `"protocolVersion":"2025-11-25","replica":"r1"`) {
		t.Errorf("the session's record after r2 continued it: %s", v)
	}
	task, _ := created["task"].(map[string]any)
	id, _ := task["taskId"].(string)
	if id == "" {
		t.Fatalf("tools/call with a task param: %v", created)
	}
	if got := s.call(r3, "tasks/get", map[string]any{"taskId": id}); got["taskId"] != id {
		t.Errorf("tasks/get through r3: %v", got)
	}
	// r3 read the session's record after r2 adopted it: it still names r1 as its start.
	if l := rs.gws[2].logs.String(); !strings.Contains(l, "started_on=r1") {
		t.Errorf("r3 does not say the session started on r1 (r2's adoption rewrote its origin?):\n%s", l)
	}
	for _, addr := range []string{r3, r2} {
		if got := s.call(addr, "tasks/list", map[string]any{}); !strings.Contains(fmt.Sprint(got["tasks"]), id) {
			t.Errorf("tasks/list through %s: %v", addr, got)
		}
	}
	res := s.call(r3, "tasks/result", map[string]any{"taskId": id})
	if got := fmt.Sprint(res["content"]); !strings.Contains(got, "one,two") {
		t.Errorf("tasks/result through r3: %v", res)
	}
	// A method the server does not have is JSON-RPC -32601 on the adopted session too.
	if m := s.post(r2, map[string]any{"jsonrpc": "2.0", "id": 99, "method": "nosuch/method", "params": map[string]any{}}); errCode(m) != -32601 {
		t.Errorf("an unknown method on r2: %v", m)
	}
	// The session ends (DELETE through r1): r1 forgets it (its record of the session's last
	// write was kept for ever).
	req, _ := http.NewRequest(http.MethodDelete, "http://"+r1+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Mcp-Session-Id", s.id)
	if resp, err := s.hc.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	sh := rs.gws[0].g.rep.sessions
	poll(t, func() bool {
		sh.mu.Lock()
		defer sh.mu.Unlock()
		_, kept := sh.touched[s.id]
		return !kept
	}, func() string { return "r1 still remembers the ended session" })
	continued := 0
	for _, x := range rs.gws[1:] {
		continued += strings.Count(x.logs.String(), "continuing an agent session started on another replica")
	}
	if continued != 2 {
		t.Errorf("the session was continued %d times on r2 and r3, want once each", continued)
	}
}
