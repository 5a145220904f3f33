package gateway

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rpa-dev/rpa/internal/link/connect"
)

// benchDesksEnv makes this test binary run simulated desktops instead of the tests (a process of
// their own, so the benchmark's heap holds only the gateways): "N|PREFIX|URL1 URL2 ...|ROTATE".
// Desktop i links to the URLs starting at (i mod the number of URLs) when ROTATE is 1.
const benchDesksEnv = "RPA_TEST_RUN_DESKS"

func init() {
	spec := os.Getenv(benchDesksEnv)
	if spec == "" {
		return
	}
	parts := strings.Split(spec, "|")
	n, _ := strconv.Atoi(parts[0])
	prefix, urls, rotate := parts[1], strings.Fields(parts[2]), parts[3] == "1"
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range n {
		id := fmt.Sprintf("%s%04d", prefix, i)
		srv := deskServer(id, nil)
		order := urls
		if rotate {
			k := i % len(urls)
			order = append(append([]string{}, urls[k:]...), urls[:k]...)
		}
		c, err := connect.New(connect.Options{URL: order[0], More: order[1:], DeviceID: id, Token: testToken, Server: srv,
			ToolNames: func() []string { return sharedTools }, Logger: quietLogger()})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		wg.Add(1)
		go func() { defer wg.Done(); _ = c.Run(ctx) }()
	}
	fmt.Println("started")
	_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
	cancel()
	wg.Wait()
	os.Exit(0)
}

// desksProcess runs n simulated desktops in a child process.
func desksProcess(b testing.TB, n int, prefix string, urls []string, rotate bool) {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	r := "0"
	if rotate {
		r = "1"
	}
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%d|%s|%s|%s", benchDesksEnv, n, prefix, strings.Join(urls, " "), r))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || !strings.HasPrefix(line, "started") {
		b.Fatalf("desktops process: %q %v", line, err)
	}
}

func heapInuse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func pctl(l []time.Duration, p int) time.Duration {
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[min(len(l)*p/100, len(l)-1)]
}

// benchDesktops is how many simulated desktops the cluster benchmark links (RPA_BENCH_DESKTOPS,
// default 2000).
func benchDesktops() int {
	if n, err := strconv.Atoi(os.Getenv("RPA_BENCH_DESKTOPS")); err == nil && n > 0 {
		return n
	}
	return 2000
}

// BenchmarkCluster: N simulated desktops (a process of their own, default 2,000) over three
// replicas with NATS embedded, against the same N on one gateway:
//   - single-p50/p99-µs: an agent's echo call through one gateway alone;
//   - foreign-p50/p99-µs: an agent on r3 calling desktops linked to r1 and r2 (every call
//     crosses NATS), and p99-ratio, foreign over single (goal ≤ 2);
//   - heap-KB/desktop: the heap of the three replicas (with their NATS servers) per linked
//     desktop (goal ≤ 60 KB for one replica's share);
//   - relink-s: after r1 dies, until every one of its desktops is linked to r2 or r3 again
//     (goal ≤ 10 s for ~N/3), with the default backoff and 1 s jitter;
//   - calls during the relink (an agent on r2 calling r1's desktops all along): answered,
//     clear errors, and lost-silent (no answer within 30 s; goal 0).
//
// go test ./internal/link/gateway -run XXX -bench Cluster -benchtime 2000x (RPA_BENCH_DESKTOPS=N).
func BenchmarkCluster(b *testing.B) {
	n := benchDesktops()
	ctx := context.Background()
	call := func(cs *mcp.ClientSession, dev string) error {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "x", "deviceId": dev}})
		if err == nil && text(res) != dev+": x" {
			err = fmt.Errorf("answer %q", text(res))
		}
		return err
	}
	measure := func(cs *mcp.ClientSession, devs []string) []time.Duration {
		lat := make([]time.Duration, 0, b.N)
		for i := 0; i < b.N; i++ {
			s := time.Now()
			if err := call(cs, devs[i%len(devs)]); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(s))
		}
		return lat
	}
	ids := func(prefix string, from, to int) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, fmt.Sprintf("%s%04d", prefix, i))
		}
		return out
	}

	// One gateway alone.
	x := startGateway(b, "", Options{})
	desksProcess(b, n, "s", []string{x.wsURL()}, false)
	x.waitDevicesLocalFor(b, n, 5*time.Minute)
	single := measure(agentAt(b, x.mcpURL(), nil, "2025-11-25"), ids("s", 0, n))
	x.kill()
	// The baseline of the heap figure is taken once that gateway let go of its desktops (taken
	// earlier, it counted them, and the figure came out a fraction of the truth).
	awaitFor(b, 5*time.Minute, func() bool { return len(x.g.Devices()) == 0 },
		func() string { return fmt.Sprintf("the lone gateway still holds %d desktops", len(x.g.Devices())) })

	// Three replicas.
	base := heapInuse()
	rs := startReplicas(b, 3, nil)
	desksProcess(b, n, "c", rs.urls(0), true)
	where := map[string]string{}
	for i, id := range ids("c", 0, n) {
		where[id] = fmt.Sprintf("r%d", i%3+1)
	}
	rs.waitLinkedFor(b, where, 5*time.Minute)
	heap := heapInuse() - base
	cs := agentAt(b, rs.gws[2].mcpURL(), nil, "2025-11-25")
	var foreignIDs []string
	for id, r := range where {
		if r != "r3" {
			foreignIDs = append(foreignIDs, id)
		}
	}
	sort.Strings(foreignIDs)
	b.ResetTimer()
	foreign := measure(cs, foreignIDs)
	b.StopTimer()

	// r1 dies; calls to its desktops go on from r2 meanwhile.
	var r1IDs []string
	for id, r := range where {
		if r == "r1" {
			r1IDs = append(r1IDs, id)
		}
	}
	caller := agentAt(b, rs.gws[1].mcpURL(), nil, "2025-11-25")
	var ok, clear, silent atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; ; i += 8 {
				select {
				case <-stop:
					return
				default:
				}
				cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				_, err := caller.CallTool(cctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"msg": "x", "deviceId": r1IDs[i%len(r1IDs)]}})
				switch {
				case err == nil:
					ok.Add(1)
					changes.fire()
				case cctx.Err() != nil:
					silent.Add(1)
				default:
					clear.Add(1)
				}
				cancel()
			}
		}()
	}
	awaitFor(b, 5*time.Minute, func() bool { return ok.Load() >= 8 }, func() string { return "no calls answered before the kill" }) // calls are flowing
	died := time.Now()
	rs.crash(0)
	for id := range where {
		where[id] = "!r1"
	}
	rs.waitLinkedFor(b, where, 2*time.Minute)
	relink := time.Since(died)
	after := ok.Load()
	awaitFor(b, 5*time.Minute, func() bool { return ok.Load() >= after+int64(len(r1IDs)) }, func() string { return "no calls answered after the relink" }) // calls after the relink
	close(stop)
	wg.Wait()

	b.ReportMetric(float64(pctl(single, 50).Microseconds()), "single-p50-µs")
	b.ReportMetric(float64(pctl(single, 99).Microseconds()), "single-p99-µs")
	b.ReportMetric(float64(pctl(foreign, 50).Microseconds()), "foreign-p50-µs")
	b.ReportMetric(float64(pctl(foreign, 99).Microseconds()), "foreign-p99-µs")
	b.ReportMetric(float64(pctl(foreign, 99))/float64(pctl(single, 99)), "p99-ratio")
	b.ReportMetric(float64(heap)/1024/float64(n), "heap-KB/desktop")
	b.ReportMetric(relink.Seconds(), "relink-s")
	b.ReportMetric(float64(len(r1IDs)), "relinked-desktops")
	b.ReportMetric(float64(ok.Load()), "calls-answered")
	b.ReportMetric(float64(clear.Load()), "calls-clear-error")
	b.ReportMetric(float64(silent.Load()), "calls-lost-silent")
}
