// Package bench holds the end-to-end speed benchmarks of the demo flow
// (flows/query_power_data.flow against internal/demoapp, 150 ms server
// delay, a 50-row table): the same steps run by rpa's interpreter, written
// by hand with go-rod's defaults, and as a raw event-driven floor (page work
// fused into a few DevTools calls), on one shared Chromium that rpa attaches
// to. Groups of variants, each against its own floor:
//
//   - tab/: one flow on a warm profile that keeps its tab between flows (an
//     MCP call); the floor keeps a browser context and a tab too;
//   - par4/: four flows on four profiles at once on the one attached browser
//     (each profile its own browser context and window), against four floor
//     slots with a context and tab each;
//   - warm/: a new tab per flow, also by go-rod with its defaults and step by
//     step over raw DevTools;
//   - cold/: a browser launch per flow (what `rpa run` does).
//
// Run:
//
//	go test ./bench -run '^$' -bench . -benchtime 10x
//	RPA_BENCH_ROUNDS=8 RPA_BENCH_ONLY=tab,par4,cold go test ./bench -run TestSpeedTable -v
//	RPA_BENCH_ROUNDS=15 go test ./bench -run TestActionBreakdown -v
//	RPA_BENCH_CLICK=trusted RPA_BENCH_ROUNDS=15 go test ./bench -run TestActionBreakdown -v
//	RPA_BENCH_ROUNDS=8 go test ./bench -run TestColdPhases -v
//
// Each variant reports ms/flow (par4: ms per round of four). TestSpeedTable
// interleaves the variants round by round and logs medians, minima, ratios
// to the floor and the machine's load average: on a shared machine compare
// ratios within one run. TestActionBreakdown is the per-action view of the
// tab group: each action of the flow as rpa runs it on a kept tab against
// the floor's phase for the same step on a kept tab of its own (one
// event-driven DevTools round trip per step), with the DevTools commands
// each sent and the time spent awaiting them, counted by a proxy both
// talk through; the floor's click is el.click() in the page unless
// RPA_BENCH_CLICK=trusted, when it is trusted mouse input as rpa's is.
// TestColdPhases splits a cold `rpa run` (localrun.Run) into
// its phases (localrun.Options.Phase) against the cold floor. The package
// has no non-test code.
package bench
