package schedule

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
)

// Site is the host (with its port when it has one) of the first `open`
// of f, in source order, with args (the typed arguments, defaults
// applied) standing in for the params the address is built from:
// `open "{{ base_url }}/login"` with base_url "http://127.0.0.1:8080" is
// "127.0.0.1:8080". "" when the flow opens nothing or the address needs
// more than params to compute (then no per-site limit applies).
func Site(f *ast.File, args map[string]any) string {
	var open *ast.ActionStmt
	ast.Walk(f, func(n ast.Node) bool {
		if open != nil {
			return false
		}
		if a, ok := n.(*ast.ActionStmt); ok {
			if d := actions.Lookup(a.Action); d != nil && d.Name == "open" && len(a.Args) > 0 {
				open = a
				return false
			}
		}
		return true
	})
	if open == nil {
		return ""
	}
	addr, ok := staticString(open.Args[0], args)
	if !ok {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(addr))
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Host)
}

// staticString is e's value when it is a string literal whose
// interpolations are param names, or a param name.
func staticString(e ast.Expr, args map[string]any) (string, bool) {
	switch e := e.(type) {
	case *ast.StringLit:
		var b strings.Builder
		for _, p := range e.Parts {
			if p.Expr == nil {
				b.WriteString(p.Text)
				continue
			}
			v, ok := paramValue(p.Expr.Source, args)
			if !ok {
				return "", false
			}
			b.WriteString(v)
		}
		return b.String(), true
	case *ast.ExprSrc:
		return paramValue(e.Source, args)
	}
	return "", false
}

func paramValue(name string, args map[string]any) (string, bool) {
	v, ok := args[strings.TrimSpace(name)]
	if !ok || v == nil {
		return "", false
	}
	switch v.(type) {
	case string, int, float64:
		return fmt.Sprint(v), true
	}
	return "", false
}
