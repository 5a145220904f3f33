//go:build unix

package parse_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/lang/parse"
)

// BenchmarkParseCPU parses a generated 1,000-action flow and reports the
// process CPU time (user+system, all threads, GC included) per flow as
// cpu-µs/op: unlike BenchmarkParse's wall time it is not inflated by other
// processes competing for the cores. The goal is under 10ms of CPU per
// 1,000 lines. It is a benchmark, not a test, because a shared machine
// cannot promise any figure.
func BenchmarkParseCPU(b *testing.B) {
	src := benchFlow(1000)
	if _, ds := parse.Flow("bench.flow", src); len(ds) > 0 {
		b.Fatal(ds)
	}
	b.ResetTimer()
	before := cpuTime()
	for i := 0; i < b.N; i++ {
		parse.Flow("bench.flow", src)
	}
	b.ReportMetric(float64((cpuTime()-before).Microseconds())/float64(b.N), "cpu-µs/op")
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
