package record

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/rpa-dev/rpa/internal/runs/heal"
	"github.com/rpa-dev/rpa/interp"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/stdlib"
)

// failedHeal returns the heal verdict of the last step of res at line (the
// failing step), or nil. It is built from masked fingerprints (package
// heal masks every string before it reaches a step).
func failedHeal(res *interp.Result, line int) *stdlib.HealInfo {
	for i := len(res.Results) - 1; i >= 0; i-- {
		s := res.Results[i]
		if s.Line == line {
			return s.Heal
		}
	}
	return nil
}

// HealPatch is the change of the flow that the failing step's heal
// verdict proposes (heal.ProposeFor: the best candidate's selectors first,
// the old ones kept after them), for a person or an agent to review; the
// packet's heal_patch (PROTOCOL.md).
type HealPatch struct {
	heal.Proposal
	// Diff is the unified diff of the flow file with the proposal applied
	// through the formatter (as `rpa heal --write` would write it); ""
	// when the flow's source is unknown or no longer has that line.
	Diff string `json:"diff,omitempty"`
}

// healPatch builds the packet's HealPatch for the failing line (nil when
// the verdict proposes nothing). src is the flow's source lines as the run
// read them; mask hides secrets in the diff.
func healPatch(f *lang.Flow, src []string, info *stdlib.HealInfo, line int, mask func(string) string) *HealPatch {
	if f == nil {
		return nil
	}
	prop, ok := heal.ProposeFor(f.File, line, info)
	if !ok {
		return nil
	}
	hp := &HealPatch{Proposal: prop}
	if src == nil {
		return hp
	}
	name := filepath.Base(f.Path)
	text := []byte(strings.Join(src, "\n"))
	file, ds := lang.Parse(name, text)
	if ds.HasErrors() {
		return hp
	}
	if p2, ok := heal.ProposeFor(file, line, info); ok && slices.Equal(p2.Old, prop.Old) {
		if out, err := heal.Apply(name, text, file, []heal.Proposal{p2}); err == nil {
			hp.Diff = mask(heal.Diff(name, text, out))
		}
	}
	return hp
}
