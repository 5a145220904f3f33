// Package bench holds the end-to-end speed benchmarks of the demo flow
// (flows/query_power_data.flow against internal/demoapp, 150 ms server
// delay, a 50-row table): the same steps run by rpa's interpreter, written
// by hand with go-rod's defaults, and as a raw event-driven floor (page work
// fused into a few DevTools calls), on one shared Chromium (warm) and with a
// browser launch per flow (cold). Run:
//
//	go test ./bench -run '^$' -bench . -benchtime 10x
//
// Each variant reports ms/flow. The package has no non-test code.
package bench
