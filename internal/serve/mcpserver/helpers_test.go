package mcpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/testutil/rawmcp"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/internal/serve/mcpserver/internal/testsite"
)

// ---- the test site ----

const (
	siteUser = testsite.User
	sitePass = testsite.Pass
)

type site struct{ *testsite.Site }

func newSite(t testing.TB) *site {
	s := testsite.Start()
	t.Cleanup(s.Close)
	return &site{s}
}

func (s *site) hitsOf(p string) []int { return s.Hits(p) }

// ---- a pool of real headless Chromium ----

// newPool starts a pool of real browsers (drivers/rod) whose profiles live
// in a temporary RPA_HOME; every browser is closed at cleanup.
func newPool(t testing.TB) *profiles.Pool {
	t.Helper()
	home := t.TempDir()
	p, err := profiles.New(profiles.Options{
		Driver: rod.New(),
		Idle:   -1,
		Launch: func(id string) (drivers.LaunchOptions, error) {
			d := filepath.Join(home, "profiles", id)
			return drivers.LaunchOptions{UserDataDir: d}, os.MkdirAll(d, 0o700)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		if n := p.Running(); n != 0 {
			t.Errorf("%d browsers still running after Close", n)
		}
		// No Chromium process of this pool is left either.
		deadline := time.Now().Add(5 * time.Second)
		for browserProcs(home) > 0 {
			if time.Now().After(deadline) {
				t.Errorf("%d Chromium processes of %s left after Close", browserProcs(home), home)
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	return p
}

// browserProcs counts the live processes whose command line names a
// user-data folder under dir (Linux; 0 elsewhere).
func browserProcs(dir string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "--user-data-dir="+dir) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue // a zombie waiting for its parent: already dead
		}
		n++
	}
	return n
}

// ---- servers and clients ----

// copyFlows copies the named testdata flows into a fresh folder.
func copyFlows(t testing.TB, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		src, err := os.ReadFile(filepath.Join("testdata", "flows", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, n), src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// logBuffer collects log output (to check that secrets never reach it).
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func newServer(t testing.TB, opts Options) (*Server, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.Ask == nil {
		opts.Ask = func(ctx context.Context, q core.Question) (core.Answer, error) {
			<-ctx.Done()
			return core.Answer{}, ctx.Err()
		}
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, logs
}

// events is what a client saw besides answers.
type events struct {
	mu          sync.Mutex
	listChanged int
	progress    []*mcp.ProgressNotificationParams
	changed     chan struct{}
}

func (e *events) lists() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.listChanged
}

func (e *events) progressMessages() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, p := range e.progress {
		out = append(out, p.Message)
	}
	return out
}

func newEvents() *events { return &events{changed: make(chan struct{}, 100)} }

func (e *events) clientOptions() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			e.mu.Lock()
			e.listChanged++
			e.mu.Unlock()
			e.changed <- struct{}{}
		},
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			e.mu.Lock()
			e.progress = append(e.progress, r.Params)
			e.mu.Unlock()
		},
	}
}

// connect opens an in-memory session with the SDK's client.
func connect(t testing.TB, s *Server) (*mcp.ClientSession, *events) {
	t.Helper()
	ev := newEvents()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, ev.clientOptions())
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ev
}

// connectHTTP connects the SDK's client over Streamable HTTP at its
// default protocol (2026-07-28: stateless requests).
func connectHTTP(t testing.TB, url, token string) (*mcp.ClientSession, *events) {
	t.Helper()
	return connectHTTPAt(t, url, token, "")
}

// connectHTTPAt connects the SDK's client over Streamable HTTP asking for
// protocol version ("2025-11-25": a session with an Mcp-Session-Id).
func connectHTTPAt(t testing.TB, url, token, version string) (*mcp.ClientSession, *events) {
	t.Helper()
	ev := newEvents()
	c := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, ev.clientOptions())
	tr := &mcp.StreamableClientTransport{Endpoint: url}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearer{token, http.DefaultTransport}}
	}
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, ev
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

// connectRaw connects a client speaking JSON-RPC frames itself (to see error codes the go-sdk
// client hides: -32003, -32004) to s, at protocol 2025-06-18.
func connectRaw(t testing.TB, s *Server) *rawmcp.Client {
	t.Helper()
	c, _ := rawmcp.Pipe(t, s.MCP(), nil)
	c.Initialize("2025-06-18", nil)
	return c
}

// wireCode returns the JSON-RPC error code of a response (0 for success).
func wireCode(t testing.TB, r *jsonrpc.Response) (int64, string) {
	t.Helper()
	if r.Error == nil {
		return 0, ""
	}
	// Encode and decode to read exactly what went on the wire.
	raw, err := jsonrpc.EncodeMessage(r)
	if err != nil {
		t.Fatal(err)
	}
	var w struct {
		Error struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &w); err != nil {
		t.Fatal(err)
	}
	return w.Error.Code, w.Error.Message + " " + string(w.Error.Data)
}

// structured decodes a result's structuredContent.
func structured(t testing.TB, res *mcp.CallToolResult) map[string]any {
	t.Helper()
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("structuredContent %s: %v", raw, err)
	}
	return m
}

func textOf(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("no content")
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content[0] is %T", res.Content[0])
	}
	return tc.Text
}
