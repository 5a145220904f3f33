package heal

import (
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/stdlib"
)

// ProposeFor turns the heal verdict of a failed step (info: "suggested",
// or "refused" with a best candidate) into a proposal of kind "suggested"
// for the action at line of f: the candidate's selectors first, the old
// ones after them, as a "healed" proposal would. It is what the failure
// packet offers for review (PROTOCOL.md, "heal_patch"); `rpa heal` never
// writes it, since no run acted on the candidate. false when info has no
// candidate selectors, the step healed, or line holds no action with a
// literal selector list.
func ProposeFor(f *ast.File, line int, info *stdlib.HealInfo) (Proposal, bool) {
	if f == nil || info == nil || info.Status == stdlib.HealHealed || len(usable(info.Selectors)) == 0 {
		return Proposal{}, false
	}
	var p Proposal
	found := false
	ast.Walk(f, func(nd ast.Node) bool {
		s, ok := nd.(*ast.ActionStmt)
		if found || !ok || s.Range.Start.Line != line || !locating(s.Action) {
			return !found
		}
		sels, _ := selectorArg(s)
		if sels == nil {
			return true
		}
		p = Proposal{Line: line, Kind: "suggested", Old: sels, New: stableFirst(usable(info.Selectors), sels)}.noted("heal.note.suggest", info.Status, info.Desc, info.Score, info.Reason)
		found = true
		return false
	})
	return p, found
}
