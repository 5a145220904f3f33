package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestLoadTwoProfiles sends 40 concurrent calls across 2 profiles: every
// call is answered once with its own output, each profile runs its calls
// in arrival order, and no browser is left after shutdown (newPool's
// cleanup checks Running() == 0). Run with -race.
func TestLoadTwoProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("browser load test")
	}
	st := newSite(t)
	pool := newPool(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), Pool: pool})
	cs, _ := connect(t, s)
	const perProfile = 20
	profiles := []string{"p1", "p2"}
	var answered atomic.Int32
	var mu sync.Mutex
	outputs := map[string][]string{}
	var wg sync.WaitGroup
	start := time.Now()
	for _, p := range profiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var calls sync.WaitGroup
			for n := range perProfile {
				calls.Add(1)
				go func() {
					defer calls.Done()
					ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
					defer cancel()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_hit",
						Arguments: map[string]any{"base_url": st.URL, "p": p, "n": n, "profileId": p}})
					answered.Add(1)
					if err != nil || res.IsError {
						t.Errorf("%s call %d: %v %v", p, n, err, res)
						return
					}
					mu.Lock()
					outputs[p] = append(outputs[p], fmt.Sprint(structured(t, res)["outputs"]))
					mu.Unlock()
				}()
				// The next call is sent once this one has its place in the
				// profile's queue, so arrival order is n.
				waitUntil(t, func() bool { return pool.Arrived(p) >= n+1 })
			}
			calls.Wait()
		}()
	}
	wg.Wait()
	t.Logf("40 calls over 2 profiles in %v", time.Since(start))
	if answered.Load() != 2*perProfile {
		t.Fatalf("answered %d calls, want %d", answered.Load(), 2*perProfile)
	}
	want := make([]int, perProfile)
	for i := range want {
		want[i] = i
	}
	for _, p := range profiles {
		if got := st.hitsOf(p); !slices.Equal(got, want) {
			t.Errorf("profile %s ran calls in order %v, want arrival order", p, got)
		}
		got := outputs[p]
		slices.Sort(got)
		if len(got) != perProfile {
			t.Errorf("profile %s: %d outputs", p, len(got))
		}
	}
	if pool.Running() != 2 {
		t.Errorf("Running = %d, want one warm browser per profile", pool.Running())
	}
	s.Close()
	pool.Close()
	if pool.Running() != 0 {
		t.Errorf("%d browsers left after shutdown", pool.Running())
	}
}
