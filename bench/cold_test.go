package bench

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/internal/serve/localrun"
)

// coldPhases are localrun.Options.Phase's phases of one `rpa run`, in order.
var coldPhases = []string{"setup", "launch", "record", "flow", "finish", "close", "scrub"}

// coldRun runs the reference flow as `rpa run` does after its flags and
// the flow are checked (localrun.Run: a temporary profile, a browser
// launched for it, the run recorded under $RPA_HOME) and returns each
// phase's ms and the whole.
func coldRun(e *env) (map[string]float64, float64, error) {
	args, err := e.flow.ParseArgs(map[string]string{"username": demoapp.DemoUsername,
		"password": demoapp.DemoPassword, "region": region, "base_url": e.base})
	if err != nil {
		return nil, 0, err
	}
	ms := map[string]float64{}
	start := time.Now()
	at := start
	out, err := localrun.Run(context.Background(), e.flow, localrun.Options{Args: args, Timeout: time.Minute,
		Phase: func(name string) {
			now := time.Now()
			ms[name] = float64(now.Sub(at).Microseconds()) / 1000
			at = now
		}})
	total := float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		return nil, 0, err
	}
	if !out.Result.Success {
		return nil, 0, fmt.Errorf("flow failed: %+v", out.Result.Error)
	}
	return ms, total, nil
}

// TestColdPhases logs where a cold `rpa run` of the reference flow spends
// its time, phase by phase (median of rounds), against the cold floor
// (Chromium launched, the fused raw-DevTools flow, Chromium killed) in the
// same rounds. The process's own start and exit are not in it: time the
// whole command with farm-bench (the README's Speed section). It runs only
// when RPA_BENCH_ROUNDS is set:
//
//	RPA_BENCH_ROUNDS=8 go test ./bench -run TestColdPhases -v
func TestColdPhases(t *testing.T) {
	rounds, _ := strconv.Atoi(os.Getenv("RPA_BENCH_ROUNDS"))
	if rounds <= 0 {
		t.Skip("set RPA_BENCH_ROUNDS=N to measure")
	}
	t.Setenv("RPA_HOME", t.TempDir())
	e := setup(t)
	defer e.close()
	phases := map[string][]float64{}
	var totals, floors []float64
	for r := -1; r < rounds; r++ { // round -1 warms the caches, untimed
		ms, total, err := coldRun(e)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		coldRod(t, e, r, runFloor)
		floor := float64(time.Since(start).Microseconds()) / 1000
		if r < 0 {
			continue
		}
		for k, v := range ms {
			phases[k] = append(phases[k], v)
		}
		totals, floors = append(totals, total), append(floors, floor)
	}
	med := func(xs []float64) float64 {
		s := append([]float64(nil), xs...)
		sort.Float64s(s)
		return s[len(s)/2]
	}
	var b strings.Builder
	lb, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "\n%d rounds, load average %s\n%-8s %8s\n", rounds, strings.TrimSpace(string(lb)), "phase", "ms")
	for _, p := range coldPhases {
		fmt.Fprintf(&b, "%-8s %8.1f\n", p, med(phases[p]))
	}
	fmt.Fprintf(&b, "%-8s %8.1f\n%-8s %8.1f (÷ floor %.2f)\n", "floor", med(floors), "rpa", med(totals), med(totals)/med(floors))
	t.Log(b.String())
}
