package interp

import (
	"context"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
)

// Hand-built ASTs: these tests do not need the parser.

func at(line int) ast.Range { return ast.Range{Start: ast.Pos{Line: line, Col: 1}} }

func str(s string) *ast.StringLit { return &ast.StringLit{Parts: []ast.StringPart{{Text: s}}} }

func src(s string) *ast.ExprSrc { return &ast.ExprSrc{Source: s} }

func TestRunHandBuilt(t *testing.T) {
	f := &ast.File{Name: "t",
		Params: []*ast.Param{{Name: "user", Type: &ast.Type{Name: "string"}},
			{Name: "pw", Type: &ast.Type{Name: "secret"}}},
		Body: []ast.Stmt{
			&ast.ActionStmt{Range: at(3), Action: "open", Args: []ast.Expr{str("http://x/login")}},
			&ast.ActionStmt{Range: at(4), Action: "fill", Args: []ast.Expr{str("#u"), src("user")}},
			&ast.ActionStmt{Range: at(5), Action: "fill", Args: []ast.Expr{str("#p"), src("pw")}},
			&ast.ActionStmt{Range: at(6), Target: "v", Action: "value", Args: []ast.Expr{str("#p")}},
			&ast.LogStmt{Range: at(7), Value: &ast.StringLit{Parts: []ast.StringPart{{Text: "pw is "}, {Expr: src("v")}}}},
			&ast.ReturnStmt{Range: at(8), Value: src(`{"u": user, "v": v}`)},
		}}
	b := fake.New()
	b.OnNewPage = func(p *fake.Page) {
		p.Add("#u", &fake.Element{})
		p.Add("#p", &fake.Element{})
	}
	fl, ds := lang.Check("t.flow", f)
	if fl == nil {
		t.Fatal(ds)
	}
	res, page := Run(context.Background(), fl, Options{Browser: b,
		Args: argsOf(t, fl, map[string]any{"user": "alice", "pw": "hunter2"})})
	if !res.Success {
		t.Fatalf("failed: %+v", res.Error)
	}
	if page == nil {
		t.Fatal("no page")
	}
	if res.TotalActions != 4 || res.CompletedActions != 4 {
		t.Fatalf("counts: %+v", res)
	}
	out := res.Outputs.(map[string]any)
	if out["u"] != "alice" || out["v"] != "***" {
		t.Fatalf("outputs %v", out)
	}
	if len(res.Log) != 1 || res.Log[0] != "pw is ***" {
		t.Fatalf("log %q", res.Log)
	}
	if res.Results[3].Output != "***" {
		t.Fatalf("step output %v", res.Results[3].Output)
	}
	t.Log(b.Log())
}

// TestRunUncheckedFlow: a Flow not made by lang.Load or lang.Check has no
// compiled programs; its first expression fails the run with a clear
// error instead of being compiled untyped on the side.
func TestRunUncheckedFlow(t *testing.T) {
	f := &ast.File{Name: "t", Body: []ast.Stmt{&ast.ReturnStmt{Range: at(1), Value: src("1 + 1")}}}
	res, _ := Run(context.Background(), &lang.Flow{File: f}, Options{Browser: fake.New()})
	if res.Success || res.Error == nil || !strings.Contains(res.Error.Message, "never checked") {
		t.Fatalf("want a run error, got %+v", res.Error)
	}
}
