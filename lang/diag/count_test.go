package diag

import (
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
)

func TestCount(t *testing.T) {
	var ds Diagnostics
	ds.Errorf(ast.Range{}, "a")
	ds.Warnf(ast.Range{}, "b")
	ds.Warnf(ast.Range{}, "c")
	if ds.Count(Error) != 1 || ds.Count(Warning) != 2 || Diagnostics(nil).Count(Error) != 0 {
		t.Errorf("Count: %d errors, %d warnings", ds.Count(Error), ds.Count(Warning))
	}
	for n, want := range map[int]string{0: "0 flows", 1: "1 flow", 2: "2 flows"} {
		if got := Plural(n, "flow"); got != want {
			t.Errorf("Plural(%d) = %q", n, got)
		}
	}
}
