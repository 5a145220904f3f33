package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rpa-dev/rpa/drivers/snapshot"
	"github.com/rpa-dev/rpa/internal/demoapp"
	"github.com/rpa-dev/rpa/lang"
)

// agent is a scripted MCP client playing the agent of an authoring
// session.
type agent struct {
	t   *testing.T
	ctx context.Context
	cs  *mcp.ClientSession
}

// call calls a tool and returns its text; a failed call fails the test.
func (a *agent) call(name string, args map[string]any) (string, *mcp.CallToolResult) {
	a.t.Helper()
	res, err := a.cs.CallTool(a.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s %v: %v", name, args, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
			b.WriteByte('\n')
		}
	}
	if res.IsError {
		a.t.Fatalf("%s %v: error result:\n%s", name, args, b.String())
	}
	if testing.Verbose() { // the transcript (docs/authoring.md shows one)
		shown, _ := json.Marshal(args)
		if args["secret"] == true {
			shown = []byte(strings.ReplaceAll(string(shown), fmt.Sprint(args["value"]), "***"))
		}
		a.t.Logf("→ %s %s\n%s", name, shown, b.String())
	}
	return b.String(), res
}

// ref finds the ref of the first line of text matching re (a role and
// name, as the agent would read it).
func (a *agent) ref(text, re string) string {
	a.t.Helper()
	m := regexp.MustCompile(re + `[^\n]*\[ref=([a-z0-9]+)\]`).FindStringSubmatch(text)
	if m == nil {
		a.t.Fatalf("no line matching %q in:\n%s", re, text)
	}
	return m[1]
}

// TestAuthoringDemo: a scripted agent logs in to the demo app, marks the
// password as a secret and the region as a param, queries, reads the
// table as rows and saves the flow. The flow checks clean, has `password:
// secret` with no value anywhere in the file, is published at once, and
// run on a fresh profile with another region it returns that region's
// rows.
func TestAuthoringDemo(t *testing.T) {
	app := httptest.NewServer(demoapp.New(demoapp.Options{Delay: 50 * time.Millisecond}))
	defer app.Close()
	dir := t.TempDir()
	s, logs := newServer(t, Options{FlowsDir: dir, Pool: newPool(t)})
	s.EnableAuthoring()
	cs, ev := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := &agent{t: t, ctx: ctx, cs: cs}

	out, _ := a.call(ToolBrowserOpen, map[string]any{"url": app.URL + "/login"})
	if !strings.Contains(out, "step 1: open") {
		t.Fatalf("open:\n%s", out)
	}
	snap, _ := a.call(ToolBrowserSnapshot, map[string]any{})
	if snapshot.Tokens(snap) > 1500 {
		t.Errorf("login snapshot: %d tokens", snapshot.Tokens(snap))
	}
	user := a.ref(snap, `textbox "Username`)
	pass := a.ref(snap, `textbox "Password`)
	signin := a.ref(snap, `button "Sign in`)
	out, _ = a.call(ToolBrowserFill, map[string]any{"ref": user, "value": demoapp.DemoUsername, "param": "username"})
	if !strings.Contains(out, "changes:") || snapshot.Tokens(out) > 300 {
		t.Errorf("fill answer (%d tokens):\n%s", snapshot.Tokens(out), out)
	}
	out, _ = a.call(ToolBrowserFill, map[string]any{"ref": pass, "value": demoapp.DemoPassword, "secret": true, "param": "password"})
	if strings.Contains(out, demoapp.DemoPassword) {
		t.Fatalf("the secret came back:\n%s", out)
	}
	out, _ = a.call(ToolBrowserClick, map[string]any{"ref": signin})
	if !strings.Contains(out, "/query") {
		t.Errorf("click answer does not show the new page:\n%s", out)
	}
	a.call(ToolBrowserWait, map[string]any{"url": "/query"})
	snap, _ = a.call(ToolBrowserSnapshot, map[string]any{})
	region := a.ref(snap, `combobox "Region`)
	query := a.ref(snap, `button "Query`)
	a.call(ToolBrowserSelect, map[string]any{"ref": region, "option": "110000", "param": "region"})
	out, _ = a.call(ToolBrowserClick, map[string]any{"ref": query})
	if snapshot.Tokens(out) > 300 {
		t.Errorf("click answer: %d tokens:\n%s", snapshot.Tokens(out), out)
	}
	a.call(ToolBrowserWait, map[string]any{"text": "kWh"})
	snap, _ = a.call(ToolBrowserSnapshot, map[string]any{})
	if snapshot.Tokens(snap) > 1500 {
		t.Errorf("query page snapshot: %d tokens", snapshot.Tokens(snap))
	}
	table := a.ref(snap, `- table`)
	out, res := a.call(ToolBrowserRead, map[string]any{"ref": table, "action": "table", "as": "rows"})
	if !strings.Contains(out, "as rows") || res.StructuredContent == nil {
		t.Errorf("read:\n%s", out)
	}
	preview, _ := a.call(ToolFlowPreview, map[string]any{"name": "demo_rows"})
	if !strings.Contains(preview, "not saved") {
		t.Errorf("preview:\n%s", preview)
	}
	before := ev.lists()
	out, _ = a.call(ToolFlowSave, map[string]any{"name": "demo_rows", "description": "Log in to the demo and read a region's rows",
		"params": []any{map[string]any{"name": "region", "description": "Region code"}}})
	if !strings.Contains(out, "workflow_demo_rows") {
		t.Fatalf("save:\n%s", out)
	}
	path := filepath.Join(dir, "demo_rows.flow")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ds := lang.LoadFile(path); len(ds) > 0 {
		t.Errorf("the saved flow has diagnostics: %v\n%s", ds, text)
	}
	for _, want := range []string{"param password: secret", `param region: string = "110000" "Region code"`, "wait url:", "rows = table", `return { "rows": rows }`} {
		if !strings.Contains(string(text), want) {
			t.Errorf("flow lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(string(text), demoapp.DemoPassword) || strings.Contains(logs.String(), demoapp.DemoPassword) {
		t.Fatalf("the password reached the file or the log:\n%s", text)
	}
	// published: listed, and the client was told
	deadline := time.After(10 * time.Second)
	for ev.lists() == before {
		select {
		case <-ev.changed:
		case <-deadline:
			t.Fatal("no tools/list_changed after flow_save")
		}
	}
	if _, ok := s.Tool("workflow_demo_rows"); !ok {
		t.Fatalf("not served: %v", s.ToolNames())
	}

	// run it on a fresh profile with another region
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_demo_rows", Arguments: map[string]any{
		"username": demoapp.DemoUsername, "password": demoapp.DemoPassword, "region": "330100", "base_url": app.URL, "profileId": "fresh"}})
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Success bool `json:"success"`
		Outputs struct {
			Rows []map[string]any `json:"rows"`
		} `json:"outputs"`
		Error any `json:"error"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &r); err != nil || !r.Success {
		t.Fatalf("run: %v %s\n%s", err, raw, text)
	}
	if len(r.Outputs.Rows) == 0 {
		t.Fatalf("no rows: %s", raw)
	}
	for _, row := range r.Outputs.Rows {
		if row["region"] != "杭州市" {
			t.Fatalf("a row of another region: %v", row)
		}
	}
}

// TestAuthoringDeadEndAndErrors: a detour the agent backs out of is not
// in the flow; a stale ref and a missing page are errors the agent can
// read; flow_save refuses to overwrite and a bad name names the field.
func TestAuthoringDeadEndAndErrors(t *testing.T) {
	pages := httptest.NewServer(http.FileServer(http.Dir("../../../testdata/pages")))
	defer pages.Close()
	dir := t.TempDir()
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: newPool(t)})
	s.EnableAuthoring()
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := &agent{t: t, ctx: ctx, cs: cs}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolBrowserClick, Arguments: map[string]any{"ref": "e1", "profileId": "other"}})
	if err != nil || !res.IsError {
		t.Fatalf("a click with no page: %v %+v", err, res)
	}
	a.call(ToolBrowserOpen, map[string]any{"url": pages.URL + "/basic.html"})
	snap, _ := a.call(ToolBrowserSnapshot, map[string]any{})
	link := a.ref(snap, `link "Next page"`)
	out, _ := a.call(ToolBrowserClick, map[string]any{"ref": link})
	if !strings.Contains(out, "→") {
		t.Fatalf("the link did not navigate:\n%s\n%s", snap, out)
	}
	a.call(ToolBrowserBack, map[string]any{})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolBrowserClick, Arguments: map[string]any{"ref": "e9999"}})
	if err != nil || !res.IsError {
		t.Fatalf("a stale ref: %v %+v", err, res)
	}
	prev, res := a.call(ToolFlowPreview, map[string]any{"name": "detour"})
	sc, _ := json.Marshal(res.StructuredContent)
	if strings.Contains(prev, "\nclick") || !strings.Contains(string(sc), `"dropped":[2,3]`) {
		t.Errorf("the detour stayed:\n%s\n%s", prev, sc)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFlowSave, Arguments: map[string]any{"name": "Bad Name"}})
	if err == nil || !strings.Contains(err.Error(), "name") {
		t.Errorf("bad name: %v", err)
	}
	// A name whose tool name would pass MCP's 128 characters: the field and the length, not the name.
	long := "a" + strings.Repeat("b", 200)
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFlowSave, Arguments: map[string]any{"name": long}})
	if err == nil || !strings.Contains(err.Error(), "name") || !strings.Contains(err.Error(), "too long (201 characters; at most 119") || strings.Contains(err.Error(), long) {
		t.Errorf("a name too long: %v", err)
	}
	a.call(ToolFlowSave, map[string]any{"name": "detour"})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFlowSave, Arguments: map[string]any{"name": "detour"}})
	if err != nil || !res.IsError {
		t.Errorf("a second save overwrote: %v %+v", err, res)
	}
	a.call(ToolFlowSave, map[string]any{"name": "detour", "overwrite": true})
	a.call(ToolFlowReset, map[string]any{})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolFlowPreview, Arguments: map[string]any{}})
	if err != nil || !res.IsError {
		t.Errorf("preview of an empty log: %v %+v", err, res)
	}
	// after a reset the flow starts by opening the page the session is on
	snap, _ = a.call(ToolBrowserSnapshot, map[string]any{})
	a.call(ToolBrowserClick, map[string]any{"ref": a.ref(snap, `button "Greet"`)})
	prev, _ = a.call(ToolFlowPreview, map[string]any{})
	if !strings.Contains(prev, "open \"{{ base_url }}/basic.html\"\n# click button \"Greet\"") {
		t.Errorf("no open of the current page first:\n%s", prev)
	}
}

// TestServeSteps serves the reference flow step by step: one tool per
// top-level statement; params given once are remembered, names bound by a
// step are there for the next ones, and the last step returns the rows.
func TestServeSteps(t *testing.T) {
	app := httptest.NewServer(demoapp.New(demoapp.Options{Delay: 20 * time.Millisecond}))
	defer app.Close()
	s, logs := newServer(t, Options{Pool: newPool(t)})
	if err := s.ServeSteps(filepath.Join("..", "..", "..", "flows", "query_power_data.flow")); err != nil {
		t.Fatal(err)
	}
	names := strings.Join(s.ToolNames(), " ")
	for _, want := range []string{"step_01_open", "step_02_fill", "step_04_click", "step_08_table", "step_09_if", "step_10_for", "step_11_return"} {
		if !strings.Contains(names, want) {
			t.Fatalf("no %s in %s", want, names)
		}
	}
	if def, _ := s.Tool("step_03_fill"); !strings.Contains(string(def.InputSchema.(json.RawMessage)), `"password"`) {
		t.Errorf("step_03_fill does not take the password: %s", def.InputSchema)
	}
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := &agent{t: t, ctx: ctx, cs: cs}
	a.call("step_01_open", map[string]any{"base_url": app.URL})
	a.call("step_02_fill", map[string]any{"username": demoapp.DemoUsername})
	out, _ := a.call("step_03_fill", map[string]any{"password": demoapp.DemoPassword})
	if strings.Contains(out, demoapp.DemoPassword) {
		t.Fatal("the password came back")
	}
	for _, n := range []string{"step_04_click", "step_05_wait", "step_06_select", "step_07_click"} {
		a.call(n, map[string]any{})
	}
	out, _ = a.call("step_08_table", map[string]any{})
	if !strings.Contains(out, `"rows":[{`) {
		t.Fatalf("step_08_table:\n%s", out)
	}
	a.call("step_09_if", map[string]any{}) // uses rows and region (its default)
	out, _ = a.call("step_11_return", map[string]any{})
	if !strings.Contains(out, `"count":50`) {
		t.Errorf("return:\n%s", out)
	}
	if strings.Contains(logs.String(), demoapp.DemoPassword) {
		t.Error("the password reached the log")
	}
}

// TestAuthoringFrames: steps inside nested iframes, of the same origin and
// of another one, are acted on by ref, written in frame blocks, and the
// saved flow replays on a fresh profile to the same result.
func TestAuthoringFrames(t *testing.T) {
	pages := httptest.NewServer(http.FileServer(http.Dir("../../../testdata/pages")))
	defer pages.Close()
	other := httptest.NewServer(http.FileServer(http.Dir("../../../testdata/pages")))
	defer other.Close()
	dir := t.TempDir()
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: newPool(t)})
	s.EnableAuthoring()
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	a := &agent{t: t, ctx: ctx, cs: cs}
	for i, start := range []string{pages.URL + "/frames.html", pages.URL + "/frames.html?xorigin=" + other.URL + "/"} {
		name := []string{"same_origin", "cross_origin"}[i]
		t.Run(name, func(t *testing.T) {
			a.t = t
			a.call(ToolFlowReset, map[string]any{})
			a.call(ToolBrowserOpen, map[string]any{"url": start})
			var snap string
			for range 100 { // the page builds its frames after load; this only bounds a hang
				snap, _ = a.call(ToolBrowserSnapshot, map[string]any{})
				if strings.Contains(snap, `button "Apply"`) {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			coupon := a.ref(snap, `textbox "Coupon"`)
			if i == 1 && !strings.HasPrefix(coupon, "f") {
				t.Errorf("a ref in a frame of another origin: %s\n%s", coupon, snap)
			}
			a.call(ToolBrowserFill, map[string]any{"ref": coupon, "value": "SAVE-2024", "param": "code"})
			a.call(ToolBrowserClick, map[string]any{"ref": a.ref(snap, `button "Apply"`)})
			a.call(ToolBrowserWait, map[string]any{"text": "applied:SAVE-2024"})
			a.call(ToolBrowserRead, map[string]any{"action": "text", "selector": "#result", "as": "result"})
			out, res := a.call(ToolFlowSave, map[string]any{"name": "coupon_" + name})
			text, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(out, "frame [") && !strings.Contains(out, "frame \"") {
				t.Fatalf("no frame block:\n%s", out)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_coupon_" + name, Arguments: map[string]any{
				"code": "SPRING-7", "profileId": "replay_" + name}})
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := json.Marshal(res.StructuredContent)
			if !strings.Contains(string(raw), `"outputs":{"result":"applied:SPRING-7"}`) {
				t.Errorf("replay: %s\n%s", raw, text)
			}
		})
	}
}

// TestAuthoringHoverMenu: hovering through a menu that appears on hover
// (hover.html), clicking its item, reading the result: the saved flow
// replays on a fresh profile to the same result.
func TestAuthoringHoverMenu(t *testing.T) {
	pages := httptest.NewServer(http.FileServer(http.Dir("../../../testdata/pages")))
	defer pages.Close()
	dir := t.TempDir()
	s, _ := newServer(t, Options{FlowsDir: dir, Pool: newPool(t)})
	s.EnableAuthoring()
	cs, _ := connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := &agent{t: t, ctx: ctx, cs: cs}
	snapUntil := func(want string) string {
		for range 50 { // the menu opens after a delay; this only bounds a hang
			snap, _ := a.call(ToolBrowserSnapshot, map[string]any{})
			if strings.Contains(snap, want) {
				return snap
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("%q never showed", want)
		return ""
	}
	a.call(ToolBrowserOpen, map[string]any{"url": pages.URL + "/hover.html"})
	snap := snapUntil(`menuitem "File"`)
	a.call(ToolBrowserHover, map[string]any{"ref": a.ref(snap, `menuitem "File"`)})
	snap = snapUntil(`menuitem "Export`)
	a.call(ToolBrowserHover, map[string]any{"ref": a.ref(snap, `menuitem "Export`)})
	snap = snapUntil(`menuitem "CSV`)
	a.call(ToolBrowserClick, map[string]any{"ref": a.ref(snap, `menuitem "CSV`)})
	a.call(ToolBrowserWait, map[string]any{"text": "action:export-csv"})
	a.call(ToolBrowserRead, map[string]any{"action": "text", "selector": "#result", "as": "result"})
	out, _ := a.call(ToolFlowSave, map[string]any{"name": "export_csv"})
	if strings.Count(out, "\nhover ") != 2 {
		t.Errorf("two hovers expected:\n%s", out)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_export_csv", Arguments: map[string]any{"profileId": "replay"}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(raw), `"outputs":{"result":"action:export-csv"}`) {
		t.Errorf("replay: %s\n%s", raw, out)
	}
}
