//go:build unix

package parse_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/lang/parse"
)

// TestParseCPU reports the process CPU time (user+system, all threads, GC
// included) per 1,000-action flow: unlike BenchmarkParse's wall time it is
// not inflated by other processes competing for the cores. Run with
// -run ParseCPU -v; it fails only when parsing takes more than 50ms of CPU
// per 1,000 lines (5x the goal), which catches an accidental blow-up.
func TestParseCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	src := benchFlow(1000)
	parse.Flow("bench.flow", src) // warm up
	const n = 50
	before := cpuTime()
	for i := 0; i < n; i++ {
		parse.Flow("bench.flow", src)
	}
	per := (cpuTime() - before) / n
	t.Logf("CPU per 1,000-action flow: %v (%.1f µs per line)", per, float64(per.Microseconds())/1000)
	if per > 50*time.Millisecond {
		t.Errorf("parsing 1,000 lines took %v of CPU", per)
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
