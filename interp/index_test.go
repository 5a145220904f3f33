package interp

import (
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

// TestCallIndexes: results are numbered 1..n in execution order when a
// `call` runs actions of its own (the call's entry comes after them), and
// each finished event carries its entry's index. Found by a DokuWiki flow
// whose call entry had index 1 after the called flow's 1..6.
func TestCallIndexes(t *testing.T) {
	b := newBrowser(stdPage)
	child := load(t, "flow child\na = text \"#a\"\nb = text \"#a\"\nreturn a + b\n")
	flows := func(name string) (*lang.Flow, bool) { return child, name == "child" }
	var finished []Event
	res := mustRun(t, load(t, "flow t\nx = text \"#a\"\ny = call child\nz = text \"#a\"\nreturn [x, y, z]\n"), Options{
		Browser: b, Flows: flows,
		Events: func(e Event) {
			if e.Kind == EventFinished {
				finished = append(finished, e)
			}
		},
	})
	want := []string{"text", "text", "text", "call", "text"}
	if len(res.Results) != len(want) {
		t.Fatalf("results %+v", res.Results)
	}
	for i, s := range res.Results {
		if s.Index != i+1 || s.Action != want[i] {
			t.Errorf("results[%d] = %d %s, want %d %s", i, s.Index, s.Action, i+1, want[i])
		}
		if i < len(finished) && (finished[i].Index != s.Index || finished[i].Action != s.Action) {
			t.Errorf("finished event %d = %d %s, result %d %s", i, finished[i].Index, finished[i].Action, s.Index, s.Action)
		}
	}
	if len(finished) != len(want) {
		t.Errorf("%d finished events, want %d", len(finished), len(want))
	}
}
