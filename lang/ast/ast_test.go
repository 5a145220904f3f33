package ast_test

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/parse"
)

func mustParse(t *testing.T, src string) *ast.File {
	t.Helper()
	f, ds := parse.Flow("t.flow", []byte(src))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	return f
}

func TestEqual(t *testing.T) {
	base := "flow a\nparam p: enum(\"x\", \"y\") = \"x\"\nx = 1\nif len(rows) > 0 {\n    click rows[0].sel timeout: 5s\n}\n"
	a := mustParse(t, base)
	// Same tree: other layout, comments, a {{ }} string for an expression.
	b := mustParse(t, "# c\nflow a\n\nparam p: enum(\"x\",\"y\") = \"x\"\nx = 1\nif len(rows) > 0 { # c\n  click \"{{ rows[0].sel }}\" timeout: 5s\n}\n")
	if !ast.Equal(a, b) {
		t.Fatalf("should be Equal:\n%s\n%s", ast.Dump(a), ast.Dump(b))
	}
	for _, other := range []string{
		strings.Replace(base, "x = 1", "x = 2", 1),
		strings.Replace(base, "x = 1", "x = 1.0", 1),
		strings.Replace(base, "timeout: 5s", "timeout: 6s", 1),
		strings.Replace(base, "timeout: 5s", "wait: 5s", 1),
		strings.Replace(base, "len(rows) > 0", "len(rows) > 1", 1),
		strings.Replace(base, "enum(\"x\", \"y\")", "enum(\"y\", \"x\")", 1),
		strings.Replace(base, "click", "hover", 1),
		base + "log 1\n",
	} {
		if ast.Equal(a, mustParse(t, other)) {
			t.Errorf("should differ:\n%s", other)
		}
	}
	if !ast.EqualExpr(&ast.ListLit{}, &ast.ListLit{Elems: []ast.Expr{}}) {
		t.Error("nil and empty lists differ")
	}
	if !ast.EqualExpr(&ast.ExprSrc{Source: " a "}, &ast.ExprSrc{Source: "a"}) {
		t.Error("ExprSrc not compared trimmed")
	}
	if ast.Equal(a, nil) || !ast.Equal(nil, nil) {
		t.Error("nil handling")
	}
}

func TestWalk(t *testing.T) {
	f := mustParse(t, "flow a\nparam p: int = 1\ndefaults wait: 1s\nif x {\n    log \"n={{ n }}\"\n} else {\n    click [\"#a\", b] with: {\"k\": v}\n}\n")
	var kinds []string
	ast.Walk(f, func(n ast.Node) bool {
		kinds = append(kinds, strings.TrimPrefix(strings.TrimPrefix(typeName(n), "*ast."), "ast."))
		return true
	})
	want := "File Param Type NumberLit Option DurationLit IfStmt ExprSrc LogStmt StringLit ExprSrc ActionStmt ListLit StringLit ExprSrc Option MapLit MapEntry StringLit ExprSrc"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("walk order\n got: %s\nwant: %s", got, want)
	}
	n := 0
	ast.Walk(f, func(node ast.Node) bool {
		n++
		_, isIf := node.(*ast.IfStmt)
		return !isIf
	})
	if n != 7 {
		t.Errorf("skipping the if's children visited %d nodes, want 7", n)
	}
	ast.Walk(nil, func(ast.Node) bool { t.Error("visited nil"); return true })
}

func typeName(n ast.Node) string {
	switch n.(type) {
	case *ast.File:
		return "File"
	case *ast.Param:
		return "Param"
	case *ast.Type:
		return "Type"
	case *ast.Option:
		return "Option"
	case *ast.IfStmt:
		return "IfStmt"
	case *ast.LogStmt:
		return "LogStmt"
	case *ast.ActionStmt:
		return "ActionStmt"
	case *ast.NumberLit:
		return "NumberLit"
	case *ast.DurationLit:
		return "DurationLit"
	case *ast.StringLit:
		return "StringLit"
	case *ast.ExprSrc:
		return "ExprSrc"
	case *ast.ListLit:
		return "ListLit"
	case *ast.MapLit:
		return "MapLit"
	case *ast.MapEntry:
		return "MapEntry"
	}
	return "?"
}

func TestDumpDeterministic(t *testing.T) {
	src := "flow a\nx = {\"b\": 1, \"a\": 2}\n# c\n"
	d1, d2 := ast.Dump(mustParse(t, src)), ast.Dump(mustParse(t, src))
	if d1 != d2 {
		t.Fatal("Dump differs between runs")
	}
	for _, want := range []string{"File [1:1-4:1] t.flow name=\"a\"@[1:6-1:7]", "Assign [2:1-2:21] name=\"x\"@[2:1-2:2]", "Comment [3:1-3:4] \"# c\" trailing=false"} {
		if !strings.Contains(d1, want) {
			t.Errorf("Dump lacks %q:\n%s", want, d1)
		}
	}
}
