package snapshot

import (
	"fmt"
	"strings"
	"testing"
)

func lines(specs ...string) []Line {
	var out []Line
	for _, s := range specs {
		d := (len(s) - len(strings.TrimLeft(s, " "))) / 2
		t := strings.TrimSpace(s)
		ref := ""
		if i := strings.Index(t, "[ref="); i >= 0 {
			ref = strings.TrimSuffix(t[i+5:], "]")
			ref = strings.SplitN(ref, "]", 2)[0]
		}
		out = append(out, Line{Depth: d, Text: t, Ref: ref})
	}
	return out
}

// TestDiff: added and removed lines with their indentation, nothing for
// equal snapshots, a cut note past the budget.
func TestDiff(t *testing.T) {
	a := &Snapshot{URL: "u", Lines: lines(`- form [ref=e1]:`, `  - textbox "A" [ref=e2]`, `  - button "Go" [ref=e3]`)}
	b := &Snapshot{URL: "u", Lines: lines(`- form [ref=e1]:`, `  - textbox "A" [ref=e2]: x`, `  - button "Go" [ref=e3]`, `- text: "saved"`)}
	if d := Diff(a, a, 300); d != "" {
		t.Errorf("equal: %q", d)
	}
	want := "+   - textbox \"A\" [ref=e2]: x\n-   - textbox \"A\" [ref=e2]\n+ - text: \"saved\"\n"
	if d := Diff(a, b, 300); d != want {
		t.Errorf("diff:\n%s\nwant:\n%s", d, want)
	}
	var many []string
	for i := range 200 {
		many = append(many, fmt.Sprintf(`- text: "line number %d of a long list"`, i))
	}
	c := &Snapshot{URL: "u", Lines: lines(many...)}
	d := Diff(a, c, 100)
	if Tokens(d) > 130 || !strings.Contains(d, "[cut: ") {
		t.Errorf("budget 100: %d tokens:\n%s", Tokens(d), d)
	}
}

// TestRender: within budget the whole text; past it a note naming the
// sections left out; never over the budget.
func TestRender(t *testing.T) {
	var specs []string
	for i := range 100 {
		specs = append(specs, fmt.Sprintf(`- list "section %d" [ref=e%d]:`, i, i+1), fmt.Sprintf(`  - link "item %d" [ref=x%d]`, i, i))
	}
	s := &Snapshot{URL: "http://x/", Title: "T", Lines: lines(specs...)}
	full := s.Render(100000)
	if strings.Contains(full, "[cut") || strings.Count(full, "\n") != 201 {
		t.Errorf("full render cut or short: %d lines", strings.Count(full, "\n"))
	}
	for _, budget := range []int{60, 100, 300, 1000} {
		if budget == 60 {
			if out := s.Render(60); Tokens(out) > 60 || !strings.Contains(out, "[cut: ") {
				t.Errorf("budget 60: %d tokens:\n%s", Tokens(out), out)
			}
			continue
		}
		out := s.Render(budget)
		if Tokens(out) > budget {
			t.Errorf("budget %d: %d tokens", budget, Tokens(out))
		}
		if !strings.Contains(out, "[cut: ") || (budget >= 200 && !strings.Contains(out, "selector: one of e")) {
			t.Errorf("budget %d: note:\n%s", budget, out)
		}
	}
	if !strings.HasPrefix(full, `page: "T" http://x/`) {
		t.Errorf("header: %q", full[:40])
	}
}
