package heal

import (
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
		"# heal: the first selector did not match in the last 1 runs (nothing matched in 1)\ntext \"#never-first\"",
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
