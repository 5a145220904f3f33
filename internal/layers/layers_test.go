package layers

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// moduleRoot returns the module's directory and path, from the go.mod above
// the test's directory.
func moduleRoot(t *testing.T) (dir, module string) {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindSubmatch(b)
			if m == nil {
				t.Fatalf("%s/go.mod: no module line", dir)
			}
			return dir, string(m[1])
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = parent
	}
}

func rules(t *testing.T) *Graph {
	t.Helper()
	g, err := Parse(Rules)
	if err != nil {
		t.Fatalf("Rules: %v", err)
	}
	return g
}

// TestImports is the import rule: every package of the module is in Rules,
// and imports only what is below it there.
func TestImports(t *testing.T) {
	g := rules(t)
	root, module := moduleRoot(t)
	imports, err := Scan(root, module)
	if err != nil {
		t.Fatal(err)
	}
	if len(imports) < 40 {
		t.Fatalf("Scan found %d packages under %s; expected the whole module", len(imports), root)
	}
	for _, p := range g.Check(imports) {
		t.Error(p)
	}
	for _, p := range g.Packages() {
		if _, ok := imports[p]; !ok && !slices.Contains(planned, p) {
			t.Errorf("layers.Rules names %s, which is no package of the module (moved or removed?)", p)
		}
	}
}

// writeTree writes files (slash path → content) under a new temporary dir.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestUpwardImportFails proves the rule can fail: a module tree where lang
// imports the MCP server, interp imports go-rod, and a package is in no
// rule gets one problem each, naming both ends; a test file's import and a
// file built only with the ignore tag do not count.
func TestUpwardImportFails(t *testing.T) {
	const m = "github.com/rpa-dev/rpa"
	dir := writeTree(t, map[string]string{
		"go.mod":                        "module " + m + "\n",
		"lang/lang.go":                  "package lang\nimport (\n\t\"fmt\"\n\t_ \"" + m + "/lang/ast\"\n\t_ \"" + m + "/internal/serve/mcpserver\"\n)\nvar _ = fmt.Sprint\n",
		"lang/lang_test.go":             "package lang\nimport _ \"" + m + "/internal/ui\"\n",
		"lang/gen.go":                   "//go:build ignore\n\npackage main\nimport _ \"" + m + "/cmd/rpa\"\n",
		"lang/ast/ast.go":               "package ast\n",
		"internal/serve/mcpserver/s.go": "package mcpserver\nimport _ \"" + m + "/interp\"\n",
		"interp/run_windows.go":         "package interp\nimport _ \"github.com/go-rod/rod/lib/proto\"\nimport _ \"gopkg.in/yaml.v3\"\n",
		"internal/newthing/n.go":        "package newthing\n",
		"internal/ui/testdata/x.go":     "package x\nimport _ \"" + m + "/cmd/rpa\"\n",
		"e2e/sub/go.mod":                "module other\n",
		"e2e/sub/x.go":                  "package x\nimport _ \"" + m + "/cmd/rpa\"\n",
	})
	imports, err := Scan(dir, m)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range rules(t).Check(imports) {
		got = append(got, p.String())
	}
	want := []string{
		"package internal/newthing is in no rule: add it to layers.Rules in the section of its layer",
		"interp (RUNNING) imports github.com/go-rod/rod/lib/proto (no layer), which is not below it in layers.Rules",
		"lang (LANGUAGE) imports internal/serve/mcpserver (SERVING), which is not below it in layers.Rules",
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ rules, want string }{
		{"NONE < a; b < c < L;", `b is used before it is defined`},
		{"NONE < a; NONE < a < L;", `a is defined twice`},
		{"NONE < a, < L;", `empty name`},
		{"NONE < a b < L;", `names are separated by commas`},
		{"NONE, a < b < L;", `NONE stands alone`},
		{"NONE < a < L; L < b;", `b: after the last layer`},
		{"NONE < L;", `layer L has no packages`},
		{"NONE < a, b; a < L;", `layer L does not reach b of its section`},
		{"a;", `no <`},
	} {
		_, err := Parse(tc.rules)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error with %q", tc.rules, err, tc.want)
		}
	}
}

func TestAllows(t *testing.T) {
	g, err := Parse(`
NONE < x.org/m;
NONE < a, b < A;   # a comment
A, x.org/m < c < d < B;
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		from, to string
		ok       bool
	}{
		{"c", "a", true}, {"d", "a", true}, {"d", "c", true}, {"c", "x.org/m", true},
		{"a", "b", false}, {"c", "d", false}, {"a", "c", false}, {"a", "x.org/m", false},
		{"d", "x.org/m", false}, // a module is its direct importers' alone
	} {
		if got := g.Allows(tc.from, tc.to); got != tc.ok {
			t.Errorf("Allows(%s, %s) = %v", tc.from, tc.to, got)
		}
	}
	if got := g.Layers(); len(got) != 2 || !slices.Equal(got[0].Packages, []string{"a", "b"}) || !slices.Equal(got[1].Packages, []string{"c", "d"}) {
		t.Errorf("Layers() = %v", got)
	}
	if got := g.module("x.org/m/sub"); got != "x.org/m" {
		t.Errorf("module(x.org/m/sub) = %q", got)
	}
	if got := g.module("x.org/mm"); got != "" {
		t.Errorf("module(x.org/mm) = %q", got)
	}
}

// table returns the rows of the first Markdown table after the heading,
// as cells, without its header and separator rows.
func table(t *testing.T, file, heading string) [][]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n"+heading+"\n")
	if !ok {
		t.Fatalf("%s: no %q heading", file, heading)
	}
	var rows [][]string
	for _, line := range strings.Split(rest, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			if len(rows) > 0 {
				break
			}
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		rows = append(rows, cells)
	}
	if len(rows) < 3 {
		t.Fatalf("%s: no table under %q", file, heading)
	}
	return rows[2:]
}

var code = regexp.MustCompile("`([^`]+)`")

// codes returns the `quoted` names of a cell.
func codes(cell string) []string {
	var out []string
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestInternalsTable: docs/internals.md's layer table has one row per layer,
// bottom first, naming exactly that layer's packages.
func TestInternalsTable(t *testing.T) {
	g := rules(t)
	root, _ := moduleRoot(t)
	rows := table(t, filepath.Join(root, "docs", "internals.md"), "## Layers")
	layers := g.Layers()
	if len(rows) != len(layers) {
		t.Errorf("docs/internals.md has %d layer rows, layers.Rules %d layers", len(rows), len(layers))
	}
	for i, l := range layers {
		if i >= len(rows) {
			t.Errorf("docs/internals.md: no row for layer %q (%s)", l.Title(), strings.Join(l.Packages, ", "))
			continue
		}
		row := rows[i]
		if row[0] != l.Title() {
			t.Errorf("docs/internals.md row %d: layer %q, want %q (the order of layers.Rules)", i+1, row[0], l.Title())
			continue
		}
		got := codes(row[1])
		if len(row) < 2 || !sameSet(got, l.Packages) {
			t.Errorf("docs/internals.md layer %q lists %v, layers.Rules %v", l.Title(), got, l.Packages)
		}
	}
}

// TestReadmeLayout: each path of the README's Layout table covers (as the
// longest path that holds it) only packages of its row's layer, every
// package is covered, and a row without a layer covers no package.
func TestReadmeLayout(t *testing.T) {
	g := rules(t)
	root, _ := moduleRoot(t)
	rows := table(t, filepath.Join(root, "README.md"), "## Layout")
	layerOfPath := map[string]string{} // "lang/" -> "language" ("" for a row without layer)
	titles := map[string]bool{}
	for _, l := range g.Layers() {
		titles[l.Title()] = true
	}
	for _, row := range rows {
		if row[0] != "" && !titles[row[0]] {
			t.Errorf("README Layout: %q is no layer of layers.Rules", row[0])
		}
		if len(row) < 2 {
			continue
		}
		for _, p := range codes(row[1]) {
			if !strings.HasSuffix(p, "/") {
				t.Errorf("README Layout: path %q does not end in /", p)
			}
			layerOfPath[p] = row[0]
		}
	}
	used := map[string]bool{}
	for _, l := range g.Layers() {
		for _, pkg := range l.Packages {
			best := ""
			for p := range layerOfPath {
				if strings.HasPrefix(pkg+"/", p) && len(p) > len(best) {
					best = p
				}
			}
			switch {
			case best == "":
				t.Errorf("README Layout: no path holds %s (layer %s)", pkg, l.Title())
			case layerOfPath[best] != l.Title():
				t.Errorf("README Layout: %s is in the %q row, but %s is in layer %q", best, layerOfPath[best], pkg, l.Title())
			}
			used[best] = true
		}
	}
	for p, l := range layerOfPath {
		if l != "" && !used[p] {
			t.Errorf("README Layout: path %s (layer %q) holds no package of that layer", p, l)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestPrinciples pins the three boundaries the developers' guide names, so
// that a change of Rules cannot drop them unnoticed: lang knows nothing of
// browsers, interp reaches the browser only through drivers, the MCP layer
// reaches flows only through interp (no browser of its own).
func TestPrinciples(t *testing.T) {
	g := rules(t)
	for _, tc := range []struct{ from, to string }{
		{"lang", "drivers"},
		{"lang/check", "drivers"},
		{"lang", "core"}, // the language does not know the run's vocabulary either
		{"interp", "drivers/rod"},
		{"interp", "drivers/snapshot"},
		{"interp", "github.com/go-rod/rod"},
		{"stdlib", "drivers/rod"},
		{"interp", "github.com/modelcontextprotocol/go-sdk"},
		{"internal/serve/mcpserver", "drivers/rod"},
		{"internal/serve/mcpserver", "github.com/go-rod/rod"},
		{"internal/serve/mcpserver", "internal/serve/localrun"},
		{"drivers", "interp"},
		{"drivers", "internal/host/home"},                        // profiles, locks and rpa's folder are the host's
		{"drivers/rod", "internal/host/profiles"},                // the driver knows nothing of profiles
		{"internal/authoring/recorder", "github.com/go-rod/rod"}, // go-rod only behind drivers/rod
		{"internal/runs", "interp"},
		{"internal/link/gateway", "interp"},
	} {
		if g.Allows(tc.from, tc.to) {
			t.Errorf("layers.Rules lets %s import %s", tc.from, tc.to)
		}
	}
	for _, tc := range []struct{ from, to string }{
		{"interp", "drivers"},
		{"internal/serve/mcpserver", "interp"},
		{"internal/serve/localrun", "drivers/rod"},
	} {
		if !g.Allows(tc.from, tc.to) {
			t.Errorf("layers.Rules does not let %s import %s", tc.from, tc.to)
		}
	}
}
