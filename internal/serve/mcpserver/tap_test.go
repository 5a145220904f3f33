package mcpserver

import (
	"context"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/interp"
)

// TestWatchCall: a watcher registered for a progress token gets every event of that call (each
// action started and finished), none of another call, none after stop.
func TestWatchCall(t *testing.T) {
	st := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "demo_query.flow"), Pool: newPool(t)})
	cs, _ := connect(t, s)
	var mu sync.Mutex
	var got []interp.Event
	stop := s.WatchCall("watched", func(ev interp.Event) {
		mu.Lock()
		got = append(got, ev)
		mu.Unlock()
	})
	call := func(tok string) {
		p := &mcp.CallToolParams{Name: "workflow_demo_query", Arguments: demoArgs(st.URL)}
		p.SetProgressToken(tok)
		res, err := cs.CallTool(context.Background(), p)
		if err != nil || res.IsError {
			t.Fatalf("call %s: %v %+v", tok, err, res)
		}
	}
	call("other")
	mu.Lock()
	if len(got) != 0 {
		t.Fatalf("events of another call: %v", got)
	}
	mu.Unlock()
	call("watched")
	mu.Lock()
	n := len(got)
	started, finished := 0, 0
	for _, ev := range got {
		switch ev.Kind {
		case "started":
			started++
		case "finished":
			finished++
			if ev.Status != "ok" {
				t.Errorf("step %d %s: %s", ev.Index, ev.Action, ev.Status)
			}
		}
	}
	mu.Unlock()
	if started == 0 || started != finished {
		t.Fatalf("%d started, %d finished: %v", started, finished, got)
	}
	stop()
	call("watched")
	mu.Lock()
	defer mu.Unlock()
	if len(got) != n {
		t.Errorf("%d events after stop", len(got)-n)
	}
}
