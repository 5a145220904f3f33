package tasks

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/runs"
)

func openRuns(t *testing.T, home string) *runs.Store {
	t.Helper()
	st, err := runs.Open(home, runs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestRestart: a task whose process died is failed, "interrupted", with
// its run ID, when the next process opens the store; a finished task's
// result survives the restart and is fetched by its owner.
func TestRestart(t *testing.T) {
	home := t.TempDir()
	ctx := context.Background()
	dead := "999999999:1"
	alice := Who{Owner: runs.Owner{Kind: runs.CallerMCP, Token: "t-alice"}}
	st1 := openRuns(t, home)
	completed := make(chan string, 4)
	m1 := New(Options{Store: RunStore(st1), Node: dead, Alive: func(string) bool { return true }, Changed: func(r *Record) {
		if r.Status == Completed {
			completed <- r.ID
		}
	}})
	block := make(chan struct{})
	defer close(block)
	running, err := m1.Start(ctx, Spec{Owner: alice.Owner, Tool: "work"}, func(ctx context.Context, h *Handle) (*mcp.CallToolResult, error) {
		h.SetMessage(`line 3: click "#go"`)
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil, ctx.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	done, err := m1.Start(ctx, Spec{Owner: alice.Owner, Tool: "work"}, func(context.Context, *Handle) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "50 rows"}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	select { // the finished task is stored
	case id := <-completed:
		if id != done.ID {
			t.Fatalf("completed %s, want %s", id, done.ID)
		}
	case <-time.After(time.Minute): // only catches a hang
		t.Fatal("the finished task never completed")
	}
	// "Restart": another process on the same store; the first one's node
	// is gone.
	st2 := openRuns(t, home)
	m2 := New(Options{Store: RunStore(st2)})
	defer m2.Close()
	if err := m2.Recover(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := m2.Get(ctx, alice, running.ID)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != Failed || r.Error == nil || r.Error.Code != -32603 || !strings.Contains(r.Message, "interrupted") ||
		!strings.Contains(r.Message, running.RunID) || !strings.Contains(string(r.Error.Data), `"runId":"`+running.RunID+`"`) {
		t.Errorf("interrupted task: %+v %+v", r, r.Error)
	}
	if v2 := V2(r); v2.Status != "failed" || v2.Error == nil {
		t.Errorf("2026-07-28 view %+v", v2)
	}
	r, err = m2.Get(ctx, alice, done.ID)
	if err != nil || r.Status != Completed || !strings.Contains(string(r.Result), "50 rows") {
		t.Errorf("finished task after the restart: %+v %v", r, err)
	}
	if _, err := m2.Get(ctx, Who{Owner: runs.Owner{Kind: runs.CallerMCP, Token: "t-bob"}}, done.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another owner: %v", err)
	}
	if RunIDOf(done.ID) != done.RunID {
		t.Errorf("RunIDOf(%s) = %q", done.ID, RunIDOf(done.ID))
	}
}

// TestExpired: past its ttl (and KeepAfterEnd) a finished task says so,
// then is gone.
func TestExpired(t *testing.T) {
	st := &MemStore{}
	m := New(Options{Store: st, TTL: time.Millisecond})
	defer m.Close()
	ctx := context.Background()
	a := Who{Owner: runs.Owner{Kind: runs.CallerMCP, Token: "t-a"}}
	r, err := m.Start(ctx, Spec{Owner: a.Owner, Tool: "t"}, func(context.Context, *Handle) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.WaitIdle(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Update(ctx, r.ID, func(x *Record) error {
		x.Created, x.Ended = x.Created.Add(-time.Hour), x.Ended.Add(-time.Hour)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Get(ctx, a, r.ID); !errors.Is(err, ErrExpired) {
		t.Errorf("expired task: %v", err)
	}
	if n, _ := st.Sweep(ctx, time.Now()); n != 1 {
		t.Errorf("swept %d", n)
	}
	if _, err := m.Get(ctx, a, r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("after the sweep: %v", err)
	}
}

// TestIDs: task ids are unique, begin with their run ID, and RunIDOf
// refuses anything else.
func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		id := NewID(runs.NewID(time.Now()))
		if seen[id] || RunIDOf(id) == "" {
			t.Fatalf("id %s", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "x", runs.NewID(time.Now()), runs.NewID(time.Now()) + ".abc", "nope." + strings.Repeat("a", 32),
		runs.NewID(time.Now()) + "." + strings.Repeat("G", 32), fmt.Sprintf("%s.%s", "../../etc", strings.Repeat("a", 32))} {
		if RunIDOf(bad) != "" {
			t.Errorf("RunIDOf(%q) accepted", bad)
		}
	}
}

// TestReaches: runs.Owner's rule, a task reached by its id from another
// session of its token while its own session lives, and an unbound
// owner's task reached by its id from a caller likewise unbound (neither
// listed).
func TestReaches(t *testing.T) {
	tok := runs.Owner{Kind: runs.CallerMCP, Session: "s-1", Token: "t-a"}
	live := func(s string) bool { return s == "s-1" }
	for _, tc := range []struct {
		name  string
		who   runs.Owner
		owner runs.Owner
		want  bool
		lists bool // Who.Lists: false where only the id reaches it
	}{
		{"its session", tok, tok, true, true},
		{"unbound, its own session", runs.Owner{Kind: runs.CallerMCP, Session: "s-1"}, runs.Owner{Kind: runs.CallerMCP, Session: "s-1"}, true, true},
		{"same token, another session while the first lives (by id only)", runs.Owner{Kind: runs.CallerMCP, Session: "s-2", Token: "t-a"}, tok, true, false},
		{"same token, another kind", runs.Owner{Kind: runs.CallerLink, Session: "s-2", Token: "t-a"}, tok, false, false},
		{"same token, another device", runs.Owner{Kind: runs.CallerMCP, Session: "s-2", Token: "t-a", Device: "pc1"}, tok, false, false},
		{"same token, stateless", runs.Owner{Kind: runs.CallerMCP, Token: "t-a"}, runs.Owner{Kind: runs.CallerMCP, Token: "t-a"}, true, true},
		{"another token", runs.Owner{Kind: runs.CallerMCP, Token: "t-b"}, runs.Owner{Kind: runs.CallerMCP, Token: "t-a"}, false, false},
		{"unbound by unbound (stdio after a restart)", runs.Owner{Kind: runs.CallerMCP, Session: "s-9"}, runs.Owner{Kind: runs.CallerMCP, Session: "s-8"}, true, false},
		{"unbound while its session lives", runs.Owner{Kind: runs.CallerMCP, Session: "s-9"}, runs.Owner{Kind: runs.CallerMCP, Session: "s-1"}, false, false},
		{"unbound stateless", runs.Owner{Kind: runs.CallerMCP}, runs.Owner{Kind: runs.CallerMCP}, true, false},
		{"a token's task by an unbound caller", runs.Owner{Kind: runs.CallerMCP}, runs.Owner{Kind: runs.CallerMCP, Token: "t-a"}, false, false},
		{"an unbound task by a token", runs.Owner{Kind: runs.CallerMCP, Token: "t-a"}, runs.Owner{Kind: runs.CallerMCP, Session: "s-8"}, false, false},
		{"the device over any link", runs.Owner{Kind: runs.CallerLink, Device: "pc1", Session: "s-5"}, runs.Owner{Kind: runs.CallerLink, Device: "pc1", Session: "s-4"}, true, true},
		{"another device", runs.Owner{Kind: runs.CallerLink, Device: "pc2"}, runs.Owner{Kind: runs.CallerLink, Device: "pc1"}, false, false},
		{"the desktop", runs.Desktop, tok, true, true},
	} {
		if got := (Who{Owner: tc.who, Live: live}).Reaches(tc.owner); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
		if got := (Who{Owner: tc.who, Live: live}).Lists(tc.owner); got != tc.lists {
			t.Errorf("%s: lists %v, want %v", tc.name, got, tc.lists)
		}
	}
}

// TestAwaitElsewhere (tester's finding 4): a task whose run goes on in
// another live process on the same store, and waits for an answer there,
// is not waited for by this process's tasks/result (it cannot pass the
// answer on): Await says at once where to answer it, -32004 kind
// "elsewhere" naming that process; the caller is never asked here.
func TestAwaitElsewhere(t *testing.T) {
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alice := Who{Owner: runs.Owner{Kind: runs.CallerMCP, Token: "t-alice"}}
	m1 := New(Options{Store: RunStore(openRuns(t, home)), Node: "4242:1"})
	defer m1.Close()
	rec, err := m1.Start(ctx, Spec{Owner: alice.Owner, Tool: "work"}, func(ctx context.Context, h *Handle) (*mcp.CallToolResult, error) {
		if _, err := h.Ask(ctx, &mcp.ElicitParams{Message: "Code please"}); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	m2 := New(Options{Store: RunStore(openRuns(t, home)), Alive: func(node string) bool { return node == "4242:1" }})
	defer m2.Close()
	for {
		r, err := m2.Get(ctx, alice, rec.ID)
		if err != nil {
			t.Fatal(err)
		}
		if r.Status == InputRequired {
			break
		}
		time.Sleep(5 * time.Millisecond) // polls the store, as a client polls tasks/get
	}
	start := time.Now()
	_, err = m2.Await(ctx, alice, rec.ID, func(context.Context, string, mcp.InputRequest) (mcp.InputResponse, error) {
		t.Error("asked in a process that cannot pass the answer on")
		return nil, errors.New("no")
	})
	var ee *ElsewhereError
	if !errors.As(err, &ee) {
		t.Fatalf("Await after %v: %v, want an ElsewhereError", time.Since(start), err)
	}
	je := ee.RPC()
	if je.Code != -32004 || !strings.Contains(je.Message, "pid 4242") || !strings.Contains(je.Message, "rpa ui") ||
		!strings.Contains(string(je.Data), `"kind":"elsewhere"`) || !strings.Contains(string(je.Data), `"pid":4242`) {
		t.Errorf("%d %s %s", je.Code, je.Message, je.Data)
	}
	// 2026-07-28: tasks/update from here is refused the same way, never dropped silently.
	if err := m2.Answer(ctx, alice, rec.ID, mcp.InputResponseMap{"q1": &mcp.ElicitResult{Action: "accept"}}); !errors.As(err, &ee) {
		t.Errorf("Answer from another process: %v, want an ElsewhereError", err)
	}
}
