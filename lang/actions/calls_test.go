package actions

import (
	"slices"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
)

func lit(s string) *ast.StringLit { return &ast.StringLit{Parts: []ast.StringPart{{Text: s}}} }

func TestCallees(t *testing.T) {
	f := &ast.File{Body: []ast.Stmt{
		&ast.ActionStmt{Action: "call", Args: []ast.Expr{lit("login")}},
		&ast.ActionStmt{Action: "click", Args: []ast.Expr{lit("#x")}},
		&ast.IfStmt{Then: []ast.Stmt{
			&ast.ActionStmt{Action: "call", Args: []ast.Expr{lit("report")}},
			&ast.ActionStmt{Action: "call", Args: []ast.Expr{lit("login")}},
		}},
		&ast.ActionStmt{Action: "call"}, // no argument: a call, no callee
	}}
	if got := Callees(f); !slices.Equal(got, []string{"login", "report"}) {
		t.Errorf("Callees = %v", got)
	}
	if n := len(Calls(f)); n != 4 {
		t.Errorf("Calls found %d, want 4", n)
	}
	if !TakesFlow("call") || TakesFlow("click") || TakesFlow("nope") {
		t.Error("TakesFlow")
	}
	if !IsFlowArg("call", 0) || IsFlowArg("call", 1) || IsFlowArg("open", 0) {
		t.Error("IsFlowArg")
	}
}
