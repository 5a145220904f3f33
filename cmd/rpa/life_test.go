//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
)

// Process life of `rpa run` and `rpa serve` (issue 16): the built binary,
// real headless Chromium, a page served by the test.

// lifeSite serves a plain page at / and counts its requests.
func lifeSite(t testing.TB) (url string, hits *atomic.Int32) {
	t.Helper()
	hits = new(atomic.Int32)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprint(w, `<!doctype html><title>life</title><h1 id="t">alive</h1>`)
	}))
	t.Cleanup(s.Close)
	return s.URL, hits
}

// lifeFlows writes hold.flow (open, then sleep) and quick.flow (open, read
// the heading) into a new folder.
func lifeFlows(t testing.TB, site string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"hold.flow": "flow hold \"Open a page and wait\"\n\nopen \"" + site + "/\"\nsleep 120s\n",
		"quick.flow": "flow quick \"Open a page and read its heading\"\n\nopen \"" + site + "/\"\n" +
			"h = text \"#t\"\nreturn { \"heading\": h }\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// lifeBin is the rpa binary: the one the package's tests share, or for a
// benchmark one built once for it the way tools/release builds what ships
// (CGO_ENABLED=0, -trimpath, -ldflags "-s -w"): what BenchmarkServeRSS
// measures is the memory of the rpa people run, not of a host build that,
// where a C compiler is installed, links glibc's loader, libc and its
// per-thread malloc arenas (2.3 MB more of an idle rpa serve's RSS; issue 24).
func lifeBin(tb testing.TB) string {
	if t, ok := tb.(*testing.T); ok {
		return rpaBin(t)
	}
	benchBinOnce.Do(func() {
		dir, err := binDir("rpa-bench-bin-")
		if err != nil {
			benchBinErr = err
			return
		}
		benchBin = filepath.Join(dir, "rpa")
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", benchBin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			benchBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if benchBinErr != nil {
		tb.Fatal(benchBinErr)
	}
	return benchBin
}

var (
	benchBinOnce sync.Once
	benchBin     string
	benchBinErr  error
)

// browsersOn lists the live processes whose command line names dir
// (Chromium and its helpers carry --user-data-dir=dir).
func browsersOn(dir string) []int {
	want := "--user-data-dir=" + dir
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if !strings.Contains(string(b), want) {
			continue
		}
		st, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			continue // dead, not reaped yet
		}
		pids = append(pids, pid)
	}
	return pids
}

// waitNoBrowsers waits (at most bound) until no process uses dir and
// returns how long that took.
func waitNoBrowsers(t testing.TB, dir string, bound time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		left := browsersOn(dir)
		if len(left) == 0 {
			return time.Since(start)
		}
		if time.Since(start) > bound {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("%d browser processes still use the profile %s after the parent died: %v", len(left), bound, left)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// lifeHome is a fresh $RPA_HOME; once the test's processes are stopped
// (cleanups run last-registered first) it waits until no browser uses it,
// before the folder is removed.
func lifeHome(tb testing.TB) string {
	home := tb.TempDir()
	tb.Cleanup(func() { waitNoBrowsers(tb, home, 20*time.Second) })
	return home
}

// waitGone waits (hang guard 30 s) until process pid has exited and been
// reaped (serveHTTP's goroutine waits for it).
func waitGone(tb testing.TB, pid int) {
	tb.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			tb.Fatalf("process %d did not exit", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func needLinux(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if _, err := rodd.FindBrowser(""); err != nil {
		t.Skip(err)
	}
}

// startRun starts `rpa run FLOW --profile work` under home.
func startRun(t *testing.T, home, flow string, extra ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(rpaBin(t), append([]string{"run", flow, "--profile", "work"}, extra...)...)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, &errb
}

// runQuick runs quick.flow on profile work under home and wants success.
func runQuick(t *testing.T, home, flows string) {
	t.Helper()
	cmd := exec.Command(rpaBin(t), "run", filepath.Join(flows, "quick.flow"), "--profile", "work", "--json")
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"heading": "alive"`) {
		t.Fatalf("a run on the profile afterwards failed (%v):\n%s", err, out)
	}
}

// TestKill9RunLeavesNoBrowser: after kill -9 of `rpa run`, no Chromium of
// its profile is left, and the next run on that profile works.
func TestKill9RunLeavesNoBrowser(t *testing.T) {
	needLinux(t)
	site, hits := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	profile := filepath.Join(home, "profiles", "work")
	cmd, _ := startRun(t, home, filepath.Join(flows, "hold.flow"))
	waitFor(t, "the page to be opened", func() bool { return hits.Load() > 0 })
	if n := len(browsersOn(profile)); n == 0 {
		t.Fatal("expected Chromium's processes on the profile, found none")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	took := waitNoBrowsers(t, profile, 10*time.Second)
	t.Logf("kill -9 of rpa run -> no Chromium left: %d ms", took.Milliseconds())
	runQuick(t, home, flows)
}

// TestOrphanBrowserEndedAtStart: a Chromium left running on the profile
// by an rpa that could not take it down (it holds Chromium's
// SingletonLock) is ended by the next run, which then works.
func TestOrphanBrowserEndedAtStart(t *testing.T) {
	needLinux(t)
	site, _ := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	profile := filepath.Join(home, "profiles", "work")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	bin, _ := rodd.FindBrowser("")
	orphan := exec.Command(bin, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+profile, "--remote-debugging-port=0", "about:blank")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	reaped := make(chan struct{})
	go func() { _ = orphan.Wait(); close(reaped) }()
	t.Cleanup(func() { _ = syscall.Kill(-orphan.Process.Pid, syscall.SIGKILL); <-reaped })
	waitFor(t, "the orphan's SingletonLock", func() bool {
		_, err := os.Lstat(filepath.Join(profile, "SingletonLock"))
		return err == nil
	})
	runQuick(t, home, flows)
	select {
	case <-reaped:
	case <-time.After(10 * time.Second):
		t.Fatal("the orphan browser is still running")
	}
	waitNoBrowsers(t, profile, 10*time.Second)
}

// TestProfileInUseByAnotherRun: a second `rpa run` on a profile another
// rpa process is using for a run is refused with exit 1 (README: a profile
// in use; it was 2, bad usage) and a message naming that process, never
// Chromium's own stderr; with --profile-wait it waits for the run, which
// keeps the profile (a busy profile is never handed over), and says how
// long it waited.
func TestProfileInUseByAnotherRun(t *testing.T) {
	needLinux(t)
	site, hits := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	first, _ := startRun(t, home, filepath.Join(flows, "hold.flow"))
	waitFor(t, "the first run's page", func() bool { return hits.Load() > 0 })
	want := fmt.Sprintf("profile work is in use by rpa (pid %d)", first.Process.Pid)
	for _, wait := range []string{"0", "1s"} {
		cmd := exec.Command(rpaBin(t), "run", filepath.Join(flows, "quick.flow"), "--profile", "work", "--profile-wait", wait)
		cmd.Env = append(os.Environ(), "RPA_HOME="+home)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != 1 || !strings.Contains(string(out), want) {
			t.Fatalf("second run (--profile-wait %s): exit %d, output:\n%s\nwant exit 1 and %q", wait, code, out, want)
		}
		if waited := strings.Contains(string(out), "; waited"); waited != (wait != "0") {
			t.Errorf("--profile-wait %s: output says it waited: %v:\n%s", wait, waited, out)
		}
		if strings.Contains(string(out), "Singleton") || strings.Contains(string(out), "exited at start") {
			t.Fatalf("Chromium's stderr reached the user:\n%s", out)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "profiles", "work", profiles.WantedDirName)); len(ents) != 0 {
		t.Errorf("the waiters left their markers: %v", ents)
	}
}

// TestRunWaitsForKilledHolder: `rpa run` waiting for a profile another
// `rpa run` holds takes it as soon as that holder is killed (kill -9: the
// kernel drops its lock, which the waiter hears of), and runs.
func TestRunWaitsForKilledHolder(t *testing.T) {
	needLinux(t)
	site, hits := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	first, _ := startRun(t, home, filepath.Join(flows, "hold.flow"))
	waitFor(t, "the first run's page", func() bool { return hits.Load() > 0 })
	cmd := exec.Command(rpaBin(t), "run", filepath.Join(flows, "quick.flow"), "--profile", "work", "--profile-wait", "5m", "--json")
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(home, "profiles", "work", profiles.WantedDirName, strconv.Itoa(cmd.Process.Pid))
	waitFor(t, "the waiter's marker", func() bool { _, err := os.Stat(marker); return err == nil })
	_ = first.Process.Kill()
	if err := cmd.Wait(); err != nil || !strings.Contains(out.String(), `"heading": "alive"`) {
		t.Fatalf("the waiting run after its holder died: %v\n%s", err, &out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the waiter left its marker")
	}
}

// serveHTTP starts `rpa serve --http 127.0.0.1:0` on flows under home and
// returns the process and its MCP endpoint.
func serveHTTP(t testing.TB, home, flows string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(lifeBin(t), "serve", "--http", "127.0.0.1:0", "--flows", flows)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home, "RPA_TOKEN=")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		// Gracefully (the pool closes its browsers), then for sure; the
		// browsers are gone before home is removed.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		sent := false
		for sc.Scan() {
			if l := sc.Text(); !sent && strings.Contains(l, "listening on http://") {
				lines <- l[strings.Index(l, "http://"):]
				sent = true
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
	}()
	select {
	case u := <-lines:
		return cmd, strings.TrimSuffix(u, "/") + "/mcp"
	case <-time.After(60 * time.Second):
		t.Fatal("rpa serve did not say where it listens")
	}
	return nil, ""
}

// callQuick calls workflow_quick on profile work over Streamable HTTP.
func callQuick(t *testing.T, endpoint string) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "life-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_quick", Arguments: map[string]any{"profileId": "work"}})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return res
}

// TestKill9ServeLeavesNoBrowser: kill -9 of `rpa serve` with a warm
// browser leaves no Chromium; a restarted server on the same home serves
// the profile again.
func TestKill9ServeLeavesNoBrowser(t *testing.T) {
	needLinux(t)
	site, _ := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	profile := filepath.Join(home, "profiles", "work")
	srv, endpoint := serveHTTP(t, home, flows)
	if res := callQuick(t, endpoint); res.IsError {
		t.Fatalf("first call failed: %+v", res.Content)
	}
	if len(browsersOn(profile)) == 0 {
		t.Fatal("no warm browser after the call")
	}
	_ = srv.Process.Signal(syscall.SIGKILL)
	waitGone(t, srv.Process.Pid)
	took := waitNoBrowsers(t, profile, 10*time.Second)
	t.Logf("kill -9 of rpa serve -> no Chromium left: %d ms", took.Milliseconds())
	_, endpoint = serveHTTP(t, home, flows)
	if res := callQuick(t, endpoint); res.IsError {
		t.Fatalf("call after restart failed: %+v", res.Content[0])
	}
}

// holdCall calls workflow_hold and reports its result (or error) on the
// returned channel; it returns once the page was opened.
func holdCall(t *testing.T, cs *mcp.ClientSession, hits *atomic.Int32, args map[string]any) <-chan any {
	t.Helper()
	got := make(chan any, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_hold", Arguments: args})
		if err != nil {
			got <- err
			return
		}
		got <- res
	}()
	waitFor(t, "the flow to open its page", func() bool { return hits.Load() > 0 })
	return got
}

// wantCancelledAnswer waits (hang guard 60 s) for the call's answer and
// checks it is the cancelled result; it returns how long it took.
func wantCancelledAnswer(t *testing.T, got <-chan any, from time.Time) time.Duration {
	t.Helper()
	select {
	case v := <-got:
		took := time.Since(from)
		res, ok := v.(*mcp.CallToolResult)
		if !ok {
			t.Fatalf("the call got no answer: %v", v)
		}
		var text string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				text += tc.Text
			}
		}
		if !res.IsError || !strings.Contains(text, `"cancelled"`) {
			t.Fatalf("answer after the signal: isError=%v %s; want the cancelled result", res.IsError, text)
		}
		return took
	case <-time.After(60 * time.Second):
		t.Fatal("no answer within 60s of the signal")
	}
	return 0
}

// TestSigtermStdioAnswersCancelled: SIGTERM to `rpa serve --stdio` during
// a call cancels the flow and writes its cancelled result before exit
// (read by the Go SDK client); the exit code is 0.
func TestSigtermStdioAnswersCancelled(t *testing.T) {
	needLinux(t)
	site, hits := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	cmd := exec.Command(rpaBin(t), "serve", "--stdio", "--flows", flows)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "life-test", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := holdCall(t, cs, hits, map[string]any{"profileId": "work"})
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	took := wantCancelledAnswer(t, got, sent)
	t.Logf("SIGTERM -> cancelled answer read over stdio: %d ms", took.Milliseconds())
	waitNoBrowsers(t, filepath.Join(home, "profiles", "work"), 30*time.Second)
}

// TestSigtermConnectAnswersCancelled: the same for `rpa connect`: the
// cancelled result reaches the agent through the gateway.
func TestSigtermConnectAnswersCancelled(t *testing.T) {
	needLinux(t)
	site, hits := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	_, addr := startGatewayProc(t, home, "127.0.0.1:0")
	desk := startProc(t, home, "connect", "ws://"+addr+"/ws", "--device-id", "pc1", "--token", linkToken, "--flows", flows)
	waitDevice(t, addr, "pc1", "workflow_hold")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "life-test", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/mcp", HTTPClient: &http.Client{Transport: bearerRT{}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := holdCall(t, cs, hits, map[string]any{"profileId": "work"})
	sent := time.Now()
	desk.signal(syscall.SIGTERM)
	took := wantCancelledAnswer(t, got, sent)
	t.Logf("SIGTERM -> cancelled answer through rpa connect and the gateway: %d ms", took.Milliseconds())
	if code := desk.waitExit(t, 30*time.Second); code != 0 {
		t.Errorf("rpa connect after SIGTERM: exit %d\n%s", code, desk.log())
	}
}

// TestRunSecretURLLeavesNoTrace: after `rpa run` opened an address holding
// a secret param on a persistent profile, no file of the profile folder
// holds the secret; a temporary profile is gone.
func TestRunSecretURLLeavesNoTrace(t *testing.T) {
	needLinux(t)
	site, _ := lifeSite(t)
	dir := t.TempDir()
	flow := filepath.Join(dir, "leak.flow")
	src := "flow leak \"Open an address holding a token\"\n\nparam token: secret \"API token\"\n\n" +
		"open \"" + site + "/account?token={{ token }}\"\nopen \"" + site + "/after\"\n"
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	const secret = "Zq8-7f3a9-zebra-42"
	home := lifeHome(t)
	for _, profile := range []string{"work", ""} {
		args := []string{"run", flow, "--arg", "token=" + secret}
		if profile != "" {
			args = append(args, "--profile", profile)
		}
		cmd := exec.Command(rpaBin(t), args...)
		cmd.Env = append(os.Environ(), "RPA_HOME="+home)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("rpa %v: %v\n%s", args, err, out)
		}
	}
	var hits []string
	_ = filepath.Walk(home, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(secret)) {
				hits = append(hits, path)
			}
		}
		return nil
	})
	if len(hits) > 0 {
		t.Fatalf("the secret is at rest in %v", hits)
	}
	if _, err := os.Stat(filepath.Join(home, "profiles", "work", "Default", "History")); err != nil {
		t.Errorf("the persistent profile lost its History: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(home, "tmp")); len(ents) != 0 {
		t.Errorf("temporary profiles left: %d", len(ents))
	}
}

// TestTwoServersOneHome: two `rpa serve` on one $RPA_HOME share a
// profile by handing over its idle warm browser: the second server's call
// on the profile the first keeps open asks for it, the first closes its
// browser and lets the profile go, the second runs; then the first's next
// call takes it back the same way, and so does an `rpa run` (tester
// finding: every such call was -32004 "profile work is in use by rpa (pid
// N)" for the first server's --idle time). A call that holds the profile
// keeps it: a run asking for it meanwhile waits in vain (exit 1).
func TestTwoServersOneHome(t *testing.T) {
	needLinux(t)
	site, hits := lifeSite(t)
	flows := lifeFlows(t, site)
	home := lifeHome(t)
	first, endpoint := serveHTTP(t, home, flows)
	if res := callQuick(t, endpoint); res.IsError {
		t.Fatalf("first server's call failed: %+v", res.Content)
	}
	second, endpoint2 := serveHTTP(t, home, flows)
	lock := filepath.Join(home, "profiles", "work", profiles.LockFileName)
	holder := func() int { pid, _ := profiles.Holder(filepath.Dir(lock)); return pid }
	if pid := holder(); pid != first.Process.Pid {
		t.Fatalf("profile work is held by pid %d, want the first server %d", pid, first.Process.Pid)
	}
	for i, ep := range []string{endpoint2, endpoint, endpoint2} {
		if res := callQuick(t, ep); res.IsError {
			t.Fatalf("call %d after the other server's: %+v", i+1, res.Content)
		}
		want := []int{second.Process.Pid, first.Process.Pid, second.Process.Pid}[i]
		if pid := holder(); pid != want {
			t.Fatalf("after call %d profile work is held by pid %d, want %d", i+1, pid, want)
		}
	}
	runQuick(t, home, flows) // the second server hands it to `rpa run`
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "life-test", Version: "1"}, nil).
		Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_quick", Arguments: map[string]any{"profileId": "other"}})
	if err != nil || res.IsError {
		t.Fatalf("another profile on the first server: %v %+v", err, res)
	}
	// A call holding the profile is never taken from.
	before := hits.Load()
	holdCtx, holdEnd := context.WithCancel(ctx)
	held := make(chan struct{})
	go func() {
		defer close(held)
		_, _ = cs.CallTool(holdCtx, &mcp.CallToolParams{Name: "workflow_hold", Arguments: map[string]any{"profileId": "work"}})
	}()
	defer func() { holdEnd(); <-held }()
	waitFor(t, "the held call's page", func() bool { return hits.Load() > before })
	cmd := exec.Command(rpaBin(t), "run", filepath.Join(flows, "quick.flow"), "--profile", "work", "--profile-wait", "1s")
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	out, err := cmd.CombinedOutput()
	want := fmt.Sprintf("profile work is in use by rpa (pid %d); waited", first.Process.Pid)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), want) {
		t.Fatalf("a run on a profile a call holds: %v\n%s\nwant exit 1 and %q", err, out, want)
	}
}

// TestRunRemovesTempScreenshots: a screenshot without path: (written to
// the temp folder) is removed after the run; one with path: is kept.
func TestRunRemovesTempScreenshots(t *testing.T) {
	needLinux(t)
	site, _ := lifeSite(t)
	dir := t.TempDir()
	flow := filepath.Join(dir, "shots.flow")
	src := "flow shots \"Take two screenshots\"\n\nparam dir: string \"Where to keep one\"\n\n" +
		"open \"" + site + "/\"\nscreenshot\nscreenshot path: \"{{ dir }}/keep.png\"\n"
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	cmd := exec.Command(rpaBin(t), "run", flow, "--arg", "dir="+dir, "--json")
	cmd.Env = append(os.Environ(), "RPA_HOME="+lifeHome(t), "TMPDIR="+tmp)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rpa run: %v\n%s", err, out)
	}
	var res struct {
		Results []struct {
			Action string `json:"action"`
			Output any    `json:"output"`
		} `json:"results"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatal(err)
	}
	var temp string
	for _, r := range res.Results {
		if p, ok := r.Output.(string); ok && r.Action == "screenshot" && strings.HasPrefix(p, tmp) {
			temp = p
		}
	}
	if temp == "" {
		t.Fatalf("no screenshot in the temp folder among the results:\n%s", out)
	}
	if _, err := os.Stat(temp); !os.IsNotExist(err) {
		t.Errorf("the temp screenshot %s is still there: %v", temp, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "keep.png")); err != nil {
		t.Errorf("the screenshot with path: was removed: %v", err)
	}
}
