package gateway

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// handDesk is a desktop made by hand on a real link: it registers, answers initialize, tools/list
// and ping itself, and hands every tools/call to the test, which answers when (and with what) it
// likes, or sends answers to ids of its own making.
type handDesk struct {
	t     testing.TB
	id    string
	tools []string
	link  *mcpws.Link
	calls chan handCall // tools/call requests, in the order they came
}

// handCall is a tools/call the gateway sent a handDesk.
type handCall struct{ id, tool string }

func dialHand(t testing.TB, wsURL, id string, tools ...string) *handDesk {
	t.Helper()
	h := &handDesk{t: t, id: id, tools: tools, calls: make(chan handCall, 16)}
	h.dial(wsURL)
	return h
}

// dial links (again) to wsURL.
func (h *handDesk) dial(wsURL string) {
	h.t.Helper()
	l, err := mcpws.Dial(context.Background(), wsURL, testToken, mcpws.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { l.Close() })
	h.link = l
	_ = l.WriteJSON(mcpws.Register{Type: mcpws.TypeRegister, DeviceID: h.id, AvailableTools: h.tools})
	go h.serve(l)
}

func (h *handDesk) serve(l *mcpws.Link) {
	for {
		f, err := l.ReadFrame()
		if err != nil {
			return
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(f, &m) != nil || m.ID == nil || m.Method == "" {
			continue // a notification, or an answer
		}
		var result string
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{}},"serverInfo":{"name":"hand","version":"0"}}`
		case "tools/list":
			var ts []string
			for _, n := range h.tools {
				ts = append(ts, `{"name":"`+n+`","inputSchema":{"type":"object"}}`)
			}
			result = `{"tools":[` + strings.Join(ts, ",") + `]}`
		case "tools/call":
			var id string
			_ = json.Unmarshal(m.ID, &id)
			h.calls <- handCall{id: id, tool: m.Params.Name}
			continue
		case "resources/read":
			result = `{"contents":[{"uri":"rpa://runs/x","text":"` + h.id + `'s run"}]}`
		default:
			result = `{}`
		}
		_ = l.WriteFrame([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`))
	}
}

// call waits for the next tools/call the gateway sends.
func (h *handDesk) call() handCall {
	h.t.Helper()
	select {
	case c := <-h.calls:
		return c
	case <-time.After(hangGuard):
		h.t.Fatalf("desktop %s got no call", h.id)
		return handCall{}
	}
}

// answer sends a tool result for request id naming run id runID.
func (h *handDesk) answer(id, runID, text string) {
	h.t.Helper()
	idj, _ := json.Marshal(id)
	res := fmt.Sprintf(`{"content":[{"type":"text","text":%q}],"structuredContent":{"runId":%q}}`, text, runID)
	if err := h.link.WriteFrame([]byte(`{"jsonrpc":"2.0","id":` + string(idj) + `,"result":` + res + `}`)); err != nil {
		h.t.Fatal(err)
	}
}

// TestForgedAndEarlierCallIDs: after a restart of the gateway on the same data folder, answers
// to the calls of the earlier process are kept (their ids verify with the key in the folder);
// answers to ids a desktop made up are not, however many; a run id another desktop's answer
// named first stays that desktop's (the second answer is kept under its call id, its agent
// gets nothing of the first); a gateway with another data folder keeps none of them.
func TestForgedAndEarlierCallIDs(t *testing.T) {
	data := t.TempDir()
	x := startGateway(t, "", Options{DataDir: data})
	a := dialHand(t, x.wsURL(), "A", "ta")
	b := dialHand(t, x.wsURL(), "B", "tb")
	x.waitDevices(t, 2)
	ag := newRawAgent(t, x.mcpURL())
	for _, tool := range []string{"ta", "tb"} {
		body := `{"jsonrpc":"2.0","id":"` + tool + `","method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
		req, _ := http.NewRequest("POST", ag.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		req.Header.Set("Mcp-Session-Id", ag.session)
		go func() { // the gateway's end ends these calls
			if resp, err := ag.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	ca, cb := a.call(), b.call()
	if !strings.HasPrefix(ca.id, "gw-") || strings.Count(ca.id, "-") != 3 {
		t.Fatalf("call id %q, want gw-EPOCH-SEQ-MAC", ca.id)
	}
	x.kill()

	x = startGateway(t, x.addr, Options{DataDir: data})
	a.dial(x.wsURL())
	b.dial(x.wsURL())
	x.waitDevices(t, 2)
	epoch := x.g.epoch
	forged := []string{
		"gw-x-1",             // the old form
		"gw-" + epoch + "-1", // this process's, unsigned
		"gw-" + epoch + "-1-" + strings.Repeat("0", 32),       // a wrong MAC
		"gw-" + epoch + "-1-" + cb.id[len(cb.id)-32:],         // another id's MAC
		strings.TrimSuffix(ca.id, ca.id[len(ca.id)-1:]) + "g", // not hex
	}
	for i := range 300 { // as many as would flush the late store
		forged = append(forged, fmt.Sprintf("gw-%s-%d", epoch, 1000+i))
	}
	for _, id := range forged {
		b.answer(id, "", "forged")
	}
	a.answer(ca.id, "run-X", "A's answer")
	b.answer(cb.id, "run-X", "B's answer") // after the forged ones on the same link
	await(t, func() bool { _, ok := x.g.Late(cb.id); return ok }, func() string { return "B's answer to its earlier call was not kept; log:\n" + x.logs.String() })
	if r, ok := x.g.Late("run-X"); !ok || r.Device != "A" || r.CallID != ca.id {
		t.Errorf(`Late("run-X") = %+v %v, want A's answer`, r, ok)
	}
	if r, _ := x.g.Late(cb.id); r.ID != cb.id || r.Device != "B" {
		t.Errorf("B's answer naming A's run id is kept as %+v, want under its call id", r)
	}
	for _, id := range forged {
		if _, ok := x.g.Late(id); ok {
			t.Errorf("an answer to the made-up id %q was kept", id)
		}
	}
	if n := len(x.g.late.byID); n != 2 {
		t.Errorf("%d late answers kept, want 2", n)
	}
	if !strings.Contains(x.logs.String(), "never issued") {
		t.Error("the dropped answers are not logged")
	}
	// The agent (the token's: the calls were an earlier process's) lists both, A's as run-X.
	lm := newRawAgent(t, x.mcpURL()).call(t, "resources/list", map[string]any{})
	if got := fmt.Sprint(lm["result"]); !strings.Contains(got, RunURI("run-X")) || !strings.Contains(got, RunURI(cb.id)) || strings.Count(got, RunURIPrefix) != 2 {
		t.Errorf("resources/list: %v", lm)
	}

	// A gateway with a key of its own keeps none of the first one's calls' answers.
	x.kill()
	x = startGateway(t, x.addr, Options{DataDir: t.TempDir()})
	b.dial(x.wsURL())
	x.waitDevices(t, 1)
	b.answer(cb.id, "run-Y", "B's answer again")
	b.answer("gw-"+x.g.epoch+"-1-"+strings.Repeat("0", 32), "", "sync") // (dropped as well: in order, after the first)
	await(t, func() bool { return strings.Count(x.logs.String(), "never issued") == 2 }, func() string { return "the answers were not dropped; log:\n" + x.logs.String() })
	if _, ok := x.g.Late(cb.id); ok {
		t.Error("a gateway with another key kept an answer to the first one's call")
	}
}

// TestRunIDStaysItsDesktops: a desktop's answer naming the run id of another desktop's call does
// not make its agent that run's owner: the other agent still reads it, this one does not.
func TestRunIDStaysItsDesktops(t *testing.T) {
	x := startGateway(t, "", Options{})
	a := dialHand(t, x.wsURL(), "A", "ta")
	b := dialHand(t, x.wsURL(), "B", "tb")
	x.waitDevices(t, 2)
	one, two := newRawAgent(t, x.mcpURL()), newRawAgent(t, x.mcpURL())
	done := make(chan map[string]any, 2)
	go func() { done <- one.call(t, "tools/call", map[string]any{"name": "ta", "arguments": map[string]any{}}) }()
	c := a.call()
	a.answer(c.id, "run-A", "A ran it")
	<-done
	go func() { done <- two.call(t, "tools/call", map[string]any{"name": "tb", "arguments": map[string]any{}}) }()
	c = b.call()
	b.answer(c.id, "run-A", "B claims A's run")
	<-done
	uri := RunURI("run-A") + "/record"
	if m := two.call(t, "resources/read", map[string]any{"uri": uri}); m["error"] == nil {
		t.Errorf("the agent of B's call reads A's run: %v", m)
	}
	if m := one.call(t, "resources/read", map[string]any{"uri": uri}); !strings.Contains(fmt.Sprint(m["result"]), "A's run") {
		t.Errorf("the agent of A's call cannot read its run: %v", m)
	}
	if !strings.Contains(x.logs.String(), "another desktop named first") {
		t.Error("the claim is not logged")
	}
}

// TestCallKeysFile: the key is made once and read back; adopting the cluster's key keeps the
// earlier one for verifying (at most maxCallKeys); a file with no key in it is replaced.
func TestCallKeysFile(t *testing.T) {
	dir := t.TempDir()
	k := loadCallKeys(dir, quietLogger())
	id := k.sign("gw-e-1")
	if again := loadCallKeys(dir, quietLogger()); !again.valid(id) || again.sign("gw-e-1") != id {
		t.Fatal("a second load has another key")
	}
	if st, err := os.Stat(filepath.Join(dir, CallKeyFile)); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file: %v %v", st, err)
	}
	for i := range maxCallKeys + 1 {
		k.adopt([]byte(strings.Repeat(fmt.Sprint(i), 32)))
	}
	k2 := loadCallKeys(dir, quietLogger())
	if len(k2.keys) != maxCallKeys || hex.EncodeToString(k2.first()) != hex.EncodeToString([]byte(strings.Repeat(fmt.Sprint(maxCallKeys), 32))) {
		t.Errorf("keys after adopting: %d, first %x", len(k2.keys), k2.first())
	}
	if k2.valid(id) {
		t.Error("the oldest key still verifies past maxCallKeys")
	}
	if !k2.valid(k.sign("gw-e-2")) {
		t.Error("an id signed with the adopted key does not verify after a load")
	}
	for _, bad := range []string{"", "gw-e-1", "gw-e-1-", id + "0", "x" + id[1:], strings.ToUpper(id)} {
		if k.valid(bad) {
			t.Errorf("valid(%q)", bad)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, CallKeyFile), []byte("not a key\n"), 0o600)
	k3 := loadCallKeys(dir, quietLogger())
	if !loadCallKeys(dir, quietLogger()).valid(k3.sign("gw-e-3")) {
		t.Error("a file with no key in it was not replaced")
	}
}

// TestClusterCallKeyShared: the replicas of a cluster sign with one key (the first one's), so
// an answer a desktop brings to another replica verifies there, and each writes it to its data
// folder.
func TestClusterCallKeyShared(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir(), t.TempDir()}
	rs := startReplicas(t, 3, func(i int, o *Options) { o.DataDir = dirs[i] })
	await(t, func() bool {
		for _, x := range rs.gws[1:] {
			if string(x.g.ids.first()) != string(rs.gws[0].g.ids.first()) {
				return false
			}
		}
		return true
	}, func() string { return "the replicas sign with different keys" })
	id, _ := rs.gws[0].g.nextID().Raw().(string)
	for i, x := range rs.gws {
		if !x.g.ids.valid(id) {
			t.Errorf("replica %d does not verify replica 1's id", i+1)
		}
		if k := loadCallKeys(dirs[i], quietLogger()); !k.valid(id) {
			t.Errorf("replica %d's data folder lacks the cluster's key", i+1)
		}
	}
}

// TestClusterEarlyIDsVerify: two replicas with fresh data folders start at once; each signs
// ids with its own folder's key until they agree on one, and those ids verify on the other
// replica too (they verified only on their own before: the agreed key replaced the loser's).
func TestClusterEarlyIDsVerify(t *testing.T) {
	dirs := []string{t.TempDir(), t.TempDir()}
	var early []string // signed with each folder's own key: what a replica signs before agreeing
	for i, dir := range dirs {
		early = append(early, loadCallKeys(dir, quietLogger()).sign(fmt.Sprintf("gw-early%d-1", i)))
	}
	rs := startReplicas(t, 2, func(i int, o *Options) { o.DataDir = dirs[i] })
	await(t, func() bool { return string(rs.gws[0].g.ids.first()) == string(rs.gws[1].g.ids.first()) },
		func() string { return "the replicas sign with different keys" })
	await(t, func() bool {
		for _, x := range rs.gws {
			for _, id := range early {
				if !x.g.ids.valid(id) {
					return false
				}
			}
		}
		return true
	}, func() string {
		var s []string
		for i, x := range rs.gws {
			for j, id := range early {
				s = append(s, fmt.Sprintf("replica %d verifies replica %d's early id: %v", i+1, j+1, x.g.ids.valid(id)))
			}
		}
		return strings.Join(s, "; ")
	})
}
