package mcpserver

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

const ownFlow = `flow own "Clicks a button an overlay may cover, says who asked"

param base: string "the test server"
param who: string "who calls"
param token: secret "a token"

defaults wait: 2s retries: 0

open "{{ base }}/page"
fill "#token" token
click "#go"
return { "who": who }
`

// TestRunsBelongToTheirSession: over Streamable HTTP, session B neither
// lists, reads nor resumes session A's failed run (the run would go on
// with A's secret on A's profile), also when both present one bearer
// token; A does all three, and its resumed run takes the resuming call's
// arguments. Once A's session ended, its runs pass to the token: B reads
// them. No resource holds the host's flow path.
func TestRunsBelongToTheirSession(t *testing.T) {
	s, site, broken := ownServer(t)
	const token = "shared-agent-token"
	hs := httptest.NewServer(s.HTTPHandler(token))
	t.Cleanup(hs.Close)
	a, _ := connectHTTPAt(t, hs.URL, token, "2025-11-25")
	b, _ := connectHTTPAt(t, hs.URL, token, "2025-11-25")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	id, uris := ownerAndOther(t, ctx, site.URL, broken, a, b)

	// A's session ends: its runs pass to its token.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for s.callers.live(runs.SessionDigest(a.ID())) {
		if time.Now().After(deadline) {
			t.Fatal("A's session is still open after DELETE")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := b.ReadResource(ctx, &mcp.ReadResourceParams{URI: uris[0]}); err != nil {
		t.Errorf("B (same token) cannot read the run of A's ended session: %v", err)
	}
	if !listed(t, ctx, b, id) {
		t.Error("B (same token) does not list the run of A's ended session")
	}
}

// TestRunsBelongToTheirToken: 2026-07-28 requests have no session; two
// agents with a token each do not see each other's runs.
func TestRunsBelongToTheirToken(t *testing.T) {
	s, site, broken := ownServer(t)
	hs := httptest.NewServer(s.HTTPHandler("token-of-a", "token-of-b"))
	t.Cleanup(hs.Close)
	a, _ := connectHTTP(t, hs.URL, "token-of-a")
	b, _ := connectHTTP(t, hs.URL, "token-of-b")
	if a.ID() != "" || b.ID() != "" {
		t.Fatalf("sessions %q %q: want stateless 2026-07-28 requests", a.ID(), b.ID())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ownerAndOther(t, ctx, site.URL, broken, a, b)
}

// ownerAndOther has A run own.flow into a failure, then checks that B
// neither lists, reads nor resumes that run and that A does all three;
// it returns the run's ID and resource URIs.
func ownerAndOther(t *testing.T, ctx context.Context, base string, broken *atomic.Bool, a, b *mcp.ClientSession) (string, []string) {
	t.Helper()
	broken.Store(true)
	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_own", Arguments: map[string]any{"base": base, "who": "first", "token": flipSecret}})
	if err != nil || !res.IsError {
		t.Fatalf("A's call: %v %v", err, res)
	}
	id, _ := structured(t, res)["runId"].(string)
	uris := []string{"rpa://runs/" + id, "rpa://runs/" + id + "/report.html"}
	if shots := readRecord(t, ctx, a, id)["screenshots"].([]any); len(shots) == 1 {
		uris = append(uris, shots[0].(string))
	} else {
		t.Fatalf("A's run has screenshots %v", shots)
	}

	// B: not listed, not readable, not resumable (on a profile of its own,
	// so the profile check is not what stops it).
	if listed(t, ctx, b, id) {
		t.Error("B lists A's run")
	}
	for _, u := range uris {
		if _, err := b.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("B read %s: %v", u, err)
		}
	}
	broken.Store(false)
	_, err = b.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_own", Arguments: map[string]any{
		"resumeRunId": id, "profileId": "b", "base": base, "who": "intruder", "token": "B-token"}})
	if err == nil || !strings.Contains(err.Error(), "resumeRunId") || !strings.Contains(err.Error(), "not held") {
		t.Fatalf("B resumed A's run: %v", err)
	}

	// A: listed, readable (the flow file by name only), resumable with the
	// resuming call's arguments.
	if !listed(t, ctx, a, id) {
		t.Error("A does not list its run")
	}
	for _, u := range uris {
		if _, err := a.ReadResource(ctx, &mcp.ReadResourceParams{URI: u}); err != nil {
			t.Errorf("A read %s: %v", u, err)
		}
	}
	if fp := readRecord(t, ctx, a, id)["flowPath"]; fp != "own.flow" {
		t.Errorf("flowPath in the resource = %v", fp)
	}
	res, err = a.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_own", Arguments: map[string]any{"resumeRunId": id, "base": base, "who": "second", "token": flipSecret}})
	if err != nil || res.IsError {
		t.Fatalf("A's resume: %v %v", err, res)
	}
	if out := structured(t, res)["outputs"].(map[string]any); out["who"] != "second" {
		t.Fatalf("resumed outputs %v: not the resuming call's arguments", out)
	}
	return id, uris
}

// TestDesktopSeesEveryRun: the console's session (ShareProfilesWith) lists
// and reads an agent's run.
func TestDesktopSeesEveryRun(t *testing.T) {
	s, site, _ := ownServer(t)
	agent, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := agent.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_own", Arguments: map[string]any{"base": site.URL, "who": "a", "token": flipSecret}})
	if err != nil || !res.IsError {
		t.Fatalf("agent's call: %v %v", err, res)
	}
	id, _ := structured(t, res)["runId"].(string)

	other, _ := connect(t, s)
	if listed(t, ctx, other, id) {
		t.Error("another in-memory session lists the agent's run")
	}
	st2, ct := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	s.ShareProfilesWith(ss)
	desk, err := mcp.NewClient(&mcp.Implementation{Name: "console", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer desk.Close()
	if !listed(t, ctx, desk, id) {
		t.Error("the desktop does not list the agent's run")
	}
	if _, err := desk.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rpa://runs/" + id}); err != nil {
		t.Errorf("the desktop cannot read the agent's run: %v", err)
	}
}

// ownServer serves own.flow with a run store; its site's #go button is
// covered until broken is cleared.
func ownServer(t *testing.T) (*Server, *httptest.Server, *atomic.Bool) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "own.flow"), []byte(ownFlow), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := runs.Open(t.TempDir(), runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	broken := &atomic.Bool{}
	broken.Store(true)
	site := flipSite(t, broken)
	s, _ := newServer(t, Options{FlowsDir: dir, NoWatch: true, Pool: newPool(t), Runs: st})
	return s, site, broken
}

func listed(t *testing.T, ctx context.Context, cs *mcp.ClientSession, id string) bool {
	t.Helper()
	l, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range l.Resources {
		if r.URI == "rpa://runs/"+id {
			return true
		}
	}
	return false
}

func readRecord(t *testing.T, ctx context.Context, cs *mcp.ClientSession, id string) map[string]any {
	t.Helper()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "rpa://runs/" + id})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(rr.Contents[0].Text), &m); err != nil {
		t.Fatal(err)
	}
	return m
}
