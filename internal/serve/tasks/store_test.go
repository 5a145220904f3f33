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
