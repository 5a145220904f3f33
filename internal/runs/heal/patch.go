package heal

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/selectorgen"
	"github.com/rpa-dev/rpa/internal/msg"
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
	// the runs looked at: a comment marks the line); "suggested" (a
	// candidate healing found but did not act on, as the failed run's
	// packet showed it: ProposeFor; `rpa heal` from the run's mark, unless
	// a newer run matched the flow's own selectors).
	Kind string   `json:"kind"`
	Old  []string `json:"old"`
	New  []string `json:"new,omitempty"`
	// Note is a sentence for people in English (the stale comment's text;
	// NoteIn gives it in another language).
	Note string `json:"note"`
	// noteKey and noteArgs are Note's message (package msg) and its
	// arguments, for NoteIn; noteKey is "" for a note made elsewhere.
	noteKey  string
	noteArgs []any
}

// NoteIn is p's Note in lang ("zh" or "en", package msg); a note without a
// message of the catalog comes back as Note.
func (p Proposal) NoteIn(lang string) string {
	if p.noteKey == "" {
		return p.Note
	}
	return msg.T(lang, p.noteKey, p.noteArgs...)
}

// noted returns p with its note set from the catalog's key and args.
func (p Proposal) noted(key string, args ...any) Proposal {
	p.noteKey, p.noteArgs = key, args
	p.Note = msg.T("en", key, args...)
	return p
}

func init() {
	msg.Register(map[string]msg.Text{
		"heal.note.healed":    {En: "healed to %s (score %.2f); the old selectors are kept after the new ones, positional ones last", Zh: "已自愈为 %s（得分 %.2f）；旧选择器保留在新选择器之后，位置型选择器排在最后"},
		"heal.note.suggested": {En: "a failed run found %s with score %.2f (not acted on: heal suggest, or refused); review before applying, the old selectors are kept after the new ones", Zh: "一次失败的运行找到了 %s，得分 %.2f（未采用：自愈模式为 suggest，或被拒绝）；应用前请检查，旧选择器保留在新选择器之后"},
		"heal.note.reorder":   {En: "%s matched first in %d of the last %d runs", Zh: "最近 %[3]d 次运行中有 %[2]d 次首先匹配的是 %[1]s"},
		"heal.note.stale":     {En: "heal: the first selector matched in none of the last %d runs", Zh: "最近 %d 次运行中第一个选择器一次也没有匹配"},
		"heal.note.stalePos":  {En: "heal: the first selector matched in none of the last %d runs; only positional ones matched (%s of the last %d runs): the others may name text that changes", Zh: "最近 %d 次运行中第一个选择器一次也没有匹配；只有位置型选择器匹配（%s，共最近 %d 次运行）：其他选择器可能指向会变化的文字"},
		"heal.note.staleNone": {En: "heal: the first selector matched in none of the last %d runs (nothing matched in %d)", Zh: "最近 %d 次运行中第一个选择器一次也没有匹配（其中 %d 次什么都没有匹配）"},
		"heal.note.suggest":   {En: "heal %s %s (score %.2f): %s; review before applying", Zh: "自愈 %s %s（得分 %.2f）：%s；应用前请检查"},
	})
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

// runOutcome is what one run's marks say of one line: the best selector
// that matched (its index), that it healed (Healed), that nothing matched
// (runs.MatchedNone), and whether the page was to blame (Page: the
// drivers.PageState kind of a sign-in page, an error, an HTTP error
// document).
type runOutcome struct {
	matched int
	healed  []string
	score   float64
	page    string
	// suggested is the candidate healing found and did not act on in a
	// run where nothing matched (suggest mode, or a refused heal: the
	// failure packet's), suggestScore its score.
	suggested    []string
	suggestScore float64
}

// history is the outcomes of a line's last runs, newest first.
type history struct {
	line int
	sels []string
	runs []runOutcome
}

// histories walks the locating actions of f with a literal selector list
// and gathers, for each that has marks, the outcomes of its last n runs
// (n <= 0: DefaultRuns). A run's several marks of one line (tries, loop
// iterations) are one outcome; marks without a run ID count as a run each.
func histories(f *ast.File, marks []runs.Mark, n int, fn func(h history)) {
	if n <= 0 {
		n = DefaultRuns
	}
	ast.Walk(f, func(nd ast.Node) bool {
		s, ok := nd.(*ast.ActionStmt)
		if !ok || !locating(s.Action) {
			return true
		}
		sels, _ := selectorArg(s)
		if sels == nil {
			return true
		}
		h := history{line: s.Range.Start.Line, sels: sels}
		at := map[string]int{} // run ID → index in h.runs
		for _, m := range marks {
			if m.Line != h.line || !slices.Equal(m.Selectors, sels) {
				continue
			}
			i, seen := at[m.Run]
			if !seen || m.Run == "" {
				if len(h.runs) == n {
					continue
				}
				h.runs = append(h.runs, runOutcome{matched: runs.MatchedNone})
				i = len(h.runs) - 1
				at[m.Run] = i
			}
			o := &h.runs[i]
			switch {
			case m.Matched == runs.MatchedHealed && len(m.Healed) > 0:
				if o.healed == nil {
					o.healed, o.score = m.Healed, m.Score
				}
			case m.Matched >= 0 && (o.matched < 0 || m.Matched < o.matched):
				o.matched = m.Matched
			case m.Matched == runs.MatchedNone && m.Page != "":
				o.page = m.Page
			}
			if m.Matched == runs.MatchedNone && len(m.Healed) > 0 && o.suggested == nil {
				o.suggested, o.suggestScore = m.Healed, m.Score
			}
		}
		if len(h.runs) > 0 {
			fn(h)
		}
		return true
	})
}

// Propose reads marks (newest first, as runs.Store.Marks returns them) of
// f and proposes changes from the last n runs of each line (n <= 0:
// DefaultRuns). Runs whose step found a sign-in page, an error or an HTTP
// error document instead of its page are left out: the selectors are not
// to blame (Notes says so). Notes give the counts in runs: how many there
// were and how many matched which selector. A positional selector (an
// XPath from the root, :nth-of-type; selectorgen.Positional) is never
// moved ahead of the others: it stays last.
func Propose(f *ast.File, marks []runs.Mark, n int) []Proposal {
	var out []Proposal
	histories(f, marks, n, func(h history) {
		if p, ok := propose(h); ok {
			out = append(out, p)
		}
	})
	return out
}

func propose(h history) (Proposal, bool) {
	line, sels := h.line, h.sels
	for _, o := range h.runs {
		if u := usable(o.healed); len(u) > 0 {
			nw := stableFirst(u, sels)
			return Proposal{Line: line, Kind: "healed", Old: sels, New: nw}.noted("heal.note.healed", strconv.Quote(nw[0]), o.score), true
		}
	}
	// The newest failed run's candidate (its failure packet's), unless a
	// newer run matched the line's own selectors or the page was to blame.
	for _, o := range h.runs {
		if o.matched >= 0 {
			break
		}
		if u := usable(o.suggested); len(u) > 0 && o.page == "" {
			nw := stableFirst(u, sels)
			return Proposal{Line: line, Kind: "suggested", Old: sels, New: nw}.noted("heal.note.suggested", strconv.Quote(nw[0]), o.suggestScore), true
		}
	}
	var own []runOutcome // the runs the selectors answer for
	for _, o := range h.runs {
		if o.page == "" {
			own = append(own, o)
		}
	}
	if len(own) == 0 {
		return Proposal{}, false // every failure was the page's (Notes)
	}
	count := make([]int, len(sels))
	matched, none := 0, 0
	for _, o := range own {
		switch {
		case o.matched >= 0 && o.matched < len(sels):
			count[o.matched]++
			matched++
		default:
			none++
		}
	}
	if count[0] > 0 {
		return Proposal{}, false
	}
	// reorder by how often each matched, positional selectors last
	idx := make([]int, len(sels))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		pa, pb := selectorgen.Positional(sels[a]), selectorgen.Positional(sels[b])
		if pa != pb {
			if pa {
				return 1
			}
			return -1
		}
		return count[b] - count[a]
	})
	if len(sels) > 1 && idx[0] != 0 && count[idx[0]] > 0 {
		nw := make([]string, len(sels))
		for i, j := range idx {
			nw[i] = sels[j]
		}
		return Proposal{Line: line, Kind: "reorder", Old: sels, New: nw}.noted("heal.note.reorder", strconv.Quote(sels[idx[0]]), count[idx[0]], len(own)), true
	}
	p := Proposal{Line: line, Kind: "stale", Old: sels}
	switch {
	case matched > 0:
		// only positional selectors matched: they stay last
		var who []string
		for i, c := range count {
			if c > 0 {
				who = append(who, fmt.Sprintf("%s in %d", strconv.Quote(sels[i]), c))
			}
		}
		return p.noted("heal.note.stalePos", len(own), strings.Join(who, ", "), len(own)), true
	case none > 0:
		return p.noted("heal.note.staleNone", len(own), none), true
	}
	return p.noted("heal.note.stale", len(own)), true
}

// stableFirst is nw then the old selectors not in it, with every
// positional selector after the others (nw's before old's).
func stableFirst(nw, old []string) []string {
	var stable, positional []string
	for _, list := range [][]string{nw, old} {
		for _, s := range list {
			if slices.Contains(stable, s) || slices.Contains(positional, s) {
				continue
			}
			if selectorgen.Positional(s) {
				positional = append(positional, s)
			} else {
				stable = append(stable, s)
			}
		}
	}
	return append(stable, positional...)
}

// Note is a sentence `rpa heal` says about a line without proposing a
// change.
type Note struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// Notes says, for each line whose runs failed because of the page (a
// sign-in page, an error, an HTTP error document) in the last n runs, how
// often: no selector is to blame there.
func Notes(f *ast.File, marks []runs.Mark, n int) []Note {
	var out []Note
	histories(f, marks, n, func(h history) {
		kinds := map[string]int{}
		blocked := 0
		for _, o := range h.runs {
			if o.page != "" && o.matched < 0 && o.healed == nil {
				kinds[o.page]++
				blocked++
			}
		}
		if blocked == 0 {
			return
		}
		var what []string
		for _, k := range []string{drivers.PageSignIn, drivers.PageError, drivers.PageHTTPError} {
			if kinds[k] > 0 {
				what = append(what, fmt.Sprintf("%s (%d)", pageWords[k], kinds[k]))
			}
		}
		out = append(out, Note{Line: h.line, Text: fmt.Sprintf("the step failed on %s in %d of the last %d runs, not on its own page: the selectors are not to blame (sign in first, or fix what the page refused)",
			strings.Join(what, ", "), blocked, len(h.runs))})
	})
	return out
}

// pageWords names the kinds of drivers.PageState for Notes.
var pageWords = map[string]string{
	drivers.PageSignIn:    "a sign-in page",
	drivers.PageError:     "an error message",
	drivers.PageHTTPError: "an HTTP error document",
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
