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

// TestAppeared: a line is new when no line of the old snapshot has its
// role and name, whatever the states, values and refs (another document
// numbers its refs anew); Head keeps a name's brackets.
func TestAppeared(t *testing.T) {
	for _, c := range []struct{ text, head string }{
		{`- link "Log Out" [ref=e9]`, `link "Log Out"`},
		{`- link "Edit this page [e]" [ref=e3]`, `link "Edit this page [e]"`},
		{`- heading "Say \"hi\"" [level=1] [ref=e4]`, `heading "Say \"hi\""`},
		{`- textbox "A" [ref=e2]: x`, `textbox "A"`},
		{`- form [ref=e1]:`, `form`},
		{`- text: "saved"`, `text`},
	} {
		if got := (Line{Text: c.text}).Head(); got != c.head {
			t.Errorf("Head(%s) = %s, want %s", c.text, got, c.head)
		}
	}
	old := &Snapshot{Lines: lines(`- link "Log In" [ref=e1]`, `- textbox "A" [ref=e2]`, `- checkbox "Keep" [ref=e3]`)}
	cur := &Snapshot{Lines: lines(`- link "Log Out" [ref=e7]`, `- textbox "A" [ref=e8]: typed`, `- checkbox "Keep" [checked] [ref=e9]`, `- link "Admin" [ref=e10]`)}
	var got []string
	for _, l := range Appeared(old, cur) {
		got = append(got, l.Head())
	}
	if fmt.Sprint(got) != `[link "Log Out" link "Admin"]` {
		t.Errorf("appeared %q", got)
	}
}
