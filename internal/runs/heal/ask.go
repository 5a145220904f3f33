package heal

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/snapshot"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/stdlib"
)

// stringLit returns the text of a plain string literal.
func stringLit(e ast.Expr) (string, bool) {
	s, ok := e.(*ast.StringLit)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, p := range s.Parts {
		if p.Expr != nil {
			return "", false
		}
		b.WriteString(p.Text)
	}
	return b.String(), true
}

// snapshotTokens is the budget of the snapshot sent to the model.
const snapshotTokens = 750

// ModelRequest is what ask-model shows the caller's model: the element
// the step looked for (as its last fingerprint describes it), the
// candidates (ids c1, c2, ...) and a trimmed accessibility snapshot around
// the best one. Every string is masked; a snapshot never holds field
// values.
type ModelRequest struct {
	Action     string
	Line       int
	Was        string // the element as it was: role "name", text, label
	Candidates []drivers.HealCandidate
	Snapshot   string
}

// Prompt is the text sent to the model for r (MCP sampling through
// core.Host.LLM; its answer is read by ParseChoice).
func Prompt(r ModelRequest) string {
	var b strings.Builder
	fmt.Fprintf(&b, "A browser automation step (`%s` at line %d) no longer finds its element.\n", r.Action, r.Line)
	fmt.Fprintf(&b, "The element was: %s\n\nCandidates on the page now:\n", r.Was)
	for i, c := range r.Candidates {
		fmt.Fprintf(&b, "c%d: %s (similarity %.2f)\n", i+1, c.Desc, c.Score)
	}
	if r.Snapshot != "" {
		fmt.Fprintf(&b, "\nAccessibility snapshot of the page around the best candidate:\n%s\n", r.Snapshot)
	}
	b.WriteString("\nAnswer with exactly one candidate id (for example c1), or none when no candidate is the same element.")
	return b.String()
}

var choiceRe = regexp.MustCompile(`(?i)^\W*(c\d+|none)\W*$`)

// ParseChoice reads the model's answer: the index of the candidate it
// named, or -1 with a reason when it said none, named something that is
// not one of the n candidates or answered anything else.
func ParseChoice(answer string, n int) (int, string) {
	m := choiceRe.FindStringSubmatch(strings.TrimSpace(answer))
	if m == nil {
		return -1, fmt.Sprintf("the model's answer %q is not one of the candidates", shorten(answer, 60))
	}
	id := strings.ToLower(m[1])
	if id == "none" {
		return -1, "the model said none of the candidates is the element"
	}
	var i int
	fmt.Sscanf(id, "c%d", &i)
	if i < 1 || i > n {
		return -1, fmt.Sprintf("the model named %s, which is not one of the candidates (c1..c%d)", id, n)
	}
	return i - 1, ""
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// describeFP names what fp was for the model.
func describeFP(fp *drivers.Fingerprint) string {
	var parts []string
	r := fp.Role
	if r == "" {
		r = fp.Tag
	}
	if fp.AccName != "" {
		parts = append(parts, fmt.Sprintf("%s %q", r, fp.AccName))
	} else {
		parts = append(parts, r)
	}
	if fp.Label != "" {
		parts = append(parts, fmt.Sprintf("label %q", fp.Label))
	}
	if fp.Placeholder != "" {
		parts = append(parts, fmt.Sprintf("placeholder %q", fp.Placeholder))
	}
	if fp.Text != "" && fp.Text != fp.AccName {
		parts = append(parts, fmt.Sprintf("text %q", shorten(fp.Text, 60)))
	}
	if len(fp.Neighbours) > 0 {
		parts = append(parts, fmt.Sprintf("next to %q", strings.Join(fp.Neighbours, `", "`)))
	}
	return strings.Join(parts, ", ")
}

// askModel offers the candidates scoring at least ModelMin to the caller's
// model and returns the index of the one it chose (-1: none, with
// info.Status refused or, without a model, left suggested).
func (h *Hook) askModel(ctx context.Context, c *stdlib.Call, f drivers.Frame, fp *drivers.Fingerprint, cands []drivers.HealCandidate, info *stdlib.HealInfo) int {
	var offer []drivers.HealCandidate
	for i, cd := range cands {
		if i == ModelChoices || cd.Score < ModelMin {
			break
		}
		offer = append(offer, stdlib.ShownCandidate(cd))
	}
	host := c.Env.Host()
	if len(offer) == 0 {
		info.Status, info.Reason = stdlib.HealRefused, fmt.Sprintf("no candidate scores %.2f or more to offer the model", ModelMin)
		return -1
	}
	if host.LLM == nil {
		info.Reason = "ask-model needs a client that supports MCP sampling; suggesting instead"
		return -1
	}
	req := ModelRequest{Action: c.Action.Name, Line: c.Line, Was: describeFP(fp), Candidates: offer}
	sopts := snapshot.Options{MaxRows: 5, MaxOptions: 10}
	if cands[0].Frame == 0 {
		sopts.Around = cands[0].Selectors // the region of the best candidate, marked [target]
	}
	if snap, err := snapshot.Take(ctx, f, sopts); err == nil && snap != nil {
		req.Snapshot = maskStr(c, snap.Render(snapshotTokens)) // never a field's value (package snapshot)
	}
	prompt := maskStr(c, Prompt(req))
	answer, err := host.LLM(ctx, prompt, nil)
	if err != nil {
		info.Status, info.Reason = stdlib.HealRefused, "the model could not be asked: "+err.Error()
		return -1
	}
	i, why := ParseChoice(answer, len(offer))
	if i < 0 {
		info.Status, info.Reason = stdlib.HealRefused, why
		return -1
	}
	if cands[i].Frame > 0 {
		info.Status, info.Reason = stdlib.HealRefused, fmt.Sprintf("the model chose %s, inside an iframe; not acted on", cands[i].Desc)
		return -1
	}
	info.Reason = fmt.Sprintf("the model chose c%d: %s", i+1, cands[i].Desc)
	return i
}
