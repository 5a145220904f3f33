// Package e2e runs `rpa serve` against a third-party MCP client: the
// official TypeScript SDK (@modelcontextprotocol/sdk, pinned in
// package-lock.json), over stdio and over Streamable HTTP, driving the demo
// app (internal/demoapp) with the example flows of flows/.
//
// The tests skip with a message when node or node_modules is missing:
// run `npm ci` in e2e/ts (.ci/run does).
package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/demoapp"
)

const failsFlow = `flow fails "Opens the login page, then fails on purpose"

param base_url: string "Address of the demo app"

defaults retries: 0

open "{{ base_url }}/login"
fail "stopped on purpose"
`

// report is what client.mjs prints.
type report struct {
	Fatal               string   `json:"fatal"`
	NoTokenConnected    *bool    `json:"noTokenConnected"`
	Tools               []string `json:"tools"`
	DemoRequired        []string `json:"demoRequired"`
	DemoPasswordFormat  string   `json:"demoPasswordFormat"`
	DemoHasOutputSchema bool     `json:"demoHasOutputSchema"`
	CallIsError         bool     `json:"callIsError"`
	CallSuccess         bool     `json:"callSuccess"`
	CallCount           float64  `json:"callCount"`
	CallText            string   `json:"callText"`
	Progress            []string `json:"progress"`
	Table               struct {
		Headers []string   `json:"headers"`
		Rows    [][]string `json:"rows"`
	} `json:"table"`
	FailedIsError   bool    `json:"failedIsError"`
	FailedCode      float64 `json:"failedCode"`
	UnknownToolCode any     `json:"unknownToolCode"`
	BadArgsCode     any     `json:"badArgsCode"`
}

type fixture struct {
	bin, flows, home string
	app              *demoapp.Server
}

func setup(t *testing.T) *fixture {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the TypeScript client tests need Node.js (apt-get install nodejs npm)")
	}
	if _, err := os.Stat("node_modules/@modelcontextprotocol/sdk"); err != nil {
		t.Skip("e2e/ts/node_modules is absent: run `npm ci` in e2e/ts to install the TypeScript MCP client")
	}
	f := &fixture{home: t.TempDir(), flows: t.TempDir()}
	f.bin = filepath.Join(t.TempDir(), "rpa")
	build := exec.Command("go", "build", "-o", f.bin, "../../cmd/rpa")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, name := range []string{"query_power_data.flow", "compare_regions.flow", "region_total.yaml", "all_pages.flow"} {
		src, err := os.ReadFile(filepath.Join("..", "..", "flows", name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(f.flows, name), src, 0o644)
	}
	os.WriteFile(filepath.Join(f.flows, "fails.flow"), []byte(failsFlow), 0o644)
	app, err := demoapp.Start(demoapp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	f.app = app
	return f
}

func (f *fixture) env(extra ...string) []string {
	return append(os.Environ(), append([]string{"RPA_HOME=" + f.home, "SITE=" + f.app.URL,
		"USERNAME=" + demoapp.DemoUsername, "PASSWORD=" + demoapp.DemoPassword, "RPA_BIN=" + f.bin, "FLOWS=" + f.flows}, extra...)...)
}

func runClient(t *testing.T, env []string) *report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", "client.mjs")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r report
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		t.Fatalf("client output %q (%v): %v\n%s", out, err, jerr, stderr.String())
	}
	if r.Fatal != "" || err != nil {
		t.Fatalf("client failed: %v %s\n%s", err, r.Fatal, stderr.String())
	}
	return &r
}

func check(t *testing.T, r *report) {
	t.Helper()
	wantTools := []string{"browser_read", "hitl_prompt", "workflow_all_pages", "workflow_compare_regions", "workflow_fails",
		"workflow_query_power_data", "workflow_region_total"}
	if !slices.Equal(r.Tools, wantTools) {
		t.Errorf("tools = %v, want %v", r.Tools, wantTools)
	}
	if !slices.Equal(r.DemoRequired, []string{"username", "password"}) || r.DemoPasswordFormat != "password" || !r.DemoHasOutputSchema {
		t.Errorf("schema: required %v format %q output %v", r.DemoRequired, r.DemoPasswordFormat, r.DemoHasOutputSchema)
	}
	if r.CallIsError || !r.CallSuccess || r.CallCount < 1 {
		t.Errorf("demo call: isError %v success %v count %v: %s", r.CallIsError, r.CallSuccess, r.CallCount, r.CallText)
	}
	if strings.Contains(r.CallText, demoapp.DemoPassword) {
		t.Error("the password is in the result")
	}
	if len(r.Progress) < 8 || !regexp.MustCompile(`^1(/\d+)? open http`).MatchString(r.Progress[0]) {
		t.Errorf("progress = %q", r.Progress)
	}
	if len(r.Table.Headers) == 0 || len(r.Table.Rows) != int(r.CallCount) {
		t.Errorf("browser_read table: %d headers, %d rows (flow counted %v)", len(r.Table.Headers), len(r.Table.Rows), r.CallCount)
	}
	if !r.FailedIsError || r.FailedCode != -32002 {
		t.Errorf("failed flow: isError %v code %v", r.FailedIsError, r.FailedCode)
	}
	if r.UnknownToolCode != -32003.0 {
		t.Errorf("unknown tool code = %v, want -32003", r.UnknownToolCode)
	}
	if r.BadArgsCode != -32602.0 {
		t.Errorf("bad args code = %v, want -32602", r.BadArgsCode)
	}
}

// browserProcs counts live processes whose command line names a
// user-data folder under home (Linux /proc; 0 elsewhere).
func browserProcs(home string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "--user-data-dir="+home) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue
		}
		n++
	}
	return n
}

// noBrowserLeft fails when a browser of the fixture outlives `rpa serve`.
func noBrowserLeft(t *testing.T, f *fixture) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for browserProcs(f.home) > 0 {
		if time.Now().After(deadline) {
			t.Errorf("%d browser processes left after rpa serve ended", browserProcs(f.home))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestTypeScriptClientStdio(t *testing.T) {
	f := setup(t)
	r := runClient(t, f.env("MODE=stdio"))
	check(t, r)
	noBrowserLeft(t, f) // the client closed stdin: rpa serve shut down
}

// httpServe is `rpa serve --http` started by a test.
type httpServe struct {
	url    string
	cancel context.CancelFunc // SIGINT
	done   chan error         // its exit
	logs   *strings.Builder   // its stderr (complete once stop returned)
	logEnd chan struct{}
}

// serveHTTP starts `rpa serve --http 127.0.0.1:0` with extra args and
// waits for its address ("rpa serve: listening on http://ADDR/").
func (f *fixture) serveHTTP(t *testing.T, extra ...string) *httpServe {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, f.bin, append([]string{"serve", "--http", "127.0.0.1:0", "--flows", f.flows}, extra...)...)
	cmd.Env = f.env()
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	h := &httpServe{cancel: cancel, done: make(chan error, 1), logs: &strings.Builder{}, logEnd: make(chan struct{})}
	t.Cleanup(func() { h.stop(t) })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		h.logs.WriteString(sc.Text() + "\n")
		if u, ok := strings.CutPrefix(sc.Text(), "rpa serve: listening on "); ok {
			h.url = u
			break
		}
	}
	go func() {
		for sc.Scan() {
			h.logs.WriteString(sc.Text() + "\n")
		}
		close(h.logEnd)
		h.done <- cmd.Wait()
	}()
	if h.url == "" {
		t.Fatalf("rpa serve did not print its address:\n%s", h.logs.String())
	}
	return h
}

// stop sends SIGINT and waits (10 s at most) for the process to end; its
// log is complete after.
func (h *httpServe) stop(t *testing.T) {
	h.cancel()
	select {
	case <-h.logEnd:
	case <-time.After(10 * time.Second):
		t.Error("rpa serve did not stop within 10s of SIGINT")
	}
}

func TestTypeScriptClientHTTP(t *testing.T) {
	f := setup(t)
	srv := f.serveHTTP(t, "--token", "tok-e2e")
	r := runClient(t, f.env("MODE=http", "URL="+srv.url, "TOKEN=tok-e2e"))
	if r.NoTokenConnected == nil || *r.NoTokenConnected {
		t.Error("a client without the token connected")
	}
	check(t, r)
	srv.stop(t)
	noBrowserLeft(t, f)
}
