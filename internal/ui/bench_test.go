package ui

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/serve/mcpserver"
	"github.com/rpa-dev/rpa/interp"
)

// benchFolder writes n flows (every tenth broken) into a new folder.
func benchFolder(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := range n {
		src := fmt.Sprintf(`# flow %d of the benchmark
flow bench_%04d "Query the power system, variant %d"

param username: string "Login username"
param password: secret "Login password"
param region: string = "110000" "Region code for query"

defaults wait: 10s

open "http://127.0.0.1:8080/login"
fill "#username" username
fill "#password" password
click "#submit"
wait url: "/query"
select "#region" region
click "text=Query"
rows = table "#data-table"
return { "rows": rows }
`, i, i, i)
		if i%10 == 9 {
			src = strings.Replace(src, "click \"#submit\"", "clik \"#submit\"", 1)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bench_%04d.flow", i)), []byte(src), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// firstByte times GET path until the response's first body byte.
func firstByte(b *testing.B, c *http.Client, url, tok string) time.Duration {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set(TokenHeader, tok)
	start := time.Now()
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	one := make([]byte, 1)
	if _, err := resp.Body.Read(one); err != nil {
		b.Fatal(err)
	}
	d := time.Since(start)
	if resp.StatusCode != 200 {
		b.Fatalf("%s: %d", url, resp.StatusCode)
	}
	return d
}

// BenchmarkPageFirstByte500 is the time to the first byte of the console's pages with 500 flows
// in the folder (the goal: under 100 ms), with the folder unchanged since the last request (the
// common case: only stat calls) and after a file changed (the folder is loaded again).
func BenchmarkPageFirstByte500(b *testing.B) {
	dir := benchFolder(b, 500)
	srv, err := mcpserver.New(mcpserver.Options{FlowsDir: dir, NoWatch: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Close() })
	s, ts := newTestServer(b, Options{FlowsDir: dir, ServedDir: dir, Tools: srv})
	c := ts.Client()
	for _, p := range []string{"/flows", "/flows/bench_0250.flow/edit", "/run/bench_0250"} {
		b.Run(strings.ReplaceAll(strings.Trim(p, "/"), "/", "_"), func(b *testing.B) {
			firstByte(b, c, ts.URL+p, s.Token()) // warm
			var total time.Duration
			for b.Loop() {
				total += firstByte(b, c, ts.URL+p, s.Token())
			}
			b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/firstbyte")
		})
	}
	b.Run("flows_after_change", func(b *testing.B) {
		p := filepath.Join(dir, "bench_0001.flow")
		var total time.Duration
		i := 0
		for b.Loop() {
			i++
			b.StopTimer()
			src, _ := os.ReadFile(p)
			os.WriteFile(p, append(src, []byte(fmt.Sprintf("# %d\n", i))...), 0o644)
			b.StartTimer()
			total += firstByte(b, c, ts.URL+"/flows", s.Token())
		}
		b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/firstbyte")
	})
}

// BenchmarkStepToSSE is the time from a step event of a run (the interp event hook) to its
// delivery to the page's event stream (read by an HTTP client on loopback).
func BenchmarkStepToSSE(b *testing.B) {
	s, ts := newTestServer(b, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	lr := &LiveRun{ID: "bench", Flow: "bench", Tool: "workflow_bench", Started: time.Now(), cancel: cancel, wake: make(chan struct{})}
	t := s.live()
	t.mu.Lock()
	t.runs[lr.ID] = lr
	t.mu.Unlock()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/live/bench/events", nil)
	req.Header.Set(TokenHeader, s.Token())
	resp, err := ts.Client().Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	var total time.Duration
	i := 0
	for b.Loop() {
		i++
		start := time.Now()
		lr.onEvent(interp.Event{Kind: "started", Index: i, Action: "click", Target: "#submit", Line: 4})
		for {
			line, err := rd.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.HasPrefix(line, "data: ") {
				break
			}
		}
		total += time.Since(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N)/1000, "ms/event")
}
