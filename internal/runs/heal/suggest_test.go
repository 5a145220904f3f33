package heal_test

import (
	"slices"
	"testing"

	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// TestProposeFor: a suggested or refused candidate becomes a "suggested"
// proposal for its line (new selectors first, old kept); a healed step, no
// candidate, or a line without a literal selector list propose nothing.
func TestProposeFor(t *testing.T) {
	src := "flow f \"d\"\nparam s: string\nopen \"http://x\"\nclick \"#a\"\nclick s\n"
	f, ds := lang.Parse("f.flow", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	sug := &stdlib.HealInfo{Status: "suggested", Selectors: []string{"#b", "#a", "x{{y}}"}, Desc: `button "B"`, Score: 0.7}
	for _, tc := range []struct {
		name string
		line int
		info *stdlib.HealInfo
		want []string // nil: no proposal
	}{
		{"suggested", 4, sug, []string{"#b", "#a"}},
		{"refused", 4, &stdlib.HealInfo{Status: "refused", Selectors: []string{"#c"}}, []string{"#c", "#a"}},
		{"healed", 4, &stdlib.HealInfo{Status: "healed", Selectors: []string{"#c"}}, nil},
		{"gone", 4, &stdlib.HealInfo{Status: "refused"}, nil},
		{"nil", 4, nil, nil},
		{"not a selector literal", 5, sug, nil},
		{"no action", 2, sug, nil},
	} {
		p, ok := heal.ProposeFor(f, tc.line, tc.info)
		if ok != (tc.want != nil) || (ok && (!slices.Equal(p.New, tc.want) || p.Kind != "suggested" || p.Line != tc.line)) {
			t.Errorf("%s: %v %+v, want %v", tc.name, ok, p, tc.want)
		}
	}
}
