package authoring

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
)

// FuzzCompileValue: whatever text an agent fills in (quotes, backslashes,
// newlines, `{{`, non-ASCII), the compiled flow checks clean and its fill
// writes exactly that text: nothing is interpolated, nothing lost.
func FuzzCompileValue(f *testing.F) {
	for _, s := range []string{"admin", `say "hi"`, `a\b`, "line\nline", "{{ x }}", "{{ '{{' }}", "}}{{", "ąčiū 你好 👍", "\x00\t", "#not a comment"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		l := &Log{}
		l.Add(Entry{Kind: KindOpen, URL: "http://site.test/form"})
		l.Add(Entry{Kind: KindFill, Target: &Element{Selectors: []string{"#f"}, Desc: v}, Value: v})
		desc := strings.ReplaceAll(strings.ToValidUTF8(v, ""), "{{", "")
		out, err := Compile(l, Meta{Name: "fuzz", Description: desc})
		if err != nil {
			t.Fatal(err)
		}
		if out.Flow == nil {
			t.Fatalf("does not check: %v\n%s", out.Diagnostics, out.Text)
		}
		var fill *ast.ActionStmt
		for _, s := range out.Flow.File.Body {
			if a, ok := s.(*ast.ActionStmt); ok && a.Action == "fill" {
				fill = a
			}
		}
		if fill == nil || len(fill.Args) != 2 {
			t.Fatalf("no fill:\n%s", out.Text)
		}
		got, ok := literalText(fill.Args[1])
		if !ok || got != v {
			t.Fatalf("fill writes %q, want %q\n%s", got, v, out.Text)
		}
		if out.Flow.File.Description != desc {
			t.Fatalf("description %q, want %q", out.Flow.File.Description, desc)
		}
		if _, err := Compile(l, Meta{Name: "fuzz", Description: "a {{ b"}); err == nil {
			t.Fatal("a description with {{ was taken")
		}
	})
}

// literalText is the value of a string literal whose only interpolations
// are the escape {{ '{{' }}.
func literalText(e ast.Expr) (string, bool) {
	sl, ok := e.(*ast.StringLit)
	if !ok {
		return "", false
	}
	var b strings.Builder
	for _, p := range sl.Parts {
		if p.Expr == nil {
			b.WriteString(p.Text)
			continue
		}
		if strings.TrimSpace(p.Expr.Source) != "'{{'" {
			return "", false
		}
		b.WriteString("{{")
	}
	return b.String(), true
}
