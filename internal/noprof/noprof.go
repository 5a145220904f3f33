// Package noprof turns off the Go runtime's heap-profile sampling for the
// rpa binary. cmd/rpa imports it for its side effect; it imports nothing
// but runtime, so (package initialisation order, Go spec) it initialises
// before the packages whose init functions allocate the most.
//
// Why: the runtime samples one allocation per runtime.MemProfileRate bytes
// (512 KiB by default) for a heap profile, and each sample walks the
// allocating goroutine's stack through the binary's function tables
// (.gopclntab: function entry, SP-delta and inline tables of every frame)
// and hashes the stack into a bucket table of about 1.4 MB. rpa never
// reads that profile: no command writes one, and no server of rpa serves
// the net/http/pprof handlers that nats-server's import registers on
// http.DefaultServeMux (rpa's servers use muxes of their own, and the
// embedded NATS server runs without a profiling port). The walks still made
// pages of the binary resident in every rpa process: on an idle
// `rpa serve --http` (Linux, a perf trace of page faults) sampling caused 28
// of the faults in .gopclntab (the kernel maps up to 64 KiB around each) and
// 33 anonymous ones, and the idle resident set is 0.6 MB smaller without it
// (median of five starts; issue 24, BenchmarkServeRSS).
//
// A developer who wants a heap profile of rpa sets GODEBUG=memprofilerate=N
// (N other than the default 524288), which the runtime applies before any
// package initialises; this package turns off only the default rate.
package noprof

import "runtime"

// defaultRate is runtime.MemProfileRate's initial value (runtime/mprof.go).
const defaultRate = 512 * 1024

func init() {
	if runtime.MemProfileRate == defaultRate {
		runtime.MemProfileRate = 0
	}
}
