package connect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/connect"
	"github.com/rpa-dev/rpa/internal/link/mcpws"
)

// runs counts tool executions by key.
type runs struct {
	mu sync.Mutex
	n  map[string]int
}

func (r *runs) add(k string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == nil {
		r.n = map[string]int{}
	}
	r.n[k]++
}

func (r *runs) get(k string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n[k]
}

type slowIn struct {
	Key string `json:"key"`
	Ms  int    `json:"ms"`
}

func testServer(r *runs) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "desk", Version: "t"}, &mcp.ServerOptions{
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	mcp.AddTool(s, &mcp.Tool{Name: "slow"}, func(ctx context.Context, req *mcp.CallToolRequest, in slowIn) (*mcp.CallToolResult, any, error) {
		r.add(in.Key)
		time.Sleep(time.Duration(in.Ms) * time.Millisecond) // deliberately ignores ctx: the run must finish
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done " + in.Key}}}, nil, nil
	})
	return s
}

// backend is a hand-written backend: it accepts links and hands them to the test.
type backend struct {
	srv   *httptest.Server
	links chan *mcpws.Link
	token string
	opts  mcpws.Options
}

func newBackend(t *testing.T, token string, opts mcpws.Options) *backend {
	b := &backend{links: make(chan *mcpws.Link, 16), token: token, opts: opts}
	b.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+b.token {
			http.Error(w, "bad token", http.StatusUnauthorized)
			return
		}
		l, err := mcpws.Upgrade(w, r, b.opts)
		if err != nil {
			return
		}
		b.links <- l
	}))
	t.Cleanup(b.srv.Close)
	return b
}

func (b *backend) url() string { return "ws" + strings.TrimPrefix(b.srv.URL, "http") + "/link" }

func (b *backend) next(t *testing.T) *mcpws.Link {
	t.Helper()
	select {
	case l := <-b.links:
		t.Cleanup(func() { l.Close() })
		return l
	case <-time.After(10 * time.Second):
		t.Fatal("no link from the desktop")
		return nil
	}
}

// frame is a decoded frame.
type frame struct {
	Type           string          `json:"type"`
	DeviceID       string          `json:"deviceId"`
	AvailableTools []string        `json:"available_tools"`
	ID             any             `json:"id"`
	Method         string          `json:"method"`
	Result         json.RawMessage `json:"result"`
	Error          *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func read(l *mcpws.Link) (frame, error) {
	b, err := l.ReadFrame()
	if err != nil {
		return frame{}, err
	}
	var f frame
	if err := json.Unmarshal(b, &f); err != nil {
		return frame{}, fmt.Errorf("bad frame %q: %w", b, err)
	}
	return f, nil
}

func send(l *mcpws.Link, id any, method string, params any) error {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	return l.WriteJSON(m)
}

// handshake reads register, then initializes the session. Frames that are not the initialize
// answer are returned in extra (answers kept from an earlier link come only after initialized).
func handshake(l *mcpws.Link, initID string) (reg frame, err error) {
	if reg, err = read(l); err != nil {
		return reg, err
	}
	if reg.Type != "register" {
		return reg, fmt.Errorf("first frame is %+v, want register", reg)
	}
	if err := send(l, initID, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "be", "version": "t"}}); err != nil {
		return reg, err
	}
	for {
		f, err := read(l)
		if err != nil {
			return reg, err
		}
		if fmt.Sprint(f.ID) == initID {
			break
		}
	}
	return reg, send(l, nil, "notifications/initialized", map[string]any{})
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func fast() connect.Backoff {
	return connect.Backoff{Min: 10 * time.Millisecond, Max: 50 * time.Millisecond, Grace: -1, ResetAfter: time.Second}
}

// run starts a client and stops it at cleanup; states receives link state changes.
func run(t *testing.T, opts connect.Options) (*connect.Client, chan connect.State, chan error) {
	t.Helper()
	states := make(chan connect.State, 256)
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	if opts.Backoff == (connect.Backoff{}) {
		opts.Backoff = fast()
	}
	if opts.DeviceID == "" {
		opts.DeviceID = "dev1"
	}
	opts.OnState = func(s connect.State) {
		select {
		case states <- s:
		default:
		}
	}
	c, err := connect.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	finished := make(chan struct{})
	go func() { done <- c.Run(ctx); close(finished) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-finished:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return after cancel")
		}
	})
	return c, states, done
}

// syncBuf is a concurrency-safe log sink.
type syncBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
