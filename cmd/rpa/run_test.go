package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-rod/rod"
	"github.com/go-rod/rod/lib/launcher"

	"github.com/rpa-dev/rpa/drivers"
	rodd "github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/demoapp"
)

// End-to-end tests of `rpa run` and `rpa demo`: the built binary, real
// headless Chromium, the demo app served by the test.

var (
	runBinOnce sync.Once
	runBin     string
	runBinErr  error
)

// rpaBin builds the rpa binary once per test process.
func rpaBin(t *testing.T) string {
	t.Helper()
	runBinOnce.Do(func() {
		dir, err := binDir("rpa-run-bin-")
		if err != nil {
			runBinErr = err
			return
		}
		runBin = filepath.Join(dir, "rpa")
		out, err := exec.Command("go", "build", "-o", runBin, ".").CombinedOutput()
		if err != nil {
			runBinErr = &buildError{string(out)}
		}
	})
	if runBinErr != nil {
		t.Fatalf("build rpa: %v", runBinErr)
	}
	return runBin
}

// The password of the test app: distinctive, so a leak is easy to find.
const testPassword = "Pw-7f3a9-zebra"

var (
	appOnce sync.Once
	appURL  string
)

// demoURL serves one demo app (short delay, test password) for the package.
func demoURL(t *testing.T) string {
	t.Helper()
	appOnce.Do(func() {
		s, err := demoapp.Start(demoapp.Options{Delay: 50 * time.Millisecond, Password: testPassword})
		if err != nil {
			t.Fatalf("demo app: %v", err)
		}
		appURL = s.URL // lives until the test process ends
	})
	if appURL == "" {
		t.Fatal("demo app did not start")
	}
	return appURL
}

type runOut struct {
	code           int
	stdout, stderr string
	home           string // the RPA_HOME of the run
}

// rpaRun runs the binary with args under a fresh RPA_HOME and stdin from
// /dev/null, and waits (at most 90s).
func rpaRun(t *testing.T, args ...string) runOut {
	t.Helper()
	cmd, home, out, errb := rpaCmd(t, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return waitRun(t, cmd, home, out, errb)
}

func rpaCmd(t *testing.T, args ...string) (*exec.Cmd, string, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(rpaBin(t), args...)
	cmd.Env = append(os.Environ(), "RPA_HOME="+home)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	return cmd, home, &out, &errb
}

func waitRun(t *testing.T, cmd *exec.Cmd, home string, out, errb *bytes.Buffer) runOut {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("rpa %v did not finish in 90s; stderr:\n%s", cmd.Args[1:], errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return runOut{code: code, stdout: out.String(), stderr: errb.String(), home: home}
}

// result is the part of WorkflowExecutionResult the tests read.
type result struct {
	Success          bool `json:"success"`
	TotalActions     int  `json:"totalActions"`
	CompletedActions int  `json:"completedActions"`
	Results          []struct {
		Action string `json:"action"`
		Status string `json:"status"`
		Line   int    `json:"line"`
	} `json:"results"`
	Outputs map[string]any `json:"outputs"`
	Error   *struct {
		Message string `json:"message"`
		Line    int    `json:"line"`
		Code    int    `json:"code"`
		Kind    string `json:"kind"`
	} `json:"error"`
	DurationMs int64 `json:"durationMs"`
}

func decode(t *testing.T, r runOut) result {
	t.Helper()
	var res result
	var raw map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &raw); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\nstdout:\n%s\nstderr:\n%s", err, r.stdout, r.stderr)
	}
	for _, k := range []string{"success", "totalActions", "completedActions", "failedActions", "results", "outputs", "error", "durationMs"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("result JSON lacks %q", k)
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// noSecret fails when the password shows anywhere in the output.
func noSecret(t *testing.T, r runOut) {
	t.Helper()
	if strings.Contains(r.stdout, testPassword) || strings.Contains(r.stderr, testPassword) {
		t.Errorf("the secret leaked:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// tmpProfilesGone fails when a temporary profile was left under RPA_HOME.
func tmpProfilesGone(t *testing.T, home string) {
	t.Helper()
	ents, _ := os.ReadDir(filepath.Join(home, "tmp"))
	if len(ents) != 0 {
		t.Errorf("temporary profiles left behind: %v", ents)
	}
}

const refFlow = "../../flows/query_power_data.flow"

func TestRunReferenceFlow(t *testing.T) {
	base := demoURL(t)
	r := rpaRun(t, "run", refFlow, "--arg", "username=admin", "--arg", "password="+testPassword,
		"--arg", "base_url="+base, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("--json wrote to stderr:\n%s", r.stderr)
	}
	res := decode(t, r)
	if !res.Success || res.Error != nil {
		t.Fatalf("success %v, error %+v", res.Success, res.Error)
	}
	want := demoapp.Records("110000")[:50]
	rows, _ := res.Outputs["rows"].([]any)
	if len(rows) != len(want) || res.Outputs["count"] != float64(len(want)) {
		t.Fatalf("got %d rows (count %v), want %d", len(rows), res.Outputs["count"], len(want))
	}
	for i, w := range want {
		row, _ := rows[i].(map[string]any)
		if row["date"] != w.Date || row["kWh"] != w.KWh || row["region"] != w.Region || row["cost"] != w.Cost {
			t.Fatalf("row %d = %v, want %+v", i, row, w)
		}
	}
	// The rows' keys in the page's column order (interp.Row), not sorted.
	if !strings.Contains(r.stdout, `"date": "`+want[0].Date+`",`) || !regexp.MustCompile(`"date": "[^"]*",\s*"region": "[^"]*",\s*"kWh": "[^"]*",\s*"peak"`).MatchString(r.stdout) {
		t.Errorf("rows not in the page's column order:\n%.600s", r.stdout)
	}
	// open, fill, fill, click, wait, select, click, table.
	if res.TotalActions != 8 || res.CompletedActions != 8 || len(res.Results) != 8 {
		t.Errorf("actions: total %d, completed %d, results %d; want 8", res.TotalActions, res.CompletedActions, len(res.Results))
	}
	// the record beside the result: runId and the report's path, in this home
	var rec struct {
		RunID  string `json:"runId"`
		Report string `json:"report"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || rec.RunID == "" ||
		rec.Report != filepath.Join(r.home, "runs", rec.RunID, "report.html") {
		t.Errorf("runId %q, report %q (err %v); want the run's record under %s", rec.RunID, rec.Report, err, r.home)
	} else if _, err := os.Stat(rec.Report); err != nil {
		t.Errorf("report: %v", err)
	}
	noSecret(t, r)
	tmpProfilesGone(t, r.home)
}

func TestRunFlowFails(t *testing.T) {
	base := demoURL(t)
	r := rpaRun(t, "run", refFlow, "--arg", "username=admin", "--arg", "password="+testPassword,
		"--arg", "base_url="+base, "--arg", "region=000000", "--json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	res := decode(t, r)
	if res.Success || res.Error == nil {
		t.Fatalf("success %v, error %+v", res.Success, res.Error)
	}
	if res.Error.Kind != "fail" || res.Error.Code != -32002 || res.Error.Line != 21 || res.Error.Message != "no data for region 000000" {
		t.Errorf("error %+v", *res.Error)
	}
	noSecret(t, r)

	// The same failure in text form: the summary and the positioned error.
	r = rpaRun(t, "run", refFlow, "--arg", "username=admin", "--arg", "password="+testPassword,
		"--arg", "base_url="+base, "--arg", "region=000000")
	if r.code != 1 {
		t.Fatalf("text: exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"FAILED  query_power_data: 8 actions (8 ok)",
		"flows/query_power_data.flow:21: fail: no data for region 000000"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	if r.stdout != "" {
		t.Errorf("a failed flow without outputs printed %q", r.stdout)
	}
	noSecret(t, r)
}

func TestRunTextOutputMasksSecrets(t *testing.T) {
	base := demoURL(t)
	r := rpaRun(t, "run", "testdata/run/secret.flow", "--arg", "password="+testPassword, "--arg", "base_url="+base)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	noSecret(t, r)
	var out map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("stdout is not the outputs JSON: %v\n%s", err, r.stdout)
	}
	form, _ := out["form"].(map[string]any)
	if strings.Contains(r.stdout+r.stderr, strings.ToUpper(testPassword)) {
		t.Errorf("a value derived from the secret leaked:\n%s\n%s", r.stdout, r.stderr)
	}
	if out["typed"] != "***" || out["read"] != "***" || out["upper"] != "***" || form["password"] != "***" || form["username"] != "admin" {
		t.Errorf("outputs %v, want every secret as ***", out)
	}
	// The log line is masked: the secret part, or (when interp masks
	// values derived from a secret whole) the entire line.
	if !strings.Contains(r.stderr, "log: the password is ***") && !strings.Contains(r.stderr, "log: ***\n") {
		t.Errorf("the log line is not masked:\n%s", r.stderr)
	}
	for _, want := range []string{"fill      #password", "ok  secret_echo: 5 actions (5 ok)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// Bad input is exit 2 and names the culprit, before any browser starts
// (--browser-bin points nowhere: a launch would fail with another message).
func TestRunBadInput(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"missing required", []string{refFlow, "--arg", "username=admin"},
			[]string{`argument "password": required secret param is missing`}},
		{"unknown param", []string{refFlow, "--arg", "username=a", "--arg", "password=" + testPassword, "--arg", "nope=1"},
			[]string{`argument "nope": no such param`}},
		{"bad int", []string{"testdata/run/typed.flow", "--arg", "n=x"},
			[]string{`argument "n": want an integer, got "x"`}},
		{"bad enum", []string{"testdata/run/typed.flow", "--arg", "n=1", "--arg", "mode=warp"},
			[]string{`argument "mode"`}},
		{"bad list", []string{"testdata/run/typed.flow", "--arg", "n=1", "--arg", "tags=[1,"},
			[]string{`argument "tags"`}},
		{"malformed --arg", []string{refFlow, "--arg", "username"},
			[]string{`want NAME=VALUE`}},
		{"check errors", []string{"testdata/run/broken.flow"},
			[]string{"testdata/run/broken.flow:3:1: error: unknown action \"clik\"", `did you mean "click"?`, "nothing was run"}},
		{"no file", []string{}, []string{"which flow?"}},
		{"two files", []string{refFlow, refFlow}, []string{"one FILE at a time"}},
		{"not a flow", []string{"run.go"}, []string{"not a flow file"}},
		{"missing file", []string{"testdata/run/nope.flow"}, []string{"no such file"}},
		{"bad profile", []string{refFlow, "--arg", "username=a", "--arg", "password=b", "--profile", "../x"}, []string{`profile "../x"`}},
		{"bad flag", []string{refFlow, "--frobnicate"}, []string{"flag provided but not defined"}},
		{"bad --hitl", []string{refFlow, "--arg", "username=a", "--arg", "password=b", "--hitl", "pigeon"},
			[]string{`--hitl: unknown channel "pigeon"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--browser-bin", "/nonexistent/chromium"}, tc.args...)
			r := rpaRun(t, args...)
			if r.code != 2 {
				t.Fatalf("exit %d, want 2\nstderr:\n%s", r.code, r.stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, r.stderr)
				}
			}
			if strings.Contains(r.stderr, "browser could not be started") || r.stdout != "" {
				t.Errorf("something ran:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
			noSecret(t, r)
		})
	}
}

func TestRunArgsFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "args.json")
	if err := os.WriteFile(p, []byte(`{"n": 41, "ratio": 1.25, "on": true, "tags": ["a", "b", "c"], "mode": "slow"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := rpaRun(t, "run", "testdata/run/typed.flow", "--args", p, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	got := decode(t, r).Outputs
	want := map[string]any{"n": 42.0, "ratio": 2.5, "on": false, "tags": 3.0, "mode": "slow"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("outputs[%s] = %v, want %v", k, got[k], v)
		}
	}
	// --arg overrides the file; a JSON value of the wrong type is refused.
	r = rpaRun(t, "run", "testdata/run/typed.flow", "--args", p, "--arg", "n=1", "--json")
	if r.code != 0 || decode(t, r).Outputs["n"] != 2.0 {
		t.Errorf("--arg over --args: exit %d, stdout %s", r.code, r.stdout)
	}
	bad := filepath.Join(dir, "bad.json")
	_ = os.WriteFile(bad, []byte(`{"n": "many"}`), 0o600)
	if r := rpaRun(t, "run", "testdata/run/typed.flow", "--args", bad); r.code != 2 || !strings.Contains(r.stderr, `argument "n"`) {
		t.Errorf("bad JSON type: exit %d, stderr %s", r.code, r.stderr)
	}
	_ = os.WriteFile(bad, []byte(`[1]`), 0o600)
	if r := rpaRun(t, "run", "testdata/run/typed.flow", "--args", bad); r.code != 2 || !strings.Contains(r.stderr, "--args") {
		t.Errorf("not an object: exit %d, stderr %s", r.code, r.stderr)
	}
}

// Ctrl-C cancels the run: exit 130, the partial result is printed.
func TestRunCancelled(t *testing.T) {
	// A page that reports its DOMContentLoaded to the server, so the test
	// knows `open` is done and the flow is in its long sleep.
	loaded := make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/loaded" {
			once.Do(func() { close(loaded) })
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>slow</title><p>hello</p>
<script>document.addEventListener("DOMContentLoaded", () => fetch("/loaded"));</script>`)
	}))
	defer srv.Close()
	cmd, home, out, errb := rpaCmd(t, "run", "testdata/run/slow.flow", "--arg", "base_url="+srv.URL, "--json")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-loaded:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the flow never opened its page")
	}
	time.Sleep(time.Second) // open returns right after DOMContentLoaded
	start := time.Now()
	_ = cmd.Process.Signal(syscall.SIGINT)
	r := waitRun(t, cmd, home, out, errb)
	if r.code != 130 {
		t.Fatalf("exit %d, want 130\nstderr:\n%s", r.code, r.stderr)
	}
	if el := time.Since(start); el > 60*time.Second { // only a hang: the flow sleeps 2 minutes
		t.Errorf("took %v to stop after SIGINT", el)
	}
	res := decode(t, r)
	if res.Success || res.Error == nil || res.Error.Kind != "cancelled" {
		t.Fatalf("result %+v", res)
	}
	if len(res.Results) != 2 || res.Results[0].Action != "open" || res.Results[0].Status != "ok" || res.Results[1].Action != "sleep" {
		t.Errorf("partial results %+v, want open ok then the cancelled sleep", res.Results)
	}
	tmpProfilesGone(t, home)
}

func TestRunTimeout(t *testing.T) {
	base := demoURL(t)
	start := time.Now()
	r := rpaRun(t, "run", "testdata/run/slow.flow", "--arg", "base_url="+base, "--timeout", "8s")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	if el := time.Since(start); el > 60*time.Second { // only a hang: the flow sleeps 2 minutes
		t.Errorf("--timeout 8s ended the run after %v", el)
	}
	if !strings.Contains(r.stderr, "stopped by --timeout 8s") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}

func TestRunAskWithoutTerminal(t *testing.T) {
	base := demoURL(t)
	r := rpaRun(t, "run", "testdata/run/ask.flow", "--arg", "base_url="+base, "--json")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	res := decode(t, r)
	if res.Error == nil || !strings.Contains(res.Error.Message, "no terminal to ask on") {
		t.Errorf("error %+v", res.Error)
	}
}

func TestRunNamedProfileKept(t *testing.T) {
	base := demoURL(t)
	r := rpaRun(t, "run", "testdata/run/slow.flow", "--arg", "base_url="+base, "--profile", "work", "--timeout", "2s")
	if r.code != 1 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.home, "profiles", "work")); err != nil {
		t.Errorf("named profile folder: %v", err)
	}
	tmpProfilesGone(t, r.home)

	// Without --profile, the flow's `defaults profile:` is used.
	r = rpaRun(t, "run", "testdata/run/profiled.flow", "--arg", "base_url="+base)
	if r.code != 0 {
		t.Fatalf("profiled.flow: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.home, "profiles", "flowprof", "Default")); err != nil {
		t.Errorf("the flow's profile was not used: %v", err)
	}
	tmpProfilesGone(t, r.home)
}

func TestDemo(t *testing.T) {
	r := rpaRun(t, "demo", "--json", "--delay", "20ms")
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	res := decode(t, r)
	if !res.Success || res.Outputs["count"] != 50.0 {
		t.Errorf("success %v, count %v", res.Success, res.Outputs["count"])
	}
	if strings.Contains(r.stdout+r.stderr, demoapp.DemoPassword) {
		t.Error("the demo password leaked")
	}
	r = rpaRun(t, "demo", "--flow", "all_pages", "--region", "330100", "--delay", "0")
	if r.code != 0 {
		t.Fatalf("all_pages: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "75 rows") || !strings.Contains(r.stdout, "2026-08-14") ||
		!strings.Contains(r.stderr, "ok  all_pages:") {
		t.Errorf("demo output:\n%s\n%s", r.stdout, r.stderr)
	}
	if r := rpaRun(t, "demo", "--flow", "nope"); r.code != 2 || !strings.Contains(r.stderr, "query_power_data") {
		t.Errorf("unknown flow: exit %d, stderr %s", r.code, r.stderr)
	}
}

// --browser ws://... attaches to a running Chromium instead of launching,
// and leaves it running with the tab it used closed.
func TestRunRemoteBrowser(t *testing.T) {
	base := demoURL(t)
	bin, err := rodd.FindBrowser("")
	if err != nil {
		t.Skip(err)
	}
	args, err := rodd.Args(drivers.LaunchOptions{UserDataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// A browser the user started with a DevTools port (rpa's own launches
	// use a pipe and no port).
	cmd := exec.Command(bin, append(args, "--remote-debugging-port=0")...)
	ownGroup(cmd)
	parser := launcher.NewURLParser()
	cmd.Stderr = parser
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		killGroup(cmd.Process.Pid)
		_ = cmd.Wait()
	}()
	var ws string
	select {
	case u := <-parser.URL:
		if ws, err = launcher.ResolveURL(u); err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("chromium did not start")
	}
	for i := 0; i < 2; i++ { // twice: the browser survives the first run
		r := rpaRun(t, "run", refFlow, "--browser", ws, "--arg", "username=admin", "--arg", "password="+testPassword,
			"--arg", "base_url="+base, "--arg", "region=510100", "--json")
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\nstderr:\n%s", i, r.code, r.stderr)
		}
		if res := decode(t, r); res.Outputs["count"] != 30.0 {
			t.Errorf("run %d: count %v, want 30", i, res.Outputs["count"])
		}
		if ents, _ := os.ReadDir(filepath.Join(r.home, "tmp")); len(ents) != 0 {
			t.Errorf("a profile was made for a remote browser: %v", ents)
		}
	}
	// Only the initial tab is left.
	br := rod.New().ControlURL(ws)
	if err := br.Connect(); err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	pages, err := br.Pages()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		if info, err := p.Info(); err == nil && strings.Contains(info.URL, base) {
			t.Errorf("tab %s left open", info.URL)
		}
	}
}

// A browser that cannot start is exit 1 with the driver's reason; nothing
// is left under RPA_HOME.
func TestRunNoBrowser(t *testing.T) {
	r := rpaRun(t, "run", "--browser-bin", "/nonexistent/chromium", refFlow, "--arg", "username=admin",
		"--arg", "password="+testPassword)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "the browser could not be started") || !strings.Contains(r.stderr, "/nonexistent/chromium") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	noSecret(t, r)
	tmpProfilesGone(t, r.home)
}

// The other example flows run as well: `call` resolved in the flow's
// folder, the YAML form, and the pager loop.
func TestRunExampleFlows(t *testing.T) {
	base := demoURL(t)
	common := []string{"--arg", "username=admin", "--arg", "password=" + testPassword, "--arg", "base_url=" + base, "--json"}
	tests := []struct {
		file  string
		extra []string
		check func(out map[string]any) bool
	}{
		{"compare_regions.flow", []string{"--arg", "region_b=510100"}, func(out map[string]any) bool {
			a, _ := out["a"].(map[string]any)
			b, _ := out["b"].(map[string]any)
			return a["days"] == 50.0 && b["days"] == 30.0 && out["higher"] == "110000"
		}},
		{"region_total.yaml", nil, func(out map[string]any) bool {
			recs := demoapp.Records("330100")[:50]
			return out["rows"] == 50.0 && out["totalKWh"] == demoapp.Totals(recs).KWh &&
				strings.HasPrefix(out["caption"].(string), "杭州市 Hangzhou")
		}},
		{"all_pages.flow", []string{"--arg", "region=440300"}, func(out map[string]any) bool {
			return out["count"] == 40.0 && out["pages"] == 1.0
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			args := append([]string{"run", "../../flows/" + tc.file}, common...)
			r := rpaRun(t, append(args, tc.extra...)...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr:\n%s", r.code, r.stderr)
			}
			if out := decode(t, r).Outputs; !tc.check(out) {
				t.Errorf("outputs %v", out)
			}
			noSecret(t, r)
		})
	}
}

// exec is refused unless --allow-exec, and --exec-allow narrows it.
func TestRunExecPolicy(t *testing.T) {
	const flow = "testdata/run/exec.flow"
	r := rpaRun(t, "run", flow, "--json")
	if res := decode(t, r); r.code != 1 || res.Error == nil || res.Error.Kind != "exec_refused" {
		t.Errorf("without --allow-exec: exit %d, error %+v", r.code, res.Error)
	}
	r = rpaRun(t, "run", flow, "--allow-exec", "--json")
	if res := decode(t, r); r.code != 0 || res.Outputs["out"] != "hello from exec" || res.Outputs["code"] != 0.0 {
		t.Errorf("with --allow-exec: exit %d, outputs %v, stderr %s", r.code, res.Outputs, r.stderr)
	}
	r = rpaRun(t, "run", flow, "--allow-exec", "--exec-allow", "ls *", "--json")
	if res := decode(t, r); r.code != 1 || res.Error == nil || res.Error.Kind != "exec_refused" {
		t.Errorf("outside the allow-list: exit %d, error %+v", r.code, res.Error)
	}
	r = rpaRun(t, "run", flow, "--allow-exec", "--exec-allow", "echo *", "--json")
	if r.code != 0 {
		t.Errorf("inside the allow-list: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := rpaRun(t, "run", flow, "--exec-allow", "echo *"); r.code != 2 || !strings.Contains(r.stderr, "needs --allow-exec") {
		t.Errorf("--exec-allow alone: exit %d, stderr %s", r.code, r.stderr)
	}
}

// TestRunAllowsFiles: `rpa run` is the person at the terminal running their
// own flow: file: URLs stay allowed (served flows need --allow-files).
func TestRunAllowsFiles(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "page.txt")
	if err := os.WriteFile(page, []byte("my-own-file-77"), 0o644); err != nil {
		t.Fatal(err)
	}
	flow := filepath.Join(dir, "read.flow")
	src := "flow read\n\nparam url: string\n\nopen \"{{ url }}\"\nt = text \"body\"\nreturn t\n"
	if err := os.WriteFile(flow, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	r := rpaRun(t, "run", flow, "--arg", "url=file://"+page, "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, `"outputs": "my-own-file-77"`) {
		t.Errorf("stdout %s", r.stdout)
	}
}
