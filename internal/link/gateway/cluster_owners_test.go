package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

// pinned sends every request to one replica, which the test may change.
type pinned struct {
	host atomic.Value // string
	rt   http.RoundTripper
}

func (p *pinned) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	h := p.host.Load().(string)
	r.URL.Host, r.Host = h, h
	r.Header.Set("Authorization", "Bearer "+testToken)
	return p.rt.RoundTrip(r)
}

// runDesk is a desktop whose "run" tool answers with a run ID, as a workflow does, and says
// which run a call resumed.
func runDesk() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "desk-runs", Version: "t"}, nil)
	s.AddTool(&mcp.Tool{Name: "run", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in map[string]string
		_ = json.Unmarshal(req.Params.Arguments, &in)
		id := runs.NewID(time.Now())
		out, _ := json.Marshal(map[string]string{"runId": id, "resumed": in[ResumeRunArg]})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
	})
	return s
}

// TestClusterRunOwners: the agent of a run is known on every replica. A 2025-11-25 session that
// made a run through r1 resumes it through r2 (its session continued there); another session
// with the same token, on r3, is refused while the first is open anywhere, and may resume it
// once that session closed (the token rule), as on one gateway.
func TestClusterRunOwners(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	rs.deskOn(t, 0, "pc", runDesk())
	rs.waitLinked(t, map[string]string{"pc": "r1"})
	// Until a replica has opened the buckets of owners and open sessions, it knows only its own
	// (the rule is applied with what it knows): the test starts once every replica has them.
	poll(t, func() bool {
		for _, x := range rs.gws {
			if x.g.rep.owners.agents.Load() == nil {
				return false
			}
		}
		return true
	}, func() string { return "every replica to open the owners' buckets" })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	connect := func(host string) (*mcp.ClientSession, *pinned) {
		p := &pinned{rt: &http.Transport{}}
		p.host.Store(host)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: "http://lb/mcp", HTTPClient: &http.Client{Transport: p}},
			&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, p
	}
	resume := func(cs *mcp.ClientSession, id string) (string, error) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{ResumeRunArg: id}})
		if err != nil {
			return "", err
		}
		return text(res), nil
	}

	a, pa := connect(rs.gws[0].addr)
	res, err := a.CallTool(ctx, &mcp.CallToolParams{Name: "run", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var made struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(text(res)), &made); err != nil || made.RunID == "" {
		t.Fatalf("run: %q %v", text(res), err)
	}

	pa.host.Store(rs.gws[1].addr) // the load balancer sends the session's next request to r2
	var got string
	poll(t, func() bool {
		got, err = resume(a, made.RunID)
		return err == nil
	}, func() string { return "never: the run's owner to be known on r2" })
	if !strings.Contains(got, `"resumed":"`+made.RunID+`"`) {
		t.Fatalf("the owner's resume through r2: %q", got)
	}

	b, _ := connect(rs.gws[2].addr)
	if got, err := resume(b, made.RunID); err == nil || !strings.Contains(err.Error(), "is not held here") {
		t.Fatalf("another session resumed the run while its owner's is open: %q %v", got, err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	poll(t, func() bool {
		got, err = resume(b, made.RunID)
		return err == nil && strings.Contains(got, `"resumed":"`+made.RunID+`"`)
	}, func() string {
		return "never: the other session of the same token to reach the run once the owner's closed"
	})
}

// TestClusterPausedCall: a 2026-07-28 call paused for its agent's answer on r1 is resumed by a
// request that lands on r2 (the load balancer moved the agent meanwhile): r2 sends it to r1,
// which holds the call, and the agent gets its result; a requestState naming a replica that is
// gone is a clear -32602 naming the field.
func TestClusterPausedCall(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	rs.deskOn(t, 0, "pc", deskServer("pc", nil))
	rs.waitLinked(t, map[string]string{"pc": "r1"})
	// Until a replica has opened the buckets of owners and open sessions, it knows only its own
	// (the rule is applied with what it knows): the test starts once every replica has them.
	poll(t, func() bool {
		for _, x := range rs.gws {
			if x.g.rep.owners.agents.Load() == nil {
				return false
			}
		}
		return true
	}, func() string { return "every replica to open the owners' buckets" })
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := &pinned{rt: &http.Transport{}}
	p.host.Store(rs.gws[0].addr)
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			p.host.Store(rs.gws[1].addr) // the answer goes to r2
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Grace"}}, nil
		}})
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://lb/mcp", HTTPClient: &http.Client{Transport: p}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("agent at %s", v)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"msg": "name?"}})
	if err != nil || text(res) != "pc got Grace" {
		t.Fatalf("the call resumed through r2: %v %v", res, err)
	}
	if n := rs.gws[0].g.paused.Len() + rs.gws[1].g.paused.Len(); n != 0 {
		t.Errorf("%d paused calls left", n)
	}

	// A requestState of a replica that is gone.
	rs.crash(0)
	rs.waitLinked(t, map[string]string{"pc": "!r1"})
	p.host.Store(rs.gws[2].addr)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"msg": "x"},
		RequestState: "rpa-r1.00112233445566778899aabbccddeeff", InputResponses: mcp.InputResponseMap{"q1": &mcp.ElicitResult{Action: "cancel"}}})
	if err == nil || !strings.Contains(err.Error(), "requestState") || !strings.Contains(err.Error(), `"r1"`) {
		t.Fatalf("a paused call of a dead replica: %v", err)
	}
}

// TestClusterSessionQuestionsDoNotSwap: one 2025-11-25 session whose two concurrent calls land on
// r2 and r3 (a load balancer without stickiness): each replica asks the session a question with
// the SDK's first request id, and the client answers both at once, its answers landing on either
// replica: each call gets its own answer (the ids carry the replica that asked).
func TestClusterSessionQuestionsDoNotSwap(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	rs.deskOn(t, 0, "A", deskServer("A", nil))
	rs.waitLinked(t, map[string]string{"A": "r1"})
	lb := &roundRobin{hosts: []string{rs.gws[1].addr, rs.gws[2].addr}, rt: &http.Transport{}}
	both := make(chan struct{})
	var asked atomic.Int32
	c := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "t"}, &mcp.ClientOptions{
		ElicitationHandler: func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			if asked.Add(1) == 2 {
				close(both)
			}
			select { // answer once both questions are out
			case <-both:
			case <-time.After(hangGuard):
			}
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": req.Params.Message}}, nil
		}})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://lb/mcp", HTTPClient: &http.Client{Transport: lb}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	type out struct {
		msg, got string
		err      error
	}
	outs := make(chan out, 2)
	for _, msg := range []string{"one", "two"} {
		go func() {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"msg": msg}})
			got := ""
			if err == nil {
				got = text(res)
			}
			outs <- out{msg, got, err}
		}()
	}
	for range 2 {
		o := <-outs
		if o.err != nil || o.got != "A got "+o.msg {
			t.Errorf("the call asking %q got %q %v", o.msg, o.got, o.err)
		}
	}
	if asked.Load() != 2 {
		t.Errorf("the client was asked %d times", asked.Load())
	}
}

// TestAgentMarksFollowClose: a session's "open" mark in the cluster follows what the replicas
// last did with it, whatever order the writes were scheduled in, and another replica reads it
// as written: a session that made its first request on r1, went on through r2 and was closed
// there is open nowhere once the writes are done; a renewal after that marks it again. (Writes
// used to be goroutines racing each other, read from any copy of the bucket: a mark could land
// after the close's removal, or be read from a lagging copy, and lock the token's other
// sessions out of the session's runs; TestClusterRunOwners flaked on it under load.)
func TestAgentMarksFollowClose(t *testing.T) {
	rs := startReplicas(t, 3, nil)
	r1, r2, r3 := rs.gws[0].g.rep.owners, rs.gws[1].g.rep.owners, rs.gws[2].g.rep.owners
	for _, o := range []*ownerShare{r1, r2, r3} {
		poll(t, func() bool { return o.agents.Load() != nil }, func() string { return "never: the agents bucket" })
	}
	const n = 40
	for i := range n {
		d := fmt.Sprintf("s%02d", i)
		r1.opened(d)
		if !r3.open(d) {
			t.Fatalf("session %s is not marked open once its first request went on", d)
		}
		r2.opened(d)
		r2.closed(d)
	}
	r1.syncing.Wait()
	r2.syncing.Wait()
	for i := range n {
		if d := fmt.Sprintf("s%02d", i); r3.open(d) {
			t.Errorf("session %s is marked open after its close", d)
		}
	}
	r1.mu.Lock()
	r1.marked["s00"] = time.Time{} // r1's mark is due for renewal
	r1.mu.Unlock()
	r1.opened("s00")
	r1.syncing.Wait()
	if !r3.open("s00") {
		t.Error("a renewed session is not marked open")
	}
}
