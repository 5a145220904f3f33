//go:build linux

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServeSoak is the 200-call soak of issue 16: `rpa serve --http`
// (the built binary) runs workflow_quick 200 times on one profile through
// one Go SDK client session; at calls 1, 50, 100 and 200 it reports the
// RSS of rpa and of its Chromium (sum over Chromium's processes; shared
// pages are counted in each), rpa's open file descriptors and the tabs
// Chromium has open. Flat is the goal. Run:
//
//	go test ./cmd/rpa -run '^$' -bench ServeSoak -benchtime 1x -v
func BenchmarkServeSoak(b *testing.B) {
	for range b.N {
		soak(b, 200)
	}
}

// BenchmarkServeRSS is rpa's own memory serving one profile (issue 24:
// at most 30 MB): `rpa serve --http` (the built binary) runs
// workflow_quick 20 times on one profile, then its resident set
// (VmRSS, rpa alone, not Chromium) is reported as rpa-RSS-MB. Run:
//
//	go test ./cmd/rpa -run '^$' -bench ServeRSS -benchtime 1x -v
func BenchmarkServeRSS(b *testing.B) {
	for range b.N {
		soak(b, 20)
	}
}

func soak(b *testing.B, calls int) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("reads /proc")
	}
	site, _ := lifeSite(b)
	flows := lifeFlows(b, site)
	home := lifeHome(b)
	profile := filepath.Join(home, "profiles", "work")
	srv, endpoint := serveHTTP(b, home, flows)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "soak", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	b.ResetTimer()
	start := time.Now()
	for i := 1; i <= calls; i++ {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_quick", Arguments: map[string]any{"profileId": "work"}})
		if err != nil || res.IsError {
			b.Fatalf("call %d: %v %+v", i, err, res)
		}
		if i == 1 || i == 50 || i == 100 || i == 200 || i == calls {
			rpaRSS := rssKB(srv.Process.Pid)
			var chRSS, chPSS int
			pids := browsersOn(profile)
			for _, pid := range pids {
				chRSS += rssKB(pid)
				chPSS += pssKB(pid)
			}
			fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", srv.Process.Pid))
			st := fmt.Sprintf("/proc/%d/status", srv.Process.Pid)
			b.Logf("call %3d: rpa RSS %5.1f MB (anonymous %.1f, file-backed %.1f); Chromium RSS sum %6.1f MB, PSS sum %6.1f MB (%d processes); rpa fds %d; tabs open %d",
				i, float64(rpaRSS)/1024, float64(procKB(st, "RssAnon:"))/1024, float64(procKB(st, "RssFile:"))/1024, float64(chRSS)/1024, float64(chPSS)/1024, len(pids), len(fds), tabsOpen(profile))
		}
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(calls), "ms/call")
	b.ReportMetric(float64(rssKB(srv.Process.Pid))/1024, "rpa-RSS-MB")
	b.StopTimer()
	_ = srv.Process.Signal(syscall.SIGTERM)
	waitGone(b, srv.Process.Pid)
}

// rssKB is a process's resident set in kB (0 when gone).
func rssKB(pid int) int { return procKB(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:") }

// pssKB is a process's proportional set in kB: shared pages divided
// among their sharers, so a sum over Chromium's processes is fair.
func pssKB(pid int) int { return procKB(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:") }

func procKB(path, key string) int {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, key) {
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			return n
		}
	}
	return 0
}

// tabsOpen counts the page targets of the browser running on profile
// (its DevTools port from DevToolsActivePort); -1 when unknown.
func tabsOpen(profile string) int {
	b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
	if err != nil {
		return -1
	}
	port := strings.SplitN(string(b), "\n", 2)[0]
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	var targets []struct {
		Type string `json:"type"`
	}
	if json.NewDecoder(resp.Body).Decode(&targets) != nil {
		return -1
	}
	n := 0
	for _, t := range targets {
		if t.Type == "page" {
			n++
		}
	}
	return n
}
