//lint:file-ignore SA1019 the test desktop answers with sampling, deprecated by SEP-2577 but still part of the protocol during its deprecation window.

package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"
)

const testToken = "s3cret-test-token"

// runs counts tool executions by key.
type runCount struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *runCount) add(k string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[k]++
	changes.fire()
}

func (r *runCount) get(k string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[k]
}

type echoIn struct {
	Msg string `json:"msg"`
}

type slowIn struct {
	Key string `json:"key"`
	Ms  int    `json:"ms"`
}

// deskServer is a small desktop server: echo (answers "ID: msg"), slow (sleeps, sends progress,
// counts runs by key), ask (elicits a name), extra tools named in extra (answer their own name).
func deskServer(id string, r *runCount, extra ...string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "desk-" + id, Version: "t"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id + ": " + in.Msg}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		if r != nil {
			r.add(in.Key)
		}
		steps := 4
		for i := 1; i <= steps; i++ {
			select {
			case <-ctx.Done():
				if r != nil {
					r.add(in.Key + "/cancelled")
				}
				return nil, nil, ctx.Err()
			case <-time.After(time.Duration(in.Ms) * time.Millisecond / time.Duration(steps)):
			}
			if tok := req.Params.GetProgressToken(); tok != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: float64(steps), Message: fmt.Sprintf("%d/%d", i, steps)})
			}
		}
		if r != nil {
			r.add(in.Key + "/done")
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id + " done " + in.Key}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "ask a name"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: in.Msg, RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}},
		}})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "elicit: " + err.Error()}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s got %v", id, res.Content["name"])}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "think", Description: "sampling"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		res, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: in.Msg}}}})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "sampling: " + err.Error()}}}, nil, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id + " model said " + res.Content.(*mcp.TextContent).Text}}}, nil, nil
	})
	for _, n := range extra {
		n := n
		s.AddTool(&mcp.Tool{Name: n, InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: id + " ran " + n}}}, nil
		})
	}
	return s
}

// toolNames lists the tools of a server through an in-memory client (what mcpserver.ToolNames gives).
func toolNames(s *mcp.Server) func() []string {
	return func() []string {
		ct, st := mcp.NewInMemoryTransports()
		ctx := context.Background()
		ss, err := s.Connect(ctx, st, nil)
		if err != nil {
			return nil
		}
		defer ss.Close()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "lister"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			return nil
		}
		defer cs.Close()
		var out []string
		for t, err := range cs.Tools(ctx, nil) {
			if err != nil {
				return out
			}
			out = append(out, t.Name)
		}
		return out
	}
}

// desk is a running `rpa connect` equivalent.
type desk struct {
	id     string
	srv    *mcp.Server
	client *connect.Client
	cancel context.CancelFunc
	done   chan struct{}
	err    error
	states chan connect.State
}

func fastBackoff() connect.Backoff {
	return connect.Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond, Grace: -1, ResetAfter: time.Second}
}

func startDesk(t testing.TB, wsURL, id string, srv *mcp.Server, mod func(*connect.Options)) *desk {
	t.Helper()
	d := &desk{id: id, srv: srv, done: make(chan struct{}), states: make(chan connect.State, 64)}
	opts := connect.Options{
		URL: wsURL, DeviceID: id, Token: testToken, Server: srv, ToolNames: toolNames(srv),
		Backoff: fastBackoff(), Logger: quietLogger(),
		OnState: func(s connect.State) {
			select {
			case d.states <- s:
			default:
			}
		},
	}
	if mod != nil {
		mod(&opts)
	}
	c, err := connect.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	d.client = c
	ctx, cancel := context.WithCancel(context.Background())
	d.cancel = cancel
	go func() { d.err = c.Run(ctx); close(d.done) }()
	t.Cleanup(d.stop)
	return d
}

func (d *desk) stop() {
	d.cancel()
	select {
	case <-d.done:
	case <-time.After(5 * time.Second):
	}
}

// logBuf is a concurrency-safe log sink for asserting on log lines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	defer changes.fire()
	return l.b.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

var verbose = false

func quietLogger() *slog.Logger {
	if verbose {
		return slog.Default()
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// gw is a gateway listening on a real port (so it can be killed and restarted on the same one).
type gw struct {
	g    *Gateway
	hs   *http.Server
	addr string
	logs *logBuf
	dead bool // crashed (cluster tests)
}

func startGateway(t testing.TB, addr string, opts Options) *gw {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	// A restarted gateway takes its predecessor's port: kill and crash closed its listener
	// before they returned (and Go listens with SO_REUSEADDR, so the old links' TIME_WAIT does
	// not hold the port).
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	lb := &logBuf{}
	if opts.Token == "" {
		opts.Token = testToken
	}
	if opts.Devices == nil {
		opts.SharedDeviceToken = true // the desks of most tests share testToken
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(lb, nil))
	}
	fire := func() { changes.fire(); stateChanges.fire() }
	if prev := opts.onChange; prev != nil {
		opts.onChange = func() { prev(); fire() }
	} else {
		opts.onChange = fire
	}
	g := New(opts)
	hs := &http.Server{Handler: g.Handler()}
	go func() { _ = hs.Serve(ln) }()
	x := &gw{g: g, hs: hs, addr: ln.Addr().String(), logs: lb}
	t.Cleanup(x.kill)
	return x
}

// kill stops the gateway abruptly: desktop links, listener, agents' HTTP connections. The links
// go first, as when the process dies: nothing it does after can reach a desktop (an agent
// request cancelled by the closing listener must not look like the agent's own cancel).
func (x *gw) kill() {
	_ = x.g.Close()
	if x.g.rep != nil {
		x.g.rep.kill()
	}
	_ = x.hs.Close()
	_ = x.g.MCP() // the server has no sessions left once their connections are gone
}

func (x *gw) wsURL() string  { return "ws://" + x.addr + "/ws" }
func (x *gw) mcpURL() string { return "http://" + x.addr + "/mcp" }

// waitDevices waits until the gateway lists n devices.
func (x *gw) waitDevices(t testing.TB, n int) {
	t.Helper()
	await(t, func() bool { return len(x.g.Devices()) == n }, func() string {
		return fmt.Sprintf("gateway has %d devices, want %d", len(x.g.Devices()), n)
	})
}

// changes fires at every change a test of this package waits for: a gateway's state
// (Options.onChange), a test desktop's run starting or ending (runCount), a log line (logBuf).
// A change a waiter does not care for only makes it look again.
var changes signal

// stateChanges fires at each change of a gateway's state only (Options.onChange): not at log
// lines, which an agent's own requests make (the SDK logs each stateless request's connection),
// so a wait that sends requests to look (waitTask) does not wake itself.
var stateChanges signal

// hangGuard bounds every wait of these tests: it only catches a hang (three replicas on a
// loaded machine take seconds to link), never a time the test relies on.
const hangGuard = 90 * time.Second

// await waits until cond holds, looking again at each change (changes); failing after
// hangGuard with what's description of the state.
func await(t testing.TB, cond func() bool, what func() string) {
	t.Helper()
	awaitFor(t, hangGuard, cond, what)
}

// awaitFor is await with a hang guard of its own (benchmarks linking thousands of desktops).
func awaitFor(t testing.TB, guardAfter time.Duration, cond func() bool, what func() string) {
	t.Helper()
	awaitOn(t, &changes, guardAfter, cond, what)
}

// awaitOn is awaitFor looking again at each firing of sig.
func awaitOn(t testing.TB, sig *signal, guardAfter time.Duration, cond func() bool, what func() string) {
	t.Helper()
	guard := time.NewTimer(guardAfter)
	defer guard.Stop()
	for {
		ch := sig.wait()
		if cond() {
			return
		}
		select {
		case <-ch:
		case <-guard.C:
			t.Fatalf("timed out: %s", what())
		}
	}
}

// poll waits until cond holds, for a condition of code that tells nobody when it changes (a
// store another process writes, a session's end): it looks every 10 ms, and its bound only
// catches a hang.
func poll(t testing.TB, cond func() bool, what func() string) {
	t.Helper()
	for deadline := time.Now().Add(hangGuard); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out: %s", what())
		}
	}
}

type bearer struct {
	token string
	rt    http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.rt.RoundTrip(r)
}

func httpClient(token string) *http.Client {
	return &http.Client{Transport: bearer{token, &http.Transport{MaxIdleConnsPerHost: 64}}}
}

// agent connects a go-sdk client to the gateway's /mcp (at the client's default protocol,
// 2026-07-28).
func agent(t testing.TB, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return agentAt(t, url, opts, "")
}

// agentAt connects a go-sdk client asking for protocol version ("": the client's default) and
// checks it got it.
func agentAt(t testing.TB, url string, opts *mcp.ClientOptions, version string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: httpClient(testToken)},
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	want := version
	if want == "" {
		want = "2026-07-28"
	}
	if got := cs.InitializeResult().ProtocolVersion; got != want {
		t.Fatalf("agent negotiated %s, want %s", got, want)
	}
	return cs
}

func text(r *mcp.CallToolResult) string {
	var sb strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(tc.Text)
		}
	}
	return sb.String()
}

// rawAgent speaks JSON-RPC over Streamable HTTP by hand, to see error codes exactly as sent.
type rawAgent struct {
	url, session string
	hc           *http.Client
	id           atomic.Int64
}

func newRawAgent(t testing.TB, url string) *rawAgent {
	t.Helper()
	a := &rawAgent{url: url, hc: httpClient(testToken)}
	res := a.call(t, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "t"}})
	if res["error"] != nil {
		t.Fatalf("initialize: %v", res)
	}
	a.post(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return a
}

// post sends msg (a JSON-RPC message, or a batch: a slice of them) to the agent's URL in its session.
func (a *rawAgent) post(t testing.TB, msg any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(msg)
	req, _ := http.NewRequest("POST", a.url, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if a.session != "" {
		req.Header.Set("Mcp-Session-Id", a.session)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if s := resp.Header.Get("Mcp-Session-Id"); s != "" {
		a.session = s
	}
	return resp
}

// delete ends the agent's session (HTTP DELETE).
func (a *rawAgent) delete(t testing.TB) {
	t.Helper()
	req, _ := http.NewRequest("DELETE", a.url, nil)
	req.Header.Set("Mcp-Session-Id", a.session)
	resp, err := a.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// call sends one request and returns the JSON-RPC response object.
func (a *rawAgent) call(t testing.TB, method string, params any) map[string]any {
	t.Helper()
	id := a.id.Add(1)
	resp := a.post(t, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	defer resp.Body.Close()
	if m := rawmcp.Response(resp.Body, id); m != nil {
		return m
	}
	t.Fatalf("%s: no response (HTTP %s)", method, resp.Status)
	return nil
}

func errCode(m map[string]any) int {
	e, _ := m["error"].(map[string]any)
	if e == nil {
		return 0
	}
	f, _ := e["code"].(float64)
	return int(f)
}

func slogTo(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// chromiumPool is a pool of headless Chromium browsers, one per profile, under home/profiles,
// closed with the test.
func chromiumPool(t testing.TB, home string) *profiles.Pool {
	t.Helper()
	pool, err := profiles.New(profiles.Options{Driver: rod.New(), Idle: -1,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			d := filepath.Join(home, "profiles", id)
			return drivers.LaunchOptions{UserDataDir: d}, os.MkdirAll(d, 0o700)
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pool.Close() })
	return pool
}

// verifySite serves the hitl package's pages (verify.html: a captcha, then an SMS code) and
// returns their URL and a flows folder holding verify.flow, which asks both.
func verifySite(t testing.TB) (site, flows string) {
	t.Helper()
	pages := filepath.Join("..", "..", "host", "hitl", "testdata")
	s := httptest.NewServer(http.FileServer(http.Dir(pages)))
	t.Cleanup(s.Close)
	src, err := os.ReadFile(filepath.Join(pages, "verify.flow"))
	if err != nil {
		t.Fatal(err)
	}
	flows = t.TempDir()
	if err := os.WriteFile(filepath.Join(flows, "verify.flow"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	return s.URL, flows
}
