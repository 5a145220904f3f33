package clustered

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/link/cluster/clustertest"
	"github.com/rpa-dev/rpa/internal/link/gateway"
	"github.com/rpa-dev/rpa/internal/serve/schedule"
)

// fakeLander is one desktop, d1, offering every tool; a call fails while fail says so.
type fakeLander struct {
	mu    sync.Mutex
	n     map[string]int
	fail  func(tool string, n int) bool
	calls chan string // each call's id
}

func (l *fakeLander) Offered(tool, device string) string { return "d1" }

func (l *fakeLander) CallTool(ctx context.Context, id, device, tool string, args map[string]json.RawMessage) (*mcp.CallToolResult, error) {
	l.mu.Lock()
	l.n[tool]++
	n := l.n[tool]
	l.mu.Unlock()
	l.calls <- id
	if l.fail(tool, n) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "line 5: timeout: the table never showed"}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "read"}}}, nil
}

// TestClusterRetriesAndNotice: a cluster schedule's failed call is tried again after its
// backoff (1m, then 2m on the fake clock), each retry a call of its own on the desktop; one
// that still fails after its retries sends one failure notice to its webhook.
func TestClusterRetriesAndNotice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts NATS")
	}
	node := clustertest.Start(t, 3)[0] // the queue keeps its copies on three replicas; one works it
	t0 := time.Date(2026, 3, 2, 8, 0, 0, 0, time.UTC)
	clock := schedule.NewFakeClock(t0)
	notices := make(chan schedule.Notice, 10)
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var n schedule.Notice
		if err := json.Unmarshal(b, &n); err != nil {
			t.Errorf("notice: %v %s", err, b)
		}
		notices <- n
	}))
	defer hook.Close()
	l := &fakeLander{n: map[string]int{}, calls: make(chan string, 100), fail: func(tool string, n int) bool {
		return tool == "broken" || n <= 2 // flaky fails twice, then reads
	}}
	logs := make(chan string, 1000)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := Open(ctx, Config{Node: node, Lander: l, Clock: clock, Poll: 20 * time.Millisecond, Log: func(m string) {
		t.Log(m)
		logs <- m
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { s.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	waitLog := func(sub string) { t.Helper(); waitLogLine(t, logs, sub) }
	call := func() string {
		t.Helper()
		select {
		case id := <-l.calls:
			return id
		case <-time.After(60 * time.Second): // only catches a hang
			t.Fatal("no call")
		}
		return ""
	}
	if _, err := s.Add(ctx, Def{Name: "x", Tool: "meter", Every: schedule.Duration(time.Hour), Notify: "ftp://h/x"}); err == nil || !strings.Contains(err.Error(), "http:// or https://") {
		t.Errorf("a bad webhook: %v", err)
	}
	if _, err := s.Add(ctx, Def{Name: "flaky", Tool: "flaky", Every: schedule.Duration(time.Hour), Retries: 2, Backoff: schedule.Duration(time.Minute), Notify: hook.URL}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	ids := []string{call()}
	waitLog("schedule flaky: try 1 failed; retry 1 of 2")
	clock.Advance(time.Minute)
	ids = append(ids, call())
	waitLog("schedule flaky: try 2 failed; retry 2 of 2")
	clock.Advance(2 * time.Minute)
	ids = append(ids, call())
	waitLog("schedule flaky: landed on desktop d1: ok")
	if !strings.HasSuffix(ids[1], "-try-2") || !strings.HasSuffix(ids[2], "-try-3") || ids[1] == ids[0] {
		t.Errorf("call ids %q", ids)
	}
	waitRecord(t, s, "flaky", func(r *Record) bool { return r.Last != nil && r.Last.State == "ok" && r.Last.Attempt == 3 })
	if _, err := s.SetPaused(ctx, "flaky", true); err != nil {
		t.Fatal(err)
	}

	// Failing after its retries: one notice.
	if _, err := s.Add(ctx, Def{Name: "broken", Tool: "broken", Every: schedule.Duration(time.Hour), Retries: 1, Backoff: schedule.Duration(time.Minute), Notify: hook.URL}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Hour)
	call()
	waitLog("schedule broken: try 1 failed; retry 1 of 1")
	clock.Advance(time.Minute)
	call()
	var n schedule.Notice
	select {
	case n = <-notices:
	case <-time.After(60 * time.Second): // only catches a hang
		t.Fatal("no notice")
	}
	if n.Event != "schedule.failed" || n.Schedule != "broken" || n.Flow != "broken" || n.Status != "failed" || n.Attempts != 2 ||
		!strings.Contains(n.Summary, "the table never showed") {
		t.Errorf("notice %+v", n)
	}
	waitRecord(t, s, "broken", func(r *Record) bool {
		return r.Last != nil && r.Last.State == "failed" && r.Last.Notice == "sent" && r.Last.Attempt == 2
	})
	idle(t, node)
	select {
	case n := <-notices:
		t.Errorf("a second notice %+v", n)
	case id := <-l.calls:
		t.Errorf("a call after the last retry: %s", id)
	default:
	}

	// Agents read the schedules at the gateway as rpa://schedules, the webhook cut to its host.
	g := gateway.New(gateway.Options{Token: token, Logger: slog.New(slog.DiscardHandler)})
	AddResource(g, s)
	hs := httptest.NewServer(g.Handler())
	defer func() { g.Close(); hs.Close() }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: hs.URL + "/mcp", HTTPClient: &http.Client{Transport: bearer{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: URI})
	if err != nil {
		t.Fatal(err)
	}
	var b struct{ Schedules []*Record }
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &b); err != nil || len(b.Schedules) != 2 || b.Schedules[0].Def.Name != "broken" ||
		b.Schedules[0].Def.Retries != 1 || b.Schedules[0].Last == nil || b.Schedules[0].Last.State != "failed" ||
		b.Schedules[0].Def.Notify != "http://"+strings.TrimPrefix(hook.URL, "http://")+"/…" {
		t.Errorf("rpa://schedules: %v %s", err, rr.Contents[0].Text)
	}
}

// bearer adds the agents' token to each request.
type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}
