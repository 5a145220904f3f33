package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/rod"
	"github.com/rpa-dev/rpa/internal/host/profiles"
	"github.com/rpa-dev/rpa/interp"
)

var allFlows = []string{"demo_query.flow", "fails.flow", "slow.flow", "hit.flow", "fill_only.flow", "calls_hit.flow"}

func demoArgs(base string) map[string]any {
	return map[string]any{"base_url": base, "username": siteUser, "password": sitePass, "region": "north"}
}

// TestWorkflowInMemory drives the demo flow end to end through the SDK's
// client over in-memory transports, then reads the page it left.
func TestWorkflowInMemory(t *testing.T) {
	st := newSite(t)
	pool := newPool(t)
	s, logs := newServer(t, Options{FlowsDir: copyFlows(t, allFlows...), Pool: pool})
	cs, ev := connect(t, s)
	ctx := context.Background()

	// tools/list: every flow plus the built-ins, schemas as PROTOCOL.md.
	lt, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	var demo *mcp.Tool
	for _, tl := range lt.Tools {
		names = append(names, tl.Name)
		if tl.Name == "workflow_demo_query" {
			demo = tl
		}
	}
	want := []string{"browser_read", "hitl_prompt", "workflow_calls_hit", "workflow_demo_query", "workflow_fails", "workflow_fill_only", "workflow_hit", "workflow_slow"}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	if !slices.Equal(s.ToolNames(), want) {
		t.Fatalf("ToolNames = %v", s.ToolNames())
	}
	in := mustJSON(demo.InputSchema) // keys sorted by the round trip
	for _, frag := range []string{`"required":["base_url","username","password"]`, `"password":{"description":"Login password","format":"password","type":"string","writeOnly":true}`,
		`"region":{"default":"north","description":"Region to query","enum":["north","south"],"type":"string"}`,
		`"profileId":{"description":"Browser profile ID (optional override)","type":"string"}`} {
		if !strings.Contains(in, frag) {
			t.Errorf("inputSchema lacks %s:\n%s", frag, in)
		}
	}
	if demo.OutputSchema == nil || demo.Description != "Log in to the test site and read the data table of a region" {
		t.Errorf("demo tool: %+v", demo)
	}

	// tools/call with a progress token.
	params := &mcp.CallToolParams{Name: "workflow_demo_query", Arguments: demoArgs(st.URL)}
	params.SetProgressToken("p1")
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(t, res)
	if res.IsError {
		t.Fatalf("flow failed: %s", text)
	}
	m := structured(t, res)
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text), &fromText); err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(m), mustJSON(fromText); a != b {
		t.Errorf("structuredContent and text differ:\n%s\n%s", a, b)
	}
	if m["success"] != true || m["totalActions"] != 8.0 || m["completedActions"] != 8.0 || m["error"] != nil {
		t.Errorf("result: %s", text)
	}
	out, _ := m["outputs"].(map[string]any)
	if out["count"] != 3.0 {
		t.Errorf("outputs = %v", m["outputs"])
	}
	if strings.Contains(text, sitePass) {
		t.Error("the secret is in the result")
	}

	// One progress notification per action, "n/8 action target".
	waitUntil(t, func() bool { return len(ev.progressMessages()) >= 8 })
	msgs := ev.progressMessages()
	// The total is known only for bodies without control statements
	// (interp decides); either form names the action and its target.
	if len(msgs) != 8 || !regexp.MustCompile(`^4(/8)? click #submit$`).MatchString(msgs[3]) ||
		!regexp.MustCompile(`^1(/8)? open http://`).MatchString(msgs[0]) {
		t.Errorf("progress = %q", msgs)
	}

	// browser_read on the page the flow left.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": "table", "selector": "#data"}})
	if err != nil || res.IsError {
		t.Fatalf("browser_read table: %v %v", err, res)
	}
	if got := textOf(t, res); got != `{"headers":["date","kWh"],"rows":[["2026-01-01","12.5"],["2026-01-02","13.0"],["2026-01-03","9.75"]]}` {
		t.Errorf("table = %s", got)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": "url"}})
	if err != nil || !strings.HasSuffix(textOf(t, res), "/table") {
		t.Errorf("url: %v %v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": "screenshot"}})
	if err != nil {
		t.Fatal(err)
	}
	if img, ok := res.Content[0].(*mcp.ImageContent); !ok || img.MIMEType != "image/png" || !strings.HasPrefix(string(img.Data), "\x89PNG") {
		t.Errorf("screenshot content: %T", res.Content[0])
	}

	// A flow that fails is a result with isError, its partial results and -32002.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_fails", Arguments: map[string]any{"base_url": st.URL}})
	if err != nil {
		t.Fatal(err)
	}
	m = structured(t, res)
	e, _ := m["error"].(map[string]any)
	if !res.IsError || m["success"] != false || e["code"] != -32002.0 || e["kind"] != "fail" || e["message"] != "stopped on purpose" {
		t.Errorf("failed flow: isError=%v %s", res.IsError, textOf(t, res))
	}
	// The flow's file is named within the flows folder: an agent (maybe on another machine,
	// through a gateway) learns no folder of this one.
	if e["file"] != "fails.flow" || strings.Contains(textOf(t, res), filepath.ToSlash(os.TempDir())) {
		t.Errorf("failed flow's file: %v", e["file"])
	}
	if rs, _ := m["results"].([]any); len(rs) != 2 {
		t.Errorf("partial results: %v", m["results"])
	}

	// `call` resolves among the served flows.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_calls_hit", Arguments: map[string]any{"base_url": st.URL}})
	if err != nil || res.IsError {
		t.Fatalf("calls_hit: %v %v", err, res)
	}
	if m := structured(t, res); m["outputs"] != "12" || !slices.Equal(st.hitsOf("called"), []int{1, 2}) {
		t.Errorf("calls_hit: outputs %v, hits %v", m["outputs"], st.hitsOf("called"))
	}

	// A secret filled into the page never comes back through browser_read.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_fill_only", Arguments: map[string]any{"base_url": st.URL, "username": siteUser, "password": sitePass}})
	if err != nil || res.IsError {
		t.Fatalf("fill_only: %v %v", err, res)
	}
	for _, action := range []string{"form", "html", "text"} {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": action}})
		if err != nil {
			t.Fatal(err)
		}
		got := textOf(t, res)
		if strings.Contains(got, sitePass) {
			t.Errorf("browser_read %s shows the secret: %s", action, got)
		}
		if action == "form" && !strings.Contains(got, `"password":"***"`) {
			t.Errorf("form = %s", got)
		}
	}
	if strings.Contains(logs.String(), sitePass) {
		t.Error("the secret reached the log")
	}
}

func mustJSON(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// waitUntil polls cond, for state the code tells nobody about when it changes (a session the SDK
// ends, a counter of the test's site); the bound only catches a hang.
func waitUntil(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in a minute")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestErrorCodesOnTheWire reads raw JSON-RPC frames: -32602 naming the
// field, -32003 for an unknown tool, -32001 for a failing built-in.
func TestErrorCodesOnTheWire(t *testing.T) {
	st := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "demo_query.flow", "hit.flow"), Pool: newPool(t)})
	raw := connectRaw(t, s)
	for _, tc := range []struct {
		name   string
		params map[string]any
		code   int64
		msg    string
	}{
		{"unknown tool", map[string]any{"name": "workflow_nope", "arguments": map[string]any{}}, CodeUnknownTool, `unknown tool "workflow_nope"`},
		{"missing arg", map[string]any{"name": "workflow_demo_query", "arguments": map[string]any{"base_url": st.URL, "password": "x"}}, CodeInvalidParams, `"username"`},
		{"wrong type", map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": st.URL, "p": "a", "n": "three"}}, CodeInvalidParams, `"n"`},
		{"bad enum", map[string]any{"name": "workflow_demo_query", "arguments": map[string]any{"base_url": st.URL, "username": "u", "password": "x", "region": "west"}}, CodeInvalidParams, `"region"`},
		{"extra arg", map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": st.URL, "p": "a", "n": 1, "x": 1}}, CodeInvalidParams, `"x"`},
		{"bad profile", map[string]any{"name": "workflow_hit", "arguments": map[string]any{"base_url": st.URL, "p": "a", "n": 1, "profileId": "../etc"}}, CodeInvalidParams, `"profileId"`},
		{"not an object", map[string]any{"name": "workflow_hit", "arguments": []int{1}}, CodeInvalidParams, "JSON object"},
		{"builtin bad args", map[string]any{"name": "browser_read", "arguments": map[string]any{"action": "sing"}}, CodeInvalidParams, `"action"`},
		{"builtin failed", map[string]any{"name": "browser_read", "arguments": map[string]any{"action": "table", "profileId": "fresh"}}, CodeBuiltinFailed, `no browser is running for profile "fresh"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, msg := wireCode(t, raw.Call("tools/call", tc.params))
			if code != tc.code || !strings.Contains(msg, tc.msg) {
				t.Fatalf("code %d %q, want %d containing %q", code, msg, tc.code, tc.msg)
			}
		})
	}
	if got := st.hitsOf("a"); len(got) != 0 {
		t.Errorf("a call with bad arguments ran: %v", got)
	}
}

// failingDriver cannot launch anything.
type failingDriver struct{}

func (failingDriver) Launch(context.Context, drivers.LaunchOptions) (drivers.Browser, error) {
	return nil, errors.New("chromium: exec: not found")
}

func TestBrowserCannotStart(t *testing.T) {
	pool, err := profiles.New(profiles.Options{Driver: failingDriver{}, Launch: func(string) (drivers.LaunchOptions, error) {
		return drivers.LaunchOptions{UserDataDir: t.TempDir()}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "hit.flow"), Pool: pool})
	raw := connectRaw(t, s)
	for _, p := range []map[string]any{
		{"name": "workflow_hit", "arguments": map[string]any{"base_url": "http://127.0.0.1:1", "p": "a", "n": 1}},
	} {
		if code, msg := wireCode(t, raw.Call("tools/call", p)); code != CodeBrowser || !strings.Contains(msg, "could not be started") {
			t.Errorf("%v: code %d %q, want %d", p["name"], code, msg, CodeBrowser)
		}
	}
}

// TestBrowserReadNoBrowser: browser_read on a profile with no browser
// running answers -32001 and starts nothing: no launch, no profile folder.
func TestBrowserReadNoBrowser(t *testing.T) {
	home := t.TempDir()
	launches := 0
	pool, err := profiles.New(profiles.Options{Driver: failingDriver{}, Launch: func(id string) (drivers.LaunchOptions, error) {
		launches++
		d := filepath.Join(home, id)
		return drivers.LaunchOptions{UserDataDir: d}, os.MkdirAll(d, 0o700)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, _ := newServer(t, Options{Pool: pool})
	raw := connectRaw(t, s)
	for _, profile := range []string{"nobody", ""} {
		args := map[string]any{"action": "url"}
		want := `no browser is running for profile "default"`
		if profile != "" {
			args["profileId"] = profile
			want = `no browser is running for profile "nobody"`
		}
		code, msg := wireCode(t, raw.Call("tools/call", map[string]any{"name": "browser_read", "arguments": args}))
		if code != CodeBuiltinFailed || !strings.Contains(msg, want) {
			t.Errorf("profile %q: code %d %q, want %d %q", profile, code, msg, CodeBuiltinFailed, want)
		}
	}
	if entries, _ := os.ReadDir(home); launches != 0 || len(entries) != 0 {
		t.Errorf("browser_read started a browser: %d launches, %d folders", launches, len(entries))
	}
}

// TestCancelStopsFlowAndFreesProfile cancels a call stuck in a long wait:
// the call ends promptly and the profile serves the next call.
func TestCancelStopsFlowAndFreesProfile(t *testing.T) {
	st := newSite(t)
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "slow.flow"), Pool: newPool(t), Heartbeat: 100 * time.Millisecond})
	cs, ev := connect(t, s)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	params := &mcp.CallToolParams{Name: "workflow_slow", Arguments: map[string]any{"base_url": st.URL}}
	params.SetProgressToken(7)
	go func() {
		_, err := cs.CallTool(ctx, params)
		done <- err
	}()
	// Wait until the flow is in its second action (the long wait), and
	// that action sends heartbeats between progress 2 and 3.
	waitUntil(t, func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		for _, p := range ev.progress {
			if strings.Contains(p.Message, "wait #never (running ") && p.Progress > 2 && p.Progress < 3 {
				return true
			}
		}
		return false
	})
	start := time.Now()
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("cancelled call returned no error")
		}
	case <-time.After(30 * time.Second): // only a hang: the flow waits 60s
		t.Fatal("cancelled call did not return")
	}
	// The profile is free again and kept its page.
	rctx, rcancel := context.WithTimeout(context.Background(), 30*time.Second) // the flow waits 60s
	defer rcancel()
	res, err := cs.CallTool(rctx, &mcp.CallToolParams{Name: "browser_read", Arguments: map[string]any{"action": "url"}})
	if err != nil {
		t.Fatalf("profile not freed: %v", err)
	}
	if !strings.HasSuffix(textOf(t, res), "/table") {
		t.Errorf("url = %s", textOf(t, res))
	}
	if d := time.Since(start); d > 40*time.Second { // only when the flow's 60s wait held the profile
		t.Errorf("cancel to next call: %v", d)
	}
}

var progressRE = regexp.MustCompile(`^\d+(/\d+)? [a-z_]+( .*)?$`)

func TestProgressMessage(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"i": 3, "t": 8, "a": "click", "g": "#submit"}, "3/8 click #submit"},
		{map[string]any{"i": 2, "t": 0, "a": "table", "g": "#data"}, "2 table #data"},
		{map[string]any{"i": 1, "t": 2, "a": "back", "g": ""}, "1/2 back"},
	} {
		got := progressMessage(eventOf(tc.in))
		if got != tc.want || !progressRE.MatchString(got) {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func eventOf(m map[string]any) interp.Event {
	return interp.Event{Kind: interp.EventStarted, Index: m["i"].(int), Total: m["t"].(int), Action: m["a"].(string), Target: m["g"].(string)}
}

// killBrowsers kills (SIGKILL) the Chromium processes whose command line
// names dir, the user-data folder this test gave them, and returns how many.
func killBrowsers(t *testing.T, dir string) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(cmdline), "--user-data-dir="+dir) {
			continue
		}
		if killPID(pid) == nil {
			n++
		}
	}
	return n
}

// TestCrashedBrowserReplaced kills the profile's browser during a call: that
// call ends (a browser failure, not a hang) and the next call gets a new
// browser.
func TestCrashedBrowserReplaced(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the browser through /proc")
	}
	st := newSite(t)
	home := t.TempDir()
	pool, err := profiles.New(profiles.Options{Driver: rod.New(), Idle: -1, Launch: func(id string) (drivers.LaunchOptions, error) {
		d := filepath.Join(home, id)
		return drivers.LaunchOptions{UserDataDir: d}, os.MkdirAll(d, 0o700)
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	s, _ := newServer(t, Options{FlowsDir: copyFlows(t, "slow.flow", "hit.flow"), Pool: pool})
	cs, ev := connect(t, s)
	params := &mcp.CallToolParams{Name: "workflow_slow", Arguments: map[string]any{"base_url": st.URL}}
	params.SetProgressToken("crash")
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), params)
		done <- answer{res, err}
	}()
	waitUntil(t, func() bool { return len(ev.progressMessages()) >= 2 })
	if n := killBrowsers(t, filepath.Join(home, "default")); n == 0 {
		t.Fatal("no browser process found to kill")
	}
	select {
	case a := <-done:
		if a.err == nil && !a.res.IsError {
			t.Fatalf("the call survived its browser's death: %v", textOf(t, a.res))
		}
		if a.err == nil {
			if e, _ := structured(t, a.res)["error"].(map[string]any); e["kind"] != "browser" && e["kind"] != "navigation" && e["kind"] != "timeout" {
				t.Errorf("error kind %v", e["kind"])
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the call hung after its browser died")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "workflow_hit", Arguments: map[string]any{"base_url": st.URL, "p": "c", "n": 1}})
	if err != nil || res.IsError {
		t.Fatalf("next call after the crash: %v %v", err, res)
	}
	if pool.Running() != 1 {
		t.Errorf("Running = %d", pool.Running())
	}
}
