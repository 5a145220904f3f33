package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/serve/mrtr"
)

// dropProxy is a TCP proxy in front of the gateway that can cut every connection through it at
// once (a link drop as a flaky network makes it) and refuse new ones for a while.
type dropProxy struct {
	ln     net.Listener
	target string

	mu     sync.Mutex
	conns  []net.Conn
	refuse bool
}

func newDropProxy(t *testing.T, target string) *dropProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &dropProxy{ln: ln, target: target}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.cut()
	})
	return p
}

func (p *dropProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refuse := p.refuse
		p.mu.Unlock()
		if refuse {
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); up.Close(); c.Close() }()
		go func() { _, _ = io.Copy(c, up); up.Close(); c.Close() }()
	}
}

// cut closes every connection through the proxy.
func (p *dropProxy) cut() {
	p.mu.Lock()
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}

func (p *dropProxy) setRefuse(v bool) {
	p.mu.Lock()
	p.refuse = v
	p.mu.Unlock()
}

func (p *dropProxy) wsURL() string { return "ws://" + p.ln.Addr().String() + "/ws" }

func resultText(m map[string]any) string {
	r, _ := m["result"].(map[string]any)
	if r == nil {
		return ""
	}
	var b strings.Builder
	cs, _ := r["content"].([]any)
	for _, c := range cs {
		if c, ok := c.(map[string]any); ok {
			b.WriteString(c["text"].(string))
		}
	}
	return b.String()
}

// TestLinkDropMidCallAnswered: a call whose desktop link drops (a real TCP cut between the
// desktop and the gateway) while the desktop runs it is answered once the desktop links again:
// the gateway asks for the same request id on the new link, the desktop ran it once and sends
// the answer. Before, the agent got -32004 "disconnected during the call" although the desktop
// finished the call.
func TestLinkDropMidCallAnswered(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{})
	px := newDropProxy(t, x.addr)
	startDesk(t, px.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	raw := newRawAgent(t, x.mcpURL())
	got := make(chan map[string]any, 1)
	go func() {
		got <- raw.call(t, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"key": "k", "ms": 1500}})
	}()
	await(t, func() bool { return r.get("k") == 1 }, func() string { return "never: the desktop runs the call" })
	px.cut()
	m := <-got
	if resultText(m) != "d1 done k" {
		t.Fatalf("the call cut by the link drop got %v, want the desktop's answer", m)
	}
	if r.get("k") != 1 || r.get("k/done") != 1 {
		t.Errorf("the desktop ran the call %d times (%d done), want once", r.get("k"), r.get("k/done"))
	}
}

// TestCallWaitsForRelinkingDesktop: a call made while the desktop offering its tool is
// relinking waits for it (--relink-wait) instead of failing at once with -32003.
func TestCallWaitsForRelinkingDesktop(t *testing.T) {
	x := startGateway(t, "", Options{})
	px := newDropProxy(t, x.addr)
	startDesk(t, px.wsURL(), "d1", deskServer("d1", nil), nil)
	x.waitDevices(t, 1)
	raw := newRawAgent(t, x.mcpURL())
	px.setRefuse(true)
	px.cut()
	x.waitDevices(t, 0)
	got := make(chan map[string]any, 1)
	go func() {
		got <- raw.call(t, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"msg": "hi"}})
	}()
	select {
	case m := <-got:
		t.Fatalf("a call while the desktop relinks answered at once: %v", m)
	case <-time.After(300 * time.Millisecond): // the call is waiting (it would have failed at once)
	}
	px.setRefuse(false)
	if m := <-got; resultText(m) != "d1: hi" {
		t.Fatalf("the call made while the desktop relinked got %v, want its answer", m)
	}
	// A tool nobody offered is still -32003 at once.
	if m := raw.call(t, "tools/call", map[string]any{"name": "nope", "arguments": map[string]any{}}); errCode(m) != CodeNoSuchTool {
		t.Errorf("an unknown tool: %v", m)
	}
}

// TestLinkDropAnswerKeptForCaller: when the desktop does not link again within the relink wait,
// the call gets -32004 whose data names the call and the resource its answer will be kept
// under; once the desktop is back, its caller reads the answer there.
func TestLinkDropAnswerKeptForCaller(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{RelinkWait: 200 * time.Millisecond})
	px := newDropProxy(t, x.addr)
	startDesk(t, px.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	raw := newRawAgent(t, x.mcpURL())
	got := make(chan map[string]any, 1)
	go func() {
		got <- raw.call(t, "tools/call", map[string]any{"name": "slow", "arguments": map[string]any{"key": "k", "ms": 1000}})
	}()
	await(t, func() bool { return r.get("k") == 1 }, func() string { return "never: the desktop runs the call" })
	px.setRefuse(true)
	px.cut()
	m := <-got
	e, _ := m["error"].(map[string]any)
	data, _ := e["data"].(map[string]any)
	uri, _ := data["resource"].(string)
	if errCode(m) != CodeUnreachable || data["kind"] != KindDisconnected || !strings.HasPrefix(uri, RunURIPrefix+"gw-") ||
		!strings.Contains(e["message"].(string), `desktop "d1" disconnected during the call`) || !strings.Contains(e["message"].(string), uri) {
		t.Fatalf("got %v, want -32004 naming the resource of the answer", m)
	}
	await(t, func() bool { return r.get("k/done") == 1 }, func() string { return "never: the desktop finishes the call" })
	px.setRefuse(false)
	x.waitDevices(t, 1)
	var read map[string]any
	await(t, func() bool {
		read = raw.call(t, "resources/read", map[string]any{"uri": uri})
		return read["result"] != nil
	}, func() string { return "the kept answer never became readable by its caller" })
	contents, _ := read["result"].(map[string]any)["contents"].([]any)
	var kept LateResult
	if len(contents) != 1 || json.Unmarshal([]byte(contents[0].(map[string]any)["text"].(string)), &kept) != nil || !strings.Contains(string(kept.Result), "d1 done k") {
		t.Fatalf("resources/read %s = %v", uri, read)
	}
	other := newRawAgent(t, x.mcpURL())
	if m := other.call(t, "resources/read", map[string]any{"uri": uri}); m["result"] != nil {
		t.Errorf("another agent read the kept answer: %v", m)
	}
}

// TestGoAgentGetsToolErrors: a Go SDK agent that declares dev.rpa/tool-errors gets the
// gateway's -32004 (its desktop dropped and did not come back in time) and -32003 as tool
// errors with the code and data in _meta, where the SDK would report "connection closed".
func TestGoAgentGetsToolErrors(t *testing.T) {
	r := &runCount{}
	x := startGateway(t, "", Options{RelinkWait: 100 * time.Millisecond})
	px := newDropProxy(t, x.addr)
	startDesk(t, px.wsURL(), "d1", deskServer("d1", r), nil)
	x.waitDevices(t, 1)
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(mrtr.ToolErrorsExtension, nil)
	cs := agent(t, x.mcpURL(), &mcp.ClientOptions{Capabilities: caps})
	got := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "slow", Arguments: map[string]any{"key": "k", "ms": 1000}})
		if err != nil {
			t.Errorf("the cut call: %v", err)
		}
		got <- res
	}()
	await(t, func() bool { return r.get("k") == 1 }, func() string { return "never: the desktop runs the call" })
	px.setRefuse(true)
	px.cut()
	res := <-got
	if res == nil {
		t.FailNow()
	}
	e, _ := res.Meta[mrtr.MetaToolError].(map[string]any)
	data, _ := e["data"].(map[string]any)
	if !res.IsError || e["code"] != float64(CodeUnreachable) || data["kind"] != KindDisconnected {
		t.Fatalf("the cut call: %+v", res)
	}
	x.waitDevices(t, 0)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "x"}})
	if err != nil || !res.IsError || res.Meta[mrtr.MetaToolError].(map[string]any)["code"] != float64(CodeNoSuchTool) {
		t.Fatalf("a call for a tool no desktop offers: %+v %v", res, err)
	}
}
