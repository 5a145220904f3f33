package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/internal/host/lease"
	"github.com/rpa-dev/rpa/internal/host/vault"
	"github.com/rpa-dev/rpa/internal/runs"
)

const holdFlow = `flow hold "opens a page as an account"

param account: credential "the account"
param base: string
param path: string

open "{{ base }}/{{ path }}"
fill "#u" account.username
t = text "#t"
return { "t": t }
`

// TestTwoAccountsAtOnce: calls for two different accounts run at the same
// time (each page of the first is answered only once the second's has
// been asked for too: one run per account, not one run at a time), while
// two calls for one account run one after the other (their runs in the
// store do not overlap).
func TestTwoAccountsAtOnce(t *testing.T) {
	home := t.TempDir()
	t.Setenv("RPA_HOME", home)
	var mu sync.Mutex
	arrived := 0
	both := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		page := func(text string) {
			fmt.Fprintf(w, `<!doctype html><input id="u"><p id="t">%s</p>`, text)
		}
		switch r.URL.Path {
		case "/together":
			mu.Lock()
			if arrived++; arrived == 2 {
				close(both)
			}
			mu.Unlock()
			select {
			case <-both:
				page("together")
			case <-time.After(45 * time.Second): // only catches runs held one after the other
				page("alone")
			}
		case "/one":
			page("one")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hold.flow"), []byte(holdFlow), 0o644)
	st := vault.New(home, &vault.Keys{KDF: vault.KDF{Time: 1, MemoryKiB: 8 * 1024, Threads: 1}, Passphrase: func(string, bool) ([]byte, error) { return []byte("test vault passphrase"), nil }})
	for _, a := range []string{"portal/admin", "portal/ops"} {
		if err := st.Set(a, map[string]string{"username": a, "password": "pw-" + a}, false); err != nil {
			t.Fatal(err)
		}
	}
	store, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: newPool(t), Runs: store, Vault: st, Leases: lease.NewLocal(home)})
	ctx := context.Background()
	sst, cst := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, sst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, cst, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// two calls at once; each result's text and run.
	type res struct {
		t   string
		run *runs.Run
	}
	pair := func(a, b, path string) [2]res {
		t.Helper()
		var out [2]res
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, acct := range []string{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cctx, cancel := context.WithTimeout(ctx, 2*time.Minute) // only catches a hang
				defer cancel()
				r, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "workflow_hold", Arguments: map[string]any{"account": acct, "base": srv.URL, "path": path}})
				if err != nil || r.IsError {
					errs[i] = fmt.Errorf("%s: %v %+v", acct, err, r)
					return
				}
				var sc struct {
					RunID   string `json:"runId"`
					Outputs struct {
						T string `json:"t"`
					} `json:"outputs"`
				}
				b, _ := json.Marshal(r.StructuredContent)
				json.Unmarshal(b, &sc)
				out[i].t = sc.Outputs.T
				out[i].run, errs[i] = store.Get(sc.RunID)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		return out
	}
	// Two accounts: both pages were asked for before either was answered.
	got := pair("portal/admin", "portal/ops", "together")
	if got[0].t != "together" || got[1].t != "together" {
		t.Fatalf("two accounts ran one after the other: %q %q", got[0].t, got[1].t)
	}
	if got[0].run.Profile == got[1].run.Profile {
		t.Errorf("two accounts shared profile %s", got[0].run.Profile)
	}
	// One account: the second run starts after the first ended.
	got = pair("portal/admin", "portal/admin", "one")
	end := func(r *runs.Run) time.Time { return r.Start.Add(time.Duration(r.DurationMs) * time.Millisecond) }
	a, b := got[0].run, got[1].run
	if got[0].t != "one" || got[1].t != "one" || a.Start.Before(end(b)) && b.Start.Before(end(a)) {
		t.Errorf("two runs of one account overlapped: %v-%v and %v-%v", a.Start, end(a), b.Start, end(b))
	}
}
