package format_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
	"github.com/rpa-dev/rpa/lang/parse"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestFormatGolden formats every lang/testdata/format/*.flow and compares
// with NAME.golden; the output must parse to an Equal tree and format to
// itself.
func TestFormatGolden(t *testing.T) {
	files, _ := filepath.Glob("../testdata/format/*.flow")
	if len(files) < 3 {
		t.Fatalf("expected test flows, found %d", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			f, ds := parse.Flow(path, src)
			if len(ds) > 0 {
				t.Fatalf("input does not parse: %v", ds)
			}
			got := format.Flow(f)
			goldenPath := strings.TrimSuffix(path, ".flow") + ".golden"
			if *update {
				if err := os.WriteFile(goldenPath, got, 0o644); err != nil {
					t.Fatal(err)
				}
			} else if want, err := os.ReadFile(goldenPath); err != nil {
				t.Fatalf("%v (run go test -update)", err)
			} else if string(want) != string(got) {
				t.Errorf("differs from %s (run go test -update to accept):\n%s", goldenPath, got)
			}
			f2, ds := parse.Flow("formatted.flow", got)
			if len(ds) > 0 {
				t.Fatalf("formatted output does not parse: %v\n%s", ds, got)
			}
			if !ast.Equal(f, f2) {
				t.Fatalf("formatted output parses to a different tree:\n%s", got)
			}
			if again := format.Flow(f2); string(again) != string(got) {
				t.Fatalf("not idempotent:\n--- once\n%s--- twice\n%s", got, again)
			}
			if n, m := len(f.Comments), len(f2.Comments); n != m {
				t.Errorf("comments: %d before, %d after", n, m)
			}
		})
	}
}

// TestFormatAST formats hand-built trees (the YAML front end's shapes):
// values that need parentheses or quoting must come back Equal.
func TestFormatAST(t *testing.T) {
	src := func(s string) *ast.ExprSrc { return &ast.ExprSrc{Source: s} }
	str := func(s string) *ast.StringLit { return &ast.StringLit{Parts: []ast.StringPart{{Text: s}}} }
	f := &ast.File{Name: "built", Body: []ast.Stmt{
		&ast.ActionStmt{Action: "fill", Args: []ast.Expr{str("#a"), src("a + 1")}},
		&ast.ActionStmt{Action: "fill", Args: []ast.Expr{str("#a"), src(" row.kWh ")}},
		&ast.ActionStmt{Action: "click", Args: []ast.Expr{str("a{{b")}},
		&ast.ActionStmt{Target: "r", Action: "call", Args: []ast.Expr{str("other")},
			Options: []*ast.Option{{Name: "with", Value: &ast.MapLit{Entries: []*ast.MapEntry{{Key: str("k"), Value: src("v")}}}}}},
		&ast.AssignStmt{Name: "u", Value: src("url")},
		&ast.AssignStmt{Name: "t", Value: src("title + 'x'")},
		&ast.IfStmt{Cond: src("a"), Then: []ast.Stmt{&ast.BreakStmt{}}, Else: []ast.Stmt{
			&ast.IfStmt{Cond: src("b"), Then: []ast.Stmt{&ast.ContinueStmt{}}}}},
	}}
	out := format.Flow(f)
	f2, ds := parse.Flow("built.flow", out)
	if len(ds) > 0 {
		t.Fatalf("%v\n%s", ds, out)
	}
	if !ast.Equal(f, f2) {
		t.Fatalf("not Equal after printing:\n%s\n%s", out, ast.Dump(f2))
	}
	for _, want := range []string{`fill "#a" (a + 1)`, `fill "#a" row.kWh`, `click "a{{ '{{' }}b"`, `r = call other with: {"k": v}`, `u = "{{ url }}"`, `t = "{{ title + 'x' }}"`, "} else if b {"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
