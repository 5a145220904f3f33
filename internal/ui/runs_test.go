package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/internal/runs"
)

const runsFlow = `flow greet "Greets someone on the demo page"

param who: string = "world" "Whom to greet"
param token: secret "An API token"

open "http://127.0.0.1:1/"
click ["#old-button", "#greet"]
return { "greeting": "hello " + who }
`

// recordRun writes a finished run of greet into the store of home.
func recordRun(t *testing.T, home string, status string, args map[string]any) string {
	t.Helper()
	st, err := runs.OpenHome(home, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	run := &runs.Run{Flow: "greet", FlowPath: filepath.Join(home, "flows", "greet.flow"), Args: args,
		Caller: runs.Caller{Kind: runs.CallerCLI}, Evidence: runs.EvidenceDefault}
	if _, err := st.Begin(run); err != nil {
		t.Fatal(err)
	}
	if err := st.AddStep(run.ID, runs.Step{Index: 1, Action: "open", Line: 6, Status: "ok", DurationMs: 120, Target: "http://127.0.0.1:1/", SelectorIndex: -1}); err != nil {
		t.Fatal(err)
	}
	o := runs.Outcome{Status: status, DurationMs: 480}
	step := runs.Step{Index: 2, Action: "click", Line: 7, Status: "ok", DurationMs: 40, Target: "#greet", Selector: "#greet", SelectorIndex: 1}
	if status == runs.StatusFailed {
		step.Status, step.Error, step.ErrorKind = "failed", `no element matches "#old-button", "#greet"`, "not_found"
		o.ErrorKind, o.ErrorMessage, o.ErrorLine, o.ErrorAction = "not_found", `no element matches "#old-button", "#greet"`, 7, "click"
	}
	if err := st.AddStep(run.ID, step); err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(run.ID, o); err != nil {
		t.Fatal(err)
	}
	// The click's marks: the second selector of the list matched each time.
	var ms []runs.Mark
	for i := 0; i < 3; i++ {
		ms = append(ms, runs.Mark{Flow: "greet", Line: 7, Selectors: []string{"#old-button", "#greet"}, At: time.Now(), Run: run.ID, Matched: 1})
	}
	if err := st.AddMarks(ms); err != nil {
		t.Fatal(err)
	}
	return run.ID
}

func TestRunsPageReportAndRerun(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": runsFlow})
	okID := recordRun(t, c.home, runs.StatusOK, map[string]any{"who": "Ada", "token": "***"})
	failID := recordRun(t, c.home, runs.StatusFailed, map[string]any{"who": "Bob", "token": "***"})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/runs?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	el(t, pg, "link", okID)
	el(t, pg, "link", failID)
	uibCheck(t, c, pg, "runs")

	// Filter by status: only the failed run stays.
	sel := el(t, pg, "combobox", "Status")
	if err := sel.Select(step(t), "failed", "value"); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Show")
	waitText(t, pg, "1 runs shown")
	el(t, pg, "link", failID)
	if txt, _ := pg.Text(step(t)); strings.Contains(txt, okID) {
		t.Errorf("the status filter kept the ok run:\n%s", txt)
	}

	// The failed run: its steps, error, and report.
	click(t, pg, "link", failID)
	waitText(t, pg, `not_found at line 7 (click): no element matches "#old-button", "#greet"`)
	el(t, pg, "heading", "Steps")
	el(t, pg, "link", "Rerun with the same arguments")
	uibCheck(t, c, pg, "runs_detail")
	click(t, pg, "link", "Open the report")
	if err := pg.WaitURL(step(t), "/runs/"+failID+"/report"); err != nil {
		t.Fatal(err)
	}
	waitText(t, pg, "greet")
	waitText(t, pg, "no element matches")
	if _, err := os.Stat(filepath.Join(c.home, "runs", failID, "report.html")); err != nil {
		t.Errorf("the report was not written in the run's folder: %v", err)
	}
	shot, err := pg.Screenshot(step(t), false)
	if err != nil || len(shot) == 0 {
		t.Fatalf("report screenshot: %v", err)
	}
	if *update {
		os.WriteFile(filepath.Join("testdata", "screenshots", "runs_report.png"), shot, 0o644)
	}

	// Rerun: the run form with the same arguments, the secret one empty.
	if err := pg.Back(step(t)); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "link", "Rerun with the same arguments")
	if err := pg.WaitURL(step(t), "/run/greet"); err != nil {
		t.Fatal(err)
	}
	who := el(t, pg, "textbox", "who")
	if v, _ := who.Value(step(t)); v != "Bob" {
		t.Errorf("who = %q, want the run's Bob", v)
	}
	if u, _ := pg.URL(step(t)); strings.Contains(u, "token") || strings.Contains(u, "***") {
		t.Errorf("the rerun address carries the secret param: %s", u)
	}
}

func TestRunsHealProposalApply(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": runsFlow})
	id := recordRun(t, c.home, runs.StatusOK, map[string]any{"who": "Ada"})
	pg := personPage(t, step(t))
	if err := pg.Navigate(step(t), c.ts.URL+"/runs/"+id+"?t="+c.ui.Token()); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "link", "Healing proposals for greet")
	waitText(t, pg, "reorder")
	waitText(t, pg, `+click ["#greet", "#old-button"]`)
	uibCheck(t, c, pg, "runs_heal")

	// A change of the file after the page was shown: Apply refuses.
	path := filepath.Join(c.dir, "greet.flow")
	edited := strings.Replace(runsFlow, `"Whom to greet"`, `"Whom to greet (edited)"`, 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	click(t, pg, "button", "Apply the changes to greet.flow")
	waitText(t, pg, "greet.flow changed since these proposals were shown; nothing was written.")
	if b, _ := os.ReadFile(path); string(b) != edited {
		t.Fatalf("a refused Apply wrote the file:\n%s", b)
	}
	// Applied on the new text.
	click(t, pg, "button", "Apply the changes to greet.flow")
	waitText(t, pg, "The changes were written to greet.flow.")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `click ["#greet", "#old-button"]`) || !strings.Contains(string(b), "(edited)") {
		t.Fatalf("the patched flow:\n%s", b)
	}
}

// TestRerunArgsLeaveCutOut: an argument the run record kept cut (over
// core.MaxMessage bytes) is left out of "Run again" like a secret, so the
// form asks for it instead of running with the cut text.
func TestRerunArgsLeaveCutOut(t *testing.T) {
	c := newConsole(t, map[string]string{"greet.flow": runsFlow})
	long := core.Message(strings.Repeat("z", 5000))
	run := &runs.Run{Flow: "greet", Args: map[string]any{
		"who": "Ada", "token": "***", "note": long, "list": []any{"a", long}, "short": "fine… (3 bytes in all)"}}
	got := rerunArgs(c.ui, run)
	want := map[string]any{"who": "Ada", "short": "fine… (3 bytes in all)"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("rerun args %v, want %v", got, want)
	}
}
