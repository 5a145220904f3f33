// Package layers states which of rpa's packages may import which (Rules)
// and checks the module's imports against it, in the spirit of Go's own
// go/build/deps_test.go: the layering is one rule string, and a test lists
// every package's imports and fails, naming both packages, on an import that
// runs back up. docs/internals.md's layer table and the README's Layout
// table are checked against the same rules, so the three say one thing.
//
// Nothing imports this package; its test is what it is for.
package layers

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Graph is a parsed rule string: for each name, what it may import.
type Graph struct {
	direct map[string][]string        // name -> the names on the left of its rule
	reach  map[string]map[string]bool // name -> every name below it
	layers []Layer
	names  []string // every package and module named, in rule order
}

// Layer is one ALL-CAPS group of Rules with the packages declared in its
// section, in rule order.
type Layer struct {
	Name     string   // as in Rules: "BROWSER_SEAM"
	Packages []string // relative to the module: "drivers"
}

// Title is the layer's name as the docs write it: "browser seam".
func (l Layer) Title() string {
	return strings.ToLower(strings.ReplaceAll(l.Name, "_", " "))
}

var layerName = regexp.MustCompile(`^[A-Z][A-Z_]*$`)

// isLayer reports whether name is an ALL-CAPS layer name.
func isLayer(name string) bool { return layerName.MatchString(name) }

// isModule reports whether name is a third-party module path (its first
// element holds a dot), not a package of ours.
func isModule(name string) bool {
	first, _, _ := strings.Cut(name, "/")
	return strings.Contains(first, ".")
}

// Parse reads a rule string (the language is described on Rules). Errors
// name the rule: a name used on a left side before it is defined, a name
// defined twice, an empty list, a package after the last layer.
func Parse(rules string) (*Graph, error) {
	g := &Graph{direct: map[string][]string{}, reach: map[string]map[string]bool{}}
	var pending []string // packages since the last layer
	for n, rule := range splitRules(rules) {
		lists := strings.Split(rule, "<")
		if len(lists) < 2 {
			return nil, fmt.Errorf("rule %d %q: no <", n+1, rule)
		}
		var left []string
		for i, list := range lists {
			var names []string
			for _, f := range strings.Split(list, ",") {
				f = strings.TrimSpace(f)
				if f == "" {
					return nil, fmt.Errorf("rule %d %q: empty name in a list", n+1, rule)
				}
				if strings.ContainsAny(f, " \t\n") {
					return nil, fmt.Errorf("rule %d %q: %q: names are separated by commas", n+1, rule, f)
				}
				names = append(names, f)
			}
			if i == 0 {
				for _, l := range names {
					if l == "NONE" {
						if len(names) > 1 {
							return nil, fmt.Errorf("rule %d %q: NONE stands alone", n+1, rule)
						}
						continue
					}
					if _, ok := g.reach[l]; !ok {
						return nil, fmt.Errorf("rule %d %q: %s is used before it is defined", n+1, rule, l)
					}
				}
				if names[0] == "NONE" {
					names = nil
				}
				left = names
				continue
			}
			for _, r := range names {
				if r == "NONE" {
					return nil, fmt.Errorf("rule %d %q: NONE on a right side", n+1, rule)
				}
				if _, ok := g.reach[r]; ok {
					return nil, fmt.Errorf("rule %d %q: %s is defined twice", n+1, rule, r)
				}
				below := map[string]bool{}
				for _, l := range left {
					below[l] = true
					for b := range g.reach[l] {
						if !isModule(b) { // a module is its direct importers' alone
							below[b] = true
						}
					}
				}
				g.direct[r] = left
				g.reach[r] = below
				switch {
				case isLayer(r):
					if len(pending) == 0 {
						return nil, fmt.Errorf("rule %d %q: layer %s has no packages", n+1, rule, r)
					}
					for _, p := range pending {
						if !below[p] {
							return nil, fmt.Errorf("rule %d %q: layer %s does not reach %s of its section (name it left of < %s)", n+1, rule, r, p, r)
						}
					}
					g.layers = append(g.layers, Layer{Name: r, Packages: pending})
					pending = nil
				case isModule(r):
					g.names = append(g.names, r)
				default:
					g.names = append(g.names, r)
					pending = append(pending, r)
				}
			}
			left = names
		}
	}
	if len(pending) > 0 {
		return nil, fmt.Errorf("%s: after the last layer (end the section with < LAYER)", strings.Join(pending, ", "))
	}
	return g, nil
}

// splitRules drops comments and splits on semicolons, keeping non-empty rules.
func splitRules(rules string) []string {
	var b strings.Builder
	for _, line := range strings.Split(rules, "\n") {
		line, _, _ = strings.Cut(line, "#")
		b.WriteString(line)
		b.WriteByte(' ')
	}
	var out []string
	for _, r := range strings.Split(b.String(), ";") {
		if r = strings.Join(strings.Fields(r), " "); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// Layers returns the layers bottom first, each with its packages.
func (g *Graph) Layers() []Layer { return g.layers }

// Packages returns every package of ours the rules name, in rule order.
func (g *Graph) Packages() []string {
	var out []string
	for _, n := range g.names {
		if !isModule(n) {
			out = append(out, n)
		}
	}
	return out
}

// LayerOf returns the layer whose section names pkg, or "".
func (g *Graph) LayerOf(pkg string) string {
	for _, l := range g.layers {
		if slices.Contains(l.Packages, pkg) {
			return l.Name
		}
	}
	return ""
}

// Allows reports whether package from may import to: to is below from in
// the rules.
func (g *Graph) Allows(from, to string) bool { return g.reach[from][to] }

// module returns the name in the rules that a third-party import path falls
// under ("github.com/go-rod/rod/lib/proto" → "github.com/go-rod/rod"), or ""
// when the rules leave it free.
func (g *Graph) module(path string) string {
	best := ""
	for _, n := range g.names {
		if isModule(n) && (path == n || strings.HasPrefix(path, n+"/")) && len(n) > len(best) {
			best = n
		}
	}
	return best
}

// Problem is one breach of the rules.
type Problem struct {
	Package string // the importing package, relative to the module
	Import  string // what it imports ("" when the package itself is in no rule)
	Msg     string
}

func (p Problem) String() string { return p.Msg }

// Check returns every import of imports (package → its imports, in-module
// ones relative to the module, as Scan gives them) that the rules do not
// allow, and every package the rules do not name, sorted.
func (g *Graph) Check(imports map[string][]string) []Problem {
	var out []Problem
	for pkg, imps := range imports {
		if _, ok := g.reach[pkg]; !ok || isLayer(pkg) || isModule(pkg) {
			out = append(out, Problem{Package: pkg, Msg: fmt.Sprintf(
				"package %s is in no rule: add it to layers.Rules in the section of its layer", pkg)})
			continue
		}
		for _, imp := range imps {
			name := imp
			if isModule(imp) {
				if name = g.module(imp); name == "" {
					continue
				}
			} else if _, ok := imports[imp]; !ok {
				if _, named := g.reach[imp]; !named {
					continue // not a package of the module (standard library)
				}
			}
			if g.Allows(pkg, name) {
				continue
			}
			out = append(out, Problem{Package: pkg, Import: imp, Msg: fmt.Sprintf(
				"%s (%s) imports %s (%s), which is not below it in layers.Rules",
				pkg, orNone(g.LayerOf(pkg)), imp, orNone(g.LayerOf(name)))})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Package != out[j].Package {
			return out[i].Package < out[j].Package
		}
		return out[i].Import < out[j].Import
	})
	return out
}

func orNone(layer string) string {
	if layer == "" {
		return "no layer"
	}
	return layer
}

// Scan lists the Go packages under root, the directory of the module whose
// path is module: each package (its directory relative to root, "/"
// separated) with the imports of its non-test files for every GOOS and
// architecture (files built only with the ignore tag are left out), the
// module's own imports made relative to it. Directories named testdata or
// node_modules, starting with "." or "_", or holding another go.mod are
// skipped, as the go command does.
func Scan(root, module string) (map[string][]string, error) {
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root {
			if name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
		}
		imps, ok, err := dirImports(path, module)
		if err != nil || !ok {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)] = imps
		return nil
	})
	return out, err
}

// dirImports reads the imports of the non-test Go files of dir; ok is false
// when it has none.
func dirImports(dir, module string) (imps []string, ok bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	fset := token.NewFileSet()
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return nil, false, err
		}
		if ignored(f.Comments, f.Package) {
			continue
		}
		ok = true
		for _, is := range f.Imports {
			p := strings.Trim(is.Path.Value, "`\"")
			if p == module {
				p = "."
			} else if rest, in := strings.CutPrefix(p, module+"/"); in {
				p = rest
			}
			if !seen[p] {
				seen[p] = true
				imps = append(imps, p)
			}
		}
	}
	sort.Strings(imps)
	return imps, ok, nil
}

// ignored reports whether a file's //go:build line (before the package
// clause) names the ignore tag, which no build sets.
func ignored(groups []*ast.CommentGroup, pkg token.Pos) bool {
	for _, g := range groups {
		if g.Pos() >= pkg {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			x, err := constraint.Parse(c.Text)
			if err != nil {
				continue
			}
			found := false
			x.Eval(func(tag string) bool {
				if tag == "ignore" {
					found = true
				}
				return true
			})
			if found {
				return true
			}
		}
	}
	return false
}
