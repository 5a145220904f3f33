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

// Behaviour the replay engine reads from the table (it matched names
// before): the actions that may open a tab and how once-actions are bounded.
func TestBehaviour(t *testing.T) {
	var popup []string
	bounds := map[string]Bound{}
	for _, a := range Table {
		if a.Popup {
			popup = append(popup, a.Name)
		}
		if a.Class == ClassOnce && a.Bound != BoundCancel {
			bounds[a.Name] = a.Bound
		}
		if a.Class == ClassPage && a.Bound != BoundCancel {
			t.Errorf("%s: a retried action has a Bound", a.Name)
		}
	}
	slices.Sort(popup)
	want := []string{"check", "click", "download", "fill", "hover", "open", "press", "select", "type", "uncheck"}
	if !slices.Equal(popup, want) {
		t.Errorf("popup actions %v, want %v", popup, want)
	}
	if len(bounds) != 3 || bounds["wait"] != BoundWait || bounds["download"] != BoundTimeout || bounds["llm"] != BoundTimeoutSet {
		t.Errorf("bounds %v", bounds)
	}
}
