package ui

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/xuri/excelize/v2"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/internal/demoapp"
)

// TestConsolePersonsDay is a person's day in the console, in real headless Chromium against the
// demo app, driven by accessible names: a new flow from the web-page template (a draft); the
// element picker without a display (screencast) picks the login page's three elements (the
// username and password fields and the sign-in button), inserted at the cursor as fill, fill and
// click, which the run then uses; the person writes the rest of the flow and saves the draft; the
// debugger stops at a breakpoint on the table line, steps, shows `rows` (50 rows, date first) in
// the variables panel and continues to the end; Publish makes it the tool; an agent calls the tool
// over MCP and gets the 50 rows in the page's column order; the run's rows export as XLSX from
// its run page and read back with excelize (50 rows, first column date).
func TestConsolePersonsDay(t *testing.T) {
	app, err := demoapp.Start(demoapp.Options{Password: demoPassword, Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	home := t.TempDir()
	t.Setenv("RPA_HOME", home) // the picker's and the debug run's browsers and records live there
	c := newConsoleIn(t, home, nil)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("console log:\n%s", c.log.String())
		}
	})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/flows?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}

	// New flow from the web-page template.
	click(t, pg, "link", "New flow")
	fill(t, pg, "textbox", "Flow name", "power_day")
	fill(t, pg, "textbox", "Description", "Electricity usage of the demo power system")
	click(t, pg, "radio", "A web page: the flow opens its address")
	fill(t, pg, "textbox", "Address of the page", app.URL+"/login")
	click(t, pg, "button", "Create the flow")
	waitText(t, pg, "Edit power_day.flow")
	text := el(t, pg, "textbox", "Flow text")

	// Pick the sign-in form's three elements on the page (screencast: a click on the live
	// picture each), inserted as fill, fill and click.
	if err := text.Focus(step(t)); err != nil {
		t.Fatal(err)
	}
	if err := pg.Press(step(t), "Control+End"); err != nil {
		t.Fatal(err)
	}
	for _, pick := range []struct{ css, as, name string }{
		{"#username", "fill", `textbox "Username 用户名"`},
		{"#password", "fill", `textbox "Password 密码"`},
		{"#submit", "click", `button "Sign in 登录"`},
	} {
		click(t, pg, "button", "Pick")
		waitText(t, pg, "Click an element on the picture.")
		if _, err := pg.Eval(step(t), `() => new Promise((ok) => { const i = document.getElementById('picker-img'); const f = () => i.naturalWidth > 0 ? ok(true) : setTimeout(f, 20); f(); })`); err != nil {
			t.Fatal(err)
		}
		p := c.ui.pickers().cur
		if p == nil {
			t.Fatal("no picker open")
		}
		v, err := p.pg.Eval(step(t), `(css) => { const r = document.querySelector(css).getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2, innerWidth]; }`, pick.css)
		if err != nil {
			t.Fatal(err)
		}
		at := v.([]any)
		if _, err := pg.Eval(step(t), `(x, y, vw) => { const i = document.getElementById('picker-img'), r = i.getBoundingClientRect(), k = r.width / vw;
		i.dispatchEvent(new MouseEvent('click', {bubbles: true, clientX: r.left + x * k, clientY: r.top + y * k})); return true; }`, at[0], at[1], at[2]); err != nil {
			t.Fatal(err)
		}
		waitText(t, pg, "Picked "+pick.name+".")
		if err := el(t, pg, "combobox", "Insert as").Select(step(t), pick.as, ""); err != nil {
			t.Fatal(err)
		}
		click(t, pg, "button", "Insert at the cursor")
		waitText(t, pg, "Inserted at line")
		click(t, pg, "button", "Close the picker")
	}

	// The person writes the rest around the picked lines and saves the draft.
	src, err := text.Value(step(t))
	if err != nil {
		t.Fatal(err)
	}
	var picked []string
	var out []string
	for _, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "param base_url:"):
			out = append(out, l, `param username: string "Login username"`, `param password: secret "Login password"`)
		case strings.HasPrefix(l, "fill ") && strings.Contains(l, ` "" # textbox "Username`):
			// fill [the picked selector and its fallbacks] "" # textbox "Username 用户名"
			l, _, _ = strings.Cut(l, ` "" # `)
			picked = append(picked, l)
			out = append(out, l+" username")
		case strings.HasPrefix(l, "fill ") && strings.Contains(l, ` "" # textbox "Password`):
			l, _, _ = strings.Cut(l, ` "" # `)
			picked = append(picked, l)
			out = append(out, l+" password")
		case strings.HasPrefix(l, "click ") && strings.Contains(l, `# button "Sign in`):
			picked = append(picked, l)
			out = append(out, l, `wait url: "/query"`, `click "text=Query"`,
				`rows = table "#data-table"`, `return { "rows": rows, "count": len(rows) }`)
		default:
			out = append(out, l)
		}
	}
	if len(picked) != 3 {
		t.Fatalf("picked lines %q in:\n%s", picked, src)
	}
	final := strings.Join(out, "\n") + "\n"
	if err := text.Fill(step(t), final); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "No problems.")
	click(t, pg, "button", "Save")
	waitText(t, pg, "Saved as a draft.")
	if b, _ := os.ReadFile(filepath.Join(c.dir, ".drafts", "power_day.flow")); string(b) != final {
		t.Fatalf("the draft:\n%s\nwant:\n%s", b, final)
	}
	tableLine := 0
	for i, l := range strings.Split(final, "\n") {
		if strings.HasPrefix(l, "rows = table") {
			tableLine = i + 1
		}
	}

	// Debug: a breakpoint on the table line; step; rows in the variables; continue to the end.
	bp, _, err := pg.Locate(step(t), []string{`#gutter span[data-line="` + strconv.Itoa(tableLine) + `"]`}, drivers.Visible)
	if err != nil {
		t.Fatal(err)
	}
	if err := bp.Click(step(t), "left", 1); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Debug")
	fill(t, pg, "textbox", "username (required)", demoapp.DemoUsername)
	fill(t, pg, "textbox", "password (required)", demoPassword)
	click(t, pg, "button", "Start debugging")
	waitText(t, pg, "Paused before line "+strconv.Itoa(tableLine)+`: table "#data-table"`)
	click(t, pg, "button", "Step")
	waitText(t, pg, "Paused before line "+strconv.Itoa(tableLine+1)+": return")
	vars := innerText(t, pg, "#dbg-vars")
	if !strings.Contains(vars, `rows	[{"date":"2026-06-01","region":"北京市","kWh":`) || strings.Count(vars, `"date":`) != 50 || !strings.Contains(vars, "password\t\"***\"") {
		t.Errorf("variables after the table line:\n%.800s", vars)
	}
	c.checkPage(t, pg, "day_debug")
	click(t, pg, "button", "Continue")
	waitText(t, pg, "The run ended: ok.")

	// Publish.
	click(t, pg, "button", "Publish…")
	el(t, pg, "dialog", "Publish power_day.flow")
	click(t, pg, "button", "Publish")
	waitText(t, pg, "Published workflow_power_day.")

	// An agent calls the tool over MCP: the rows in the page's column order.
	ctx := step(t)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := c.srv.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "workflow_power_day",
		Arguments: map[string]any{"username": demoapp.DemoUsername, "password": demoPassword}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
	raw := res.Content[0].(*mcp.TextContent).Text
	doc, err := decodeOrdered([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := get(get(doc, "outputs"), "rows").([]any)
	var first *jsonObject
	if len(rows) > 0 {
		first, _ = rows[0].(*jsonObject)
	}
	if len(rows) != 50 || first == nil || strings.Join(first.Keys, ",") != "date,region,kWh,peak,valley,cost" {
		t.Fatalf("the tool's rows: %d, first %v", len(rows), first)
	}
	runID, _ := get(doc, "runId").(string)
	if runID == "" {
		t.Fatalf("no runId in %.300s", raw)
	}

	// Export the rows from the run's page as XLSX.
	if err := pg.Navigate(step(t), c.ts.URL+"/runs/"+runID); err != nil {
		t.Fatal(err)
	}
	href, err := pg.Eval(step(t), `() => [...document.querySelectorAll("a")].find((a) => a.textContent.trim() === "Export rows as Excel (XLSX)").getAttribute("href")`)
	if err != nil {
		t.Fatalf("no XLSX export link on the run page: %v", err)
	}
	req, _ := http.NewRequest("GET", c.ts.URL+href.(string), nil)
	req.Header.Set(TokenHeader, c.ui.Token())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("export: %d %v", resp.StatusCode, err)
	}
	got, _ := f.GetRows("rows")
	f.Close()
	if len(got) != 51 || strings.Join(got[0], ",") != "date,region,kWh,peak,valley,cost" || got[1][0] != "2026-06-01" {
		t.Fatalf("xlsx: %d rows, header %v", len(got), got[0])
	}
	if strings.Contains(c.log.String(), demoPassword) {
		t.Error("the password reached the console's log")
	}
}
