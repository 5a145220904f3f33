package mcpserver

import (
	"context"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/profiles"
)

const gateFlow = `flow gate "Opens a page the test holds back, then reads it"

param base_url: string "Address of the gate"
param p: string "Profile the call is made for"

defaults retries: 0 wait: 2m timeout: 2m

open "{{ base_url }}/gate?p={{ p }}"
t = text "#p"
return t
`

// gate serves /gate?p=ID, holding every answer back until open is closed;
// each request's p arrives on arrived first.
func gate(t *testing.T) (url string, arrived <-chan string, open func()) {
	t.Helper()
	ch := make(chan string, 16)
	release := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/gate" {
			http.NotFound(w, r)
			return
		}
		p := r.URL.Query().Get("p")
		ch <- p
		select {
		case <-release:
		case <-r.Context().Done():
			return
		}
		fmt.Fprintf(w, `<!doctype html><p id="p">%s</p>`, html.EscapeString(p))
	}))
	openFn := func() { once.Do(func() { close(release) }) }
	t.Cleanup(func() { openFn(); srv.Close() })
	return srv.URL, ch, openFn
}

// Four calls on four profiles at once with the default limits (three
// browsers): the fourth waits for a browser, says so in its progress, and
// all four succeed, each on its own profile.
func TestFourProfilesQueue(t *testing.T) {
	base, arrived, open := gate(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "gate.flow"), []byte(gateFlow), 0o644); err != nil {
		t.Fatal(err)
	}
	pool := newPool(t) // the default --max-browsers and --max-queue
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: pool})
	cs, ev := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // only catches a hang
	defer cancel()

	const n = 4
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	answers := make([]chan answer, n)
	for i := range n {
		answers[i] = make(chan answer, 1)
		go func() {
			params := &mcp.CallToolParams{Name: "workflow_gate", Arguments: map[string]any{
				"base_url": base, "p": fmt.Sprintf("q%d", i), ProfileArg: fmt.Sprintf("q%d", i)}}
			params.SetProgressToken(fmt.Sprintf("q%d", i)) // the token names the call's profile
			res, err := cs.CallTool(ctx, params)
			answers[i] <- answer{res, err}
		}()
	}
	// Three calls reach the page and hold their browsers there.
	seen := map[string]bool{}
	for range profiles.DefaultMaxBrowsers {
		select {
		case p := <-arrived:
			seen[p] = true
		case <-ctx.Done():
			t.Fatal("the first calls never reached the page")
		}
	}
	// The fourth waits for a browser and says so.
	var queued *mcp.ProgressNotificationParams
	waitUntil(t, func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		for _, p := range ev.progress {
			if strings.HasPrefix(p.Message, "queued for a browser: all 3 are in use (--max-browsers") {
				queued = p
				return true
			}
		}
		return false
	})
	if queued.Progress != 0 {
		t.Errorf("queued notice progress %v, want 0 (before the first action's 1)", queued.Progress)
	}
	if n := pool.Running(); n != profiles.DefaultMaxBrowsers {
		t.Errorf("%d browsers open while one call waits, want %d", n, profiles.DefaultMaxBrowsers)
	}
	open()
	for i := range n {
		a := <-answers[i]
		if a.err != nil {
			t.Fatalf("call %d: %v", i, a.err)
		}
		if a.res.IsError {
			t.Fatalf("call %d failed: %s", i, textOf(t, a.res))
		}
		if m := structured(t, a.res); m["outputs"] != fmt.Sprintf("q%d", i) {
			t.Errorf("call %d: outputs %v", i, m["outputs"])
		}
	}
	if len(seen) != profiles.DefaultMaxBrowsers || seen[fmt.Sprint(queued.ProgressToken)] {
		t.Errorf("first at the page: %v; the queued call was %v", seen, queued.ProgressToken)
	}
	if n := pool.Running(); n > profiles.DefaultMaxBrowsers {
		t.Errorf("%d browsers open, more than --max-browsers", n)
	}
}
