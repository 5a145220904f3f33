package check

import (
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/parse"
)

// TestWithoutComments: a comment inside a multi-line `{ }` is blanked for
// expr-lang, offsets unchanged, and the AST's Source keeps it.
func TestWithoutComments(t *testing.T) {
	src := "flow a\ny = {\n  \"a\": 1, # note\n}\n"
	f, ds := parse.Flow("c.flow", []byte(src))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	e := f.Body[0].(*ast.AssignStmt).Value.(*ast.ExprSrc)
	if want := "{\n  \"a\": 1,       \n}"; withoutComments(f, e) != want {
		t.Errorf("withoutComments = %q, want %q", withoutComments(f, e), want)
	}
	if e.Source != "{\n  \"a\": 1, # note\n}" {
		t.Errorf("Source changed: %q", e.Source)
	}
}
