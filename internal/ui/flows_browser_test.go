package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/demoapp"
)

// demoPassword is the demo app's password in these tests: it must never show in the console's
// pages, event streams or log.
const demoPassword = "Tr0ub4dor&3-console"

// brokenDemoFlow is the repository's reference flow (flows/query_power_data.flow) with a typo
// on its click line and a comment of ours that publishing must keep.
func brokenDemoFlow(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "flows", "query_power_data.flow"))
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	if !strings.Contains(src, "click \"#submit\"") {
		t.Fatal("the reference flow changed: no click \"#submit\" line")
	}
	src = strings.Replace(src, "click \"#submit\"", "clik \"#submit\" # the console test's typo", 1)
	return strings.Replace(src, "select \"#region\" region", "# pick the region\nselect \"#region\" region", 1)
}

// TestConsoleFlowLife drives the console as a person would, in real Chromium: the flows page
// shows a broken flow's diagnostic; the editor fixes it (diagnostics as you type) and saves it;
// the publish dialog changes its description and a default; the Run form generated from the
// tool's inputSchema runs it against the demo app, and the live page ends with the 50 rows.
func TestConsoleFlowLife(t *testing.T) {
	app, err := demoapp.Start(demoapp.Options{Password: demoPassword, Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	c := newConsole(t, map[string]string{
		"query_power_data.flow": brokenDemoFlow(t),
		"hello.flow":            "flow hello \"Say hello\"\n\nparam who: string = \"world\" \"Whom to greet\"\n\nlog \"hello \" + who\nreturn {\"greeting\": \"hello \" + who}\n",
	})
	pg := personPage(t, step(t))

	// Flows: the broken flow's diagnostic, with its line and caret.
	if err := pg.Navigate(step(t), c.ts.URL+"/?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, `unknown action "clik"`)
	waitText(t, pg, "query_power_data.flow:15:1")
	el(t, pg, "group", "Problems of query_power_data.flow")
	c.checkPage(t, pg, "flows_broken")

	// Editor: fix the typo; the check endpoint clears the problem as we type; save.
	click(t, pg, "link", "Edit query_power_data.flow")
	text := el(t, pg, "textbox", "Flow text")
	src, err := text.Value(step(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := text.Fill(step(t), strings.Replace(src, "clik", "click", 1)); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "No problems.")
	waitText(t, pg, "Unsaved changes")
	c.checkPage(t, pg, "editor")
	click(t, pg, "button", "Save")
	// The served folder: Save writes a draft; agents keep the published file until Publish.
	waitText(t, pg, "Saved as a draft.")
	disk, _ := os.ReadFile(filepath.Join(c.dir, ".drafts", "query_power_data.flow"))
	if !strings.Contains(string(disk), "click \"#submit\" # the console test's typo") {
		t.Fatalf("saved draft:\n%s", disk)
	}
	if disk, _ := os.ReadFile(filepath.Join(c.dir, "query_power_data.flow")); !strings.Contains(string(disk), "clik") {
		t.Fatal("Save changed the published file")
	}

	// Publish dialog: new description and base_url default.
	click(t, pg, "button", "Publish…")
	el(t, pg, "dialog", "Publish query_power_data.flow")
	fill(t, pg, "textbox", "Tool description", "Query the demo power system's usage table")
	fill(t, pg, "textbox", "Default of base_url", app.URL)
	fill(t, pg, "textbox", "Description of region", "Region code, e.g. 110000")
	c.checkPage(t, pg, "publish")
	click(t, pg, "button", "Publish")
	waitText(t, pg, "Published workflow_query_power_data.")
	disk, _ = os.ReadFile(filepath.Join(c.dir, "query_power_data.flow"))
	for _, want := range []string{
		`flow query_power_data "Query the demo power system's usage table"`,
		`param base_url: string = "` + app.URL + `" "Address of the power system"`,
		`"Region code, e.g. 110000"`,
		"# the console test's typo", "# pick the region", "# The reference scenario",
	} {
		if !strings.Contains(string(disk), want) {
			t.Errorf("published file lacks %q:\n%s", want, disk)
		}
	}
	c.checkPage(t, pg, "flows")

	// Run: the form from the inputSchema; the secret is a password input.
	click(t, pg, "link", "Run query_power_data")
	if pw, err := el(t, pg, "textbox", "password (required)").IsPassword(step(t)); err != nil || !pw {
		t.Fatalf("the secret param is not a password input (%v)", err)
	}
	fill(t, pg, "textbox", "username (required)", demoapp.DemoUsername)
	fill(t, pg, "textbox", "password (required)", demoPassword)
	if v, _ := el(t, pg, "textbox", "base_url").Value(step(t)); v != app.URL {
		t.Errorf("base_url shows %q, want the new default %q", v, app.URL)
	}
	c.checkPage(t, pg, "run_form")
	click(t, pg, "button", "Run")
	rows := el(t, pg, "table", "Table rows")
	n, err := pg.Count(step(t), "table.output tbody tr")
	if err != nil || n != len(demoapp.Records("110000")[:50]) {
		t.Fatalf("the outputs table has %d rows (%v), want 50", n, err)
	}
	_ = rows
	waitText(t, pg, "Run ok in")
	c.checkPage(t, pg, "live_ok")
	if href, _, _ := el(t, pg, "link", "Run again").Attr(step(t), "href"); !strings.Contains(href, "a.username=admin") || strings.Contains(href, "password") {
		t.Errorf("Run again goes to %s", href)
	}

	// The secret is nowhere: not in the live page's HTML, its event stream, the flows page, the
	// console's log.
	u, _ := pg.URL(context.Background())
	id := u[strings.LastIndex(u, "/")+1:]
	for what, body := range map[string]string{
		"live page":    c.get(t, "/live/"+id),
		"event stream": c.get(t, "/live/"+id+"/events"),
		"flows page":   c.get(t, "/flows"),
		"console log":  c.log.String(),
	} {
		if strings.Contains(body, demoPassword) {
			t.Errorf("the secret shows in the %s", what)
		}
	}
	if !strings.Contains(c.get(t, "/live/"+id+"/events"), "event: done") {
		t.Error("the event stream has no done event")
	}

	// The language switch: the flows page in Chinese.
	if err := pg.Navigate(step(t), c.ts.URL+"/flows"); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "中文")
	waitText(t, pg, "文件夹中的流程")
	el(t, pg, "link", "编辑 query_power_data.flow")
	c.checkPage(t, pg, "flows_zh")
	click(t, pg, "button", "English")
	waitText(t, pg, "Flows of the folder")
}

// TestConsoleStopRun stops a run that waits from its live page: it ends as cancelled.
func TestConsoleStopRun(t *testing.T) {
	app, err := demoapp.Start(demoapp.Options{Password: demoPassword, Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	c := newConsole(t, map[string]string{
		"waits.flow": "flow waits \"Waits for a text that never comes\"\n\nparam base_url: string = \"" + app.URL + "\"\n\nopen \"{{ base_url }}/login\"\nwait text: \"never shown\" timeout: 5m\n",
	})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/run/waits?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Run")
	waitText(t, pg, "open")
	click(t, pg, "button", "Stop the run")
	waitText(t, pg, "Run cancelled in")
}

// TestConsoleRunFailure runs a flow that fails against the demo app: the live page shows the
// failed step, the error, the failure packet and the screenshot; the secret typed into the form
// shows nowhere.
func TestConsoleRunFailure(t *testing.T) {
	app, err := demoapp.Start(demoapp.Options{Password: demoPassword, Delay: -1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Close() })
	c := newConsole(t, map[string]string{
		"missing_button.flow": `flow missing_button "Log in, then press a button the page does not have"

param base_url: string = "` + app.URL + `" "Address of the power system"
param password: secret "Login password"
param mode: enum("fast", "careful") = "fast" "How to look"
param tries: int = 1 "Attempts"
param verbose: bool = false "Say more"

defaults wait: 1s retries: 0 timeout: 5s

open "{{ base_url }}/login"
fill "#username" "admin"
fill "#password" password
click "#submit"
wait url: "/query"
click "#export-to-excel"
`,
	})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/run/missing_button?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	// The form follows the schema: an enum is a select, an int a number box, a bool a checkbox.
	el(t, pg, "combobox", "mode")
	el(t, pg, "spinbutton", "tries")
	el(t, pg, "checkbox", "verbose")
	fill(t, pg, "textbox", "password (required)", demoPassword)
	c.checkPage(t, pg, "run_form_types")
	click(t, pg, "button", "Run")
	waitText(t, pg, "Run failed in")
	el(t, pg, "img", "Screenshot at the failure")
	waitText(t, pg, "#export-to-excel")
	waitText(t, pg, "Failure packet")
	c.checkPage(t, pg, "live_failed")
	u, _ := pg.URL(context.Background())
	id := u[strings.LastIndex(u, "/")+1:]
	shot := c.get(t, "/live/"+id+"/shot")
	if len(shot) < 1000 {
		t.Errorf("the screenshot is %d bytes", len(shot))
	}
	for what, body := range map[string]string{
		"live page":    c.get(t, "/live/"+id),
		"event stream": c.get(t, "/live/"+id+"/events"),
		"console log":  c.log.String(),
	} {
		if strings.Contains(body, demoPassword) {
			t.Errorf("the secret shows in the %s", what)
		}
	}
}
