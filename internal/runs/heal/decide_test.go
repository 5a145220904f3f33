package heal

import (
	"testing"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/stdlib"
)

// TestDecide checks each threshold on both sides.
func TestDecide(t *testing.T) {
	c := func(scores ...float64) []drivers.HealCandidate {
		var out []drivers.HealCandidate
		for _, s := range scores {
			out = append(out, drivers.HealCandidate{Score: s, Desc: "x", Selectors: []string{"#x"}})
		}
		return out
	}
	const e = 0.001
	tests := []struct {
		name   string
		mode   Mode
		cands  []drivers.HealCandidate
		pick   int
		status stdlib.HealStatus
	}{
		{"auto: at threshold and margin", Auto, c(AutoThreshold, AutoThreshold-AutoMargin), 0, ""},
		{"auto: just below threshold", Auto, c(AutoThreshold-e, 0.1), -1, "refused"},
		{"auto: just inside the margin", Auto, c(0.95, 0.95-AutoMargin+e), -1, "refused"},
		{"auto: alone and high", Auto, c(0.9), 0, ""},
		{"auto: gone", Auto, c(SuggestMin - e), -1, "refused"},
		{"auto: nothing", Auto, nil, -1, "refused"},
		{"suggest never picks", Suggest, c(0.99, 0.1), -1, "suggested"},
		{"suggest: gone", Suggest, c(0.2), -1, "refused"},
		{"ask-model asks", AskModel, c(0.7, 0.69), -1, "suggested"},
	}
	for _, tt := range tests {
		d := Decide(tt.mode, tt.cands)
		if d.Pick != tt.pick || (tt.status != "" && d.Info.Status != tt.status) {
			t.Errorf("%s: pick %d status %q (%s), want %d %q", tt.name, d.Pick, d.Info.Status, d.Info.Reason, tt.pick, tt.status)
		}
	}
	// inside an iframe: never acted on
	in := c(0.95)
	in[0].Frame = 1
	if d := Decide(Auto, in); d.Pick != -1 {
		t.Errorf("picked a candidate inside an iframe")
	}
}

func TestParseChoice(t *testing.T) {
	for _, tt := range []struct {
		answer string
		n, i   int
	}{{"c2", 3, 1}, {" C1. ", 3, 0}, {"none", 3, -1}, {"c4", 3, -1}, {"c0", 3, -1}, {"the second one", 3, -1}, {"#save-draft", 3, -1}} {
		if i, _ := ParseChoice(tt.answer, tt.n); i != tt.i {
			t.Errorf("ParseChoice(%q, %d) = %d, want %d", tt.answer, tt.n, i, tt.i)
		}
	}
}
