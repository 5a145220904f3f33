package actions

import (
	"flag"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the replay column of docs/spec/LANGUAGE.md's action table from Table")

const specPath = "../../docs/spec/LANGUAGE.md"

// TestSpecTable keeps LANGUAGE.md's action table and Table from drifting:
// the same actions and aliases, every own option named in the options
// column (which may also name common ones), an optional first positional
// written [in brackets], and the replay column equal to Action.Replay.
// `go test ./lang/actions -update` rewrites the replay column.
func TestSpecTable(t *testing.T) {
	src, err := os.ReadFile(specPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(src), "\n")
	start := slices.Index(lines, "## Actions")
	if start < 0 {
		t.Fatal("LANGUAGE.md has no ## Actions section")
	}
	header := "| action | positional | options | result | replay |"
	if lines[start+1] != header {
		t.Fatalf("action table header is %q, want %q", lines[start+1], header)
	}
	tick := regexp.MustCompile("`([a-z_]+)`")
	optRE := regexp.MustCompile("`([a-z_]+):")
	parens := regexp.MustCompile(`\([^()]*\)`)
	common := map[string]bool{}
	for _, o := range Common {
		common[o.Name] = true
	}
	seen := map[string]bool{}
	changed := false
	for i := start + 3; i < len(lines) && strings.HasPrefix(lines[i], "| "); i++ {
		cells := strings.Split(strings.TrimSuffix(strings.TrimPrefix(lines[i], "|"), "|"), "|")
		if len(cells) != 5 {
			t.Errorf("line %d: %d cells, want 5: %s", i+1, len(cells), lines[i])
			continue
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		names, alias, _ := strings.Cut(cells[0], "(alias")
		var row []*Action
		for _, m := range tick.FindAllStringSubmatch(names, -1) {
			a := Lookup(m[1])
			if a == nil || a.Name != m[1] {
				t.Errorf("line %d: %q is not an action of Table", i+1, m[1])
				continue
			}
			seen[a.Name] = true
			row = append(row, a)
		}
		if len(row) == 0 {
			continue
		}
		var aliases []string
		for _, m := range tick.FindAllStringSubmatch(alias, -1) {
			aliases = append(aliases, m[1])
		}
		var want []string
		for _, a := range row {
			want = append(want, a.Aliases...)
		}
		if !slices.Equal(aliases, want) {
			t.Errorf("line %d: aliases %v, Table has %v", i+1, aliases, want)
		}
		docOpts := map[string]bool{}
		// Options are named outside parentheses (which explain them).
		for _, m := range optRE.FindAllStringSubmatch(parens.ReplaceAllString(cells[2], ""), -1) {
			docOpts[m[1]] = true
		}
		for _, a := range row {
			for _, o := range a.Options {
				if !docOpts[o.Name] {
					t.Errorf("line %d: %s's option %s: is not in the options column", i+1, a.Name, o.Name)
				}
			}
			for o := range docOpts {
				if a.Option(o) == nil || (!common[o] && !slices.ContainsFunc(a.Options, func(x Option) bool { return x.Name == o })) {
					t.Errorf("line %d: %s has no option %s:", i+1, a.Name, o)
				}
			}
			if (len(a.Params) == 0) != (cells[1] == "") {
				t.Errorf("line %d: %s takes %d positionals, the column says %q", i+1, a.Name, len(a.Params), cells[1])
			}
			if len(a.Params) > 0 && a.Params[0].Optional != strings.HasPrefix(cells[1], "[") {
				t.Errorf("line %d: %s's first positional optional=%v, the column says %q", i+1, a.Name, a.Params[0].Optional, cells[1])
			}
			if a.Replay() != row[0].Replay() {
				t.Errorf("line %d: %s and %s share a row but not their replay (%q, %q)", i+1, row[0].Name, a.Name, row[0].Replay(), a.Replay())
			}
		}
		if got := cells[4]; got != row[0].Replay() {
			if *update {
				cells[4] = row[0].Replay()
				lines[i] = row2line(cells)
				changed = true
			} else {
				t.Errorf("line %d: replay of %s is %q, Table says %q (go test ./lang/actions -update)", i+1, row[0].Name, got, row[0].Replay())
			}
		}
	}
	for _, a := range Table {
		if !seen[a.Name] {
			t.Errorf("%s is not in LANGUAGE.md's action table", a.Name)
		}
	}
	if changed {
		if err := os.WriteFile(specPath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// row2line writes a table row as LANGUAGE.md does: "| a | b | |".
func row2line(cells []string) string {
	var b strings.Builder
	b.WriteString("|")
	for _, c := range cells {
		if c == "" {
			b.WriteString(" |")
		} else {
			b.WriteString(" " + c + " |")
		}
	}
	return b.String()
}
