package diag

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
)

func rng(line, col, endCol int) ast.Range {
	return ast.Range{File: "a.flow", Start: ast.Pos{Line: line, Col: col}, End: ast.Pos{Line: line, Col: endCol}}
}

func TestFormat(t *testing.T) {
	src := []byte("flow x\nclik \"#submit\"\n\tfill \"#a\" b\nlog \"数据 {{ usr }}\"\n")
	for _, c := range []struct {
		name string
		d    *Diagnostic
		want string
	}{
		{"underline and detail", &Diagnostic{Summary: `unknown action "clik"`, Detail: `did you mean "click"?`, Subject: rng(2, 1, 5)},
			"a.flow:2:1: error: unknown action \"clik\"\n    clik \"#submit\"\n    ^~~~\n    did you mean \"click\"?\n"},
		{"tab expanded", &Diagnostic{Severity: Warning, Summary: "w", Subject: rng(3, 7, 11)},
			"a.flow:3:7: warning: w\n        fill \"#a\" b\n             ^~~~\n"},
		{"wide runes before the subject", &Diagnostic{Summary: `unknown name "usr"`, Subject: rng(4, 16, 19)},
			"a.flow:4:16: error: unknown name \"usr\"\n    log \"数据 {{ usr }}\"\n                 ^~~\n"},
		{"wide rune under the caret", &Diagnostic{Summary: "e", Subject: rng(4, 6, 9)},
			"a.flow:4:6: error: e\n    log \"数据 {{ usr }}\"\n         ^~\n"},
		{"end on another line", &Diagnostic{Summary: "e", Subject: ast.Range{File: "a.flow", Start: ast.Pos{Line: 2, Col: 6}, End: ast.Pos{Line: 3, Col: 1}}},
			"a.flow:2:6: error: e\n    clik \"#submit\"\n         ^\n"},
		{"past the end of the line", &Diagnostic{Summary: "e", Subject: rng(1, 7, 7)},
			"a.flow:1:7: error: e\n    flow x\n          ^\n"},
		{"no such line", &Diagnostic{Summary: "e", Subject: rng(40, 1, 2)}, "a.flow:40:1: error: e\n"},
		{"context on the line before", &Diagnostic{Summary: "e", Subject: rng(3, 7, 11), Context: &ast.Range{File: "a.flow", Start: ast.Pos{Line: 2, Col: 1}, End: ast.Pos{Line: 3, Col: 13}}},
			"a.flow:3:7: error: e\n    clik \"#submit\"\n        fill \"#a\" b\n             ^~~~\n"},
		{"context lines skipped", &Diagnostic{Summary: "e", Subject: rng(4, 1, 4), Context: &ast.Range{File: "a.flow", Start: ast.Pos{Line: 2, Col: 1}, End: ast.Pos{Line: 4, Col: 20}}},
			"a.flow:4:1: error: e\n    clik \"#submit\"\n    ...\n    log \"数据 {{ usr }}\"\n    ^~~\n"},
		{"context on the same line", &Diagnostic{Summary: "e", Subject: rng(2, 6, 15), Context: &ast.Range{File: "a.flow", Start: ast.Pos{Line: 2, Col: 1}, End: ast.Pos{Line: 2, Col: 15}}},
			"a.flow:2:6: error: e\n    clik \"#submit\"\n         ^~~~~~~~~\n"},
	} {
		if got := c.d.Format(src); got != c.want {
			t.Errorf("%s:\ngot:\n%s\nwant:\n%s", c.name, got, c.want)
		}
	}
}

func TestRenderOrder(t *testing.T) {
	var ds Diagnostics
	ds.Warnf(rng(1, 1, 2), "w1")
	ds.Errorf(rng(2, 1, 2), "e2")
	ds.Errorf(rng(1, 1, 2), "e1")
	ds[0].Subject.Start.Offset, ds[1].Subject.Start.Offset, ds[2].Subject.Start.Offset = 0, 7, 0
	var b strings.Builder
	if err := Render(&b, ds, func(string) []byte { return nil }); err != nil {
		t.Fatal(err)
	}
	want := "a.flow:1:1: error: e1\na.flow:2:1: error: e2\na.flow:1:1: warning: w1\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if ds[0].Summary != "w1" {
		t.Errorf("Render must not reorder its argument")
	}
}
