package heal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/internal/runs"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
)

// DefaultRuns is how many recent runs `rpa heal` looks at by default.
const DefaultRuns = 10

// Proposal is one change healing proposes for a line of a flow
// (`rpa heal`, the MCP resource rpa://flows/{name}/heal, the failure
// packet).
type Proposal struct {
	Line int `json:"line"`
	// Kind is "healed" (the step healed: its new selectors go first, the
	// old ones after them), "reorder" (another selector of the list
	// matched more often than the first: the list is reordered by how
	// often each matched) or "stale" (the first selector did not match in
	// the runs looked at: a comment marks the line); "suggested" only in
	// a failure packet (ProposeFor: a candidate healing did not act on).
	Kind string   `json:"kind"`
	Old  []string `json:"old"`
	New  []string `json:"new,omitempty"`
	// Note is a sentence for people (the stale comment's text).
	Note string `json:"note"`
}

// selectorArg returns the literal selector list of an action statement
// (nil when its first argument is not a selector or not a plain literal).
func selectorArg(s *ast.ActionStmt) ([]string, ast.Range) {
	if len(s.Args) == 0 {
		return nil, ast.Range{}
	}
	switch x := s.Args[0].(type) {
	case *ast.StringLit:
		if v, ok := stringLit(x); ok {
			return []string{v}, x.Range
		}
	case *ast.ListLit:
		var out []string
		for _, e := range x.Elems {
			v, ok := stringLit(e)
			if !ok {
				return nil, ast.Range{}
			}
			out = append(out, v)
		}
		return out, x.Range
	}
	return nil, ast.Range{}
}

// locating reports whether an action's first parameter is a selector.
func locating(name string) bool {
	a := actions.Lookup(name)
	return a != nil && len(a.Params) > 0 && a.Params[0].Kind == actions.KindSelector
}

// Propose reads marks (newest first, as runs.Store.Marks returns them) of
// f and proposes changes, looking at the last n marks of each line (n <= 0:
// DefaultRuns).
func Propose(f *ast.File, marks []runs.Mark, n int) []Proposal {
	if n <= 0 {
		n = DefaultRuns
	}
	var out []Proposal
	ast.Walk(f, func(nd ast.Node) bool {
		s, ok := nd.(*ast.ActionStmt)
		if !ok || !locating(s.Action) {
			return true
		}
		sels, _ := selectorArg(s)
		if sels == nil {
			return true
		}
		line := s.Range.Start.Line
		var ms []runs.Mark
		for _, m := range marks {
			if m.Line == line && slices.Equal(m.Selectors, sels) && len(ms) < n {
				ms = append(ms, m)
			}
		}
		if len(ms) == 0 {
			return true
		}
		for _, m := range ms {
			if m.Matched == runs.MatchedHealed && len(m.Healed) > 0 {
				nw := usable(m.Healed)
				for _, o := range sels {
					if !slices.Contains(nw, o) {
						nw = append(nw, o)
					}
				}
				out = append(out, Proposal{Line: line, Kind: "healed", Old: sels, New: nw,
					Note: fmt.Sprintf("healed to %s (score %.2f); the old selectors are kept after the new ones", strconv.Quote(m.Healed[0]), m.Score)})
				return true
			}
		}
		count := make([]int, len(sels))
		firsts := 0
		for _, m := range ms {
			if m.Matched >= 0 && m.Matched < len(sels) {
				count[m.Matched]++
			}
			if m.Matched == 0 {
				firsts++
			}
		}
		if firsts > 0 {
			return true
		}
		idx := make([]int, len(sels))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return count[b] - count[a] })
		if len(sels) > 1 && idx[0] != 0 {
			nw := make([]string, len(sels))
			for i, j := range idx {
				nw[i] = sels[j]
			}
			out = append(out, Proposal{Line: line, Kind: "reorder", Old: sels, New: nw,
				Note: fmt.Sprintf("%s matched first in %d of the last %d runs", strconv.Quote(sels[idx[0]]), count[idx[0]], len(ms))})
			return true
		}
		failed := 0
		for _, m := range ms {
			if m.Matched == runs.MatchedNone {
				failed++
			}
		}
		note := fmt.Sprintf("heal: the first selector did not match in the last %d runs", len(ms))
		if failed > 0 {
			note += fmt.Sprintf(" (nothing matched in %d)", failed)
		}
		out = append(out, Proposal{Line: line, Kind: "stale", Old: sels, Note: note})
		return true
	})
	return out
}

// usable drops selectors a flow string cannot hold literally ({{ would
// interpolate).
func usable(sels []string) []string {
	var out []string
	for _, s := range sels {
		if !strings.Contains(s, "{{") {
			out = append(out, s)
		}
	}
	return out
}

// Apply applies props to the flow source src (its parsed form f) and
// returns the new source, formatted (lang/format; comments kept). A stale
// line gets a comment above it.
func Apply(filename string, src []byte, f *ast.File, props []Proposal) ([]byte, error) {
	byLine := map[int]Proposal{}
	for _, p := range props {
		byLine[p.Line] = p
	}
	type edit struct {
		start, end int
		text       string
	}
	var edits []edit
	ast.Walk(f, func(nd ast.Node) bool {
		s, ok := nd.(*ast.ActionStmt)
		if !ok {
			return true
		}
		p, ok := byLine[s.Range.Start.Line]
		if !ok {
			return true
		}
		sels, r := selectorArg(s)
		if sels == nil || !slices.Equal(sels, p.Old) {
			return true
		}
		if p.Kind == "stale" {
			ls := strings.LastIndexByte(string(src[:s.Range.Start.Offset]), '\n') + 1
			indent := string(src[ls:s.Range.Start.Offset])
			if strings.TrimSpace(indent) != "" {
				indent = ""
			}
			edits = append(edits, edit{ls, ls, indent + "# " + p.Note + "\n"})
			return true
		}
		edits = append(edits, edit{r.Start.Offset, r.End.Offset, listText(p.New)})
		return true
	})
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	out := append([]byte(nil), src...)
	for _, e := range edits {
		out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	g, ds := lang.Parse(filename, out)
	if ds.HasErrors() {
		return nil, fmt.Errorf("heal: the patched flow does not parse: %v", ds)
	}
	return format.Flow(g), nil
}

// listText is a selector list as flow source: one string, or a list.
func listText(sels []string) string {
	q := make([]string, len(sels))
	for i, s := range sels {
		q[i] = strconv.Quote(s)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "[" + strings.Join(q, ", ") + "]"
}
