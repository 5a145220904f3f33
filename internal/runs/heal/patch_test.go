package heal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
)

const patchSrc = `flow p
# log in
open "https://example.test/"
fill ["#user", "input[name=\"user\"]"] "ada" # the user
click "#go"
text "#never-first"
table "#t"
`

// TestPropose covers the three kinds of proposal, Apply through the
// formatter (comments kept) and Diff.
func TestPropose(t *testing.T) {
	f, ds := lang.Parse("p.flow", []byte(patchSrc))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	marks := []runs.Mark{
		// newest first
		{Flow: "p", Line: 4, Selectors: []string{"#user", `input[name="user"]`}, Matched: 1},
		{Flow: "p", Line: 4, Selectors: []string{"#user", `input[name="user"]`}, Matched: 1},
		{Flow: "p", Line: 5, Selectors: []string{"#go"}, Matched: -1, Healed: []string{"#start", "text=Go"}, Score: 0.9},
		{Flow: "p", Line: 5, Selectors: []string{"#go"}, Matched: 0},
		{Flow: "p", Line: 6, Selectors: []string{"#never-first"}, Matched: runs.MatchedNone}, // failed: stale
		{Flow: "p", Line: 7, Selectors: []string{"#t"}, Matched: 0},
		{Flow: "p", Line: 4, Selectors: []string{"#user", `input[name="user"]`}, Matched: 0}, // older than --runs 2
	}
	props := Propose(f, marks, 2)
	kinds := map[int]string{}
	for _, p := range props {
		kinds[p.Line] = p.Kind
	}
	if kinds[4] != "reorder" || kinds[5] != "healed" || kinds[6] != "stale" || kinds[7] != "" || len(props) != 3 {
		t.Fatalf("proposals %+v", props)
	}
	// with all runs, line 4's first selector matched once: no proposal
	for _, p := range Propose(f, marks, 0) {
		if p.Line == 4 {
			t.Errorf("line 4 proposed with every run: %+v", p)
		}
	}
	out, err := Apply("p.flow", []byte(patchSrc), f, props)
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		`fill ["input[name=\"user\"]", "#user"] "ada" # the user`,
		`click ["#start", "text=Go", "#go"]`,
		"# heal: the first selector matched in none of the last 1 runs (nothing matched in 1)\ntext \"#never-first\"",
		"# log in",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("patched flow lacks %q:\n%s", want, got)
		}
	}
	if _, ds := lang.Load("p.flow", out); ds.HasErrors() {
		t.Errorf("patched flow does not load: %v", ds)
	}
	d := Diff("p.flow", []byte(patchSrc), out)
	if !strings.HasPrefix(d, "--- a/p.flow\n+++ b/p.flow\n@@ ") || !strings.Contains(d, "\n-click \"#go\"\n") || !strings.Contains(d, "\n+click [\"#start\"") {
		t.Errorf("diff:\n%s", d)
	}
	if Diff("p.flow", out, out) != "" {
		t.Errorf("diff of equal files is not empty")
	}
}

// TestProposeBlamesTheRightThing, issue 22's case: a step whose runs
// found a sign-in page gets no selector proposal but a note; counts are
// runs (a run's three tries are one), with how many matched; a positional
// XPath that alone matched (the others named text a param wrote) is not
// moved first; a healed list keeps positional selectors last.
func TestProposeBlamesTheRightThing(t *testing.T) {
	src := `flow w
open "https://wiki.test/"
fill ["textarea[name=\"wikitext\"]", "textarea"] "x"
heading = text ["aria/Written by an agent[role=\"heading\"]", "text=\"Written by an agent\"", "xpath=/html/body/div[1]/main/h1"]
click "#save"
`
	f, ds := lang.Parse("w.flow", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	area := []string{`textarea[name="wikitext"]`, "textarea"}
	head := []string{`aria/Written by an agent[role="heading"]`, `text="Written by an agent"`, "xpath=/html/body/div[1]/main/h1"}
	var marks []runs.Mark
	for r := 8; r >= 1; r-- { // newest first
		run := fmt.Sprintf("run-%d", r)
		if r > 2 { // six runs hit the sign-in wall, each with three tries
			for try := 0; try < 3; try++ {
				marks = append(marks, runs.Mark{Flow: "w", Line: 3, Selectors: area, Run: run, Matched: runs.MatchedNone, Page: "sign_in"})
			}
			continue
		}
		marks = append(marks, runs.Mark{Flow: "w", Line: 3, Selectors: area, Run: run, Matched: 0},
			runs.Mark{Flow: "w", Line: 4, Selectors: head, Run: run, Matched: 2},
			runs.Mark{Flow: "w", Line: 5, Selectors: []string{"#save"}, Run: run, Matched: runs.MatchedHealed,
				Healed: []string{"xpath=/html/body/form/button[2]", "button.primary"}, Score: 0.9})
	}
	props := Propose(f, marks, 0)
	byLine := map[int]Proposal{}
	for _, p := range props {
		byLine[p.Line] = p
	}
	if p, ok := byLine[3]; ok {
		t.Errorf("blamed the textarea's selectors: %+v", p)
	}
	p4 := byLine[4]
	if p4.Kind != "stale" || !strings.Contains(p4.Note, "none of the last 2 runs") || !strings.Contains(p4.Note, `"xpath=/html/body/div[1]/main/h1" in 2 of the last 2 runs`) {
		t.Errorf("line 4: %+v", p4)
	}
	if p5 := byLine[5]; p5.Kind != "healed" || strings.Join(p5.New, " ") != "button.primary #save xpath=/html/body/form/button[2]" {
		t.Errorf("line 5: %+v", p5)
	}
	notes := Notes(f, marks, 0)
	if len(notes) != 1 || notes[0].Line != 3 || !strings.Contains(notes[0].Text, "the step failed on a sign-in page (6) in 6 of the last 8 runs, not on its own page") {
		t.Errorf("notes %+v", notes)
	}
	if n := countRuns(marks); n != 8 {
		t.Errorf("%d runs, want 8", n)
	}
	// the last 2 runs (both on the wall): still nothing against line 3
	if ns := Notes(f, marks, 2); len(ns) != 1 || !strings.Contains(ns[0].Text, "in 2 of the last 2 runs") {
		t.Errorf("notes of the last 2 runs: %+v", ns)
	}
	for _, p := range Propose(f, marks, 2) {
		if p.Line == 3 {
			t.Errorf("line 3 proposed from the last 2 runs: %+v", p)
		}
	}
}

// TestProposeSuggested: a failed run's mark holding healing's best candidate (the failure
// packet's, not acted on) is proposed as "suggested", unless a newer run matched the flow's own
// selectors; Apply writes it like a healed one.
func TestProposeSuggested(t *testing.T) {
	f, ds := lang.Parse("p.flow", []byte(patchSrc))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	sels := []string{"#go"}
	failed := runs.Mark{Flow: "p", Line: 5, Selectors: sels, Run: "r1", Matched: runs.MatchedNone, Healed: []string{`aria/Customer 客户[role="textbox"]`}, Score: 0.59}
	props := Propose(f, []runs.Mark{failed}, 0)
	if len(props) != 1 || props[0].Kind != "suggested" || !strings.Contains(props[0].Note, "score 0.59") ||
		strings.Join(props[0].New, " ") != `aria/Customer 客户[role="textbox"] #go` {
		t.Fatalf("proposals %+v", props)
	}
	out, err := Apply("p.flow", []byte(patchSrc), f, props)
	if err != nil || !strings.Contains(string(out), `click ["aria/Customer 客户[role=\"textbox\"]", "#go"]`) {
		t.Fatalf("applied: %v\n%s", err, out)
	}
	// A newer run found "#go" itself: the old suggestion is not proposed.
	ok := runs.Mark{Flow: "p", Line: 5, Selectors: sels, Run: "r2", Matched: 0}
	for _, p := range Propose(f, []runs.Mark{ok, failed}, 0) {
		if p.Line == 5 {
			t.Errorf("proposed after a run matched: %+v", p)
		}
	}
}
