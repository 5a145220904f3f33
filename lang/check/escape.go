package check

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
)

// Escaping helpers of the expression language (LANGUAGE.md, "Expressions"): a value goes into a
// URL or a selector through one of them, so that a param holding `&`, `#`, `"` or `'` cannot change
// what the URL asks for or what the selector matches. Each takes any value (shown as in `{{ }}`,
// see Stringify) and returns a string.
const (
	FuncURLQuery    = "urlquery"    // a query-string component: url.QueryEscape (space → "+")
	FuncURLPath     = "urlpath"     // one path segment: url.PathEscape ("/" → "%2F")
	FuncCSSEscape   = "cssescape"   // a CSS identifier or string body: CSS.escape() of CSSOM
	FuncXPathString = "xpathstring" // a complete XPath string literal, quotes included
)

// escapeFuncs registers the escaping helpers with an expr config.
func escapeFuncs(cfg *conf.Config) {
	sig := new(func(any) string)
	for name, fn := range map[string]func(string) string{
		FuncURLQuery:    url.QueryEscape,
		FuncURLPath:     url.PathEscape,
		FuncCSSEscape:   CSSEscape,
		FuncXPathString: XPathString,
	} {
		fn := fn
		expr.Function(name, func(params ...any) (any, error) {
			return fn(Stringify(params[0])), nil
		}, sig)(cfg)
	}
}

// CSSEscape escapes s for use in a CSS selector as an identifier (`#{{ cssescape(id) }}`) or
// inside a quoted attribute value, following CSS.escape() of the CSSOM specification
// ("serialize an identifier", https://drafts.csswg.org/cssom/#serialize-an-identifier).
func CSSEscape(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r == 0:
			b.WriteRune('\uFFFD')
		case r >= 0x1 && r <= 0x1f || r == 0x7f,
			i == 0 && r >= '0' && r <= '9',
			i == 1 && r >= '0' && r <= '9' && rs[0] == '-':
			fmt.Fprintf(&b, "\\%x ", r)
		case i == 0 && r == '-' && len(rs) == 1:
			b.WriteString("\\-")
		case r >= 0x80 || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z':
			b.WriteRune(r)
		default:
			b.WriteByte('\\')
			b.WriteRune(r)
		}
	}
	return b.String()
}

// XPathString returns s as an XPath 1.0 string literal: 'a', "it's", or, when s holds both
// quote kinds, concat('say "', "it's", '"').
func XPathString(s string) string {
	if !strings.Contains(s, "'") {
		return "'" + s + "'"
	}
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	parts := strings.Split(s, "'")
	var b strings.Builder
	b.WriteString("concat(")
	for i, p := range parts {
		if i > 0 {
			b.WriteString(`, "'", `)
		}
		b.WriteString("'" + p + "'")
	}
	b.WriteString(")")
	return b.String()
}

var bareName = regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$`)

// rawInterp warns when a param goes raw (`{{ name }}`, no escaping helper) into the query of an
// `open` URL or into a CSS or XPath selector: a value holding `&`/`#` changes what the URL asks for,
// one holding a quote or bracket changes what the selector matches.
func (c *checker) rawInterp(s *ast.ActionStmt, kind actions.Kind, arg ast.Expr) {
	switch {
	case kind == actions.KindSelector:
		var lits []*ast.StringLit
		switch x := arg.(type) {
		case *ast.StringLit:
			lits = append(lits, x)
		case *ast.ListLit:
			for _, el := range x.Elems {
				if l, ok := el.(*ast.StringLit); ok {
					lits = append(lits, l)
				}
			}
		}
		for _, l := range lits {
			c.rawInSelector(l)
		}
	case s.Action == "open":
		if l, ok := arg.(*ast.StringLit); ok {
			c.rawInQuery(l)
		}
	}
}

// rawParam returns the param a `{{ }}` part names bare, or "".
func (c *checker) rawParam(p ast.StringPart) string {
	if p.Expr == nil {
		return ""
	}
	m := bareName.FindStringSubmatch(p.Expr.Source)
	if m == nil {
		return ""
	}
	if v := c.lookup(m[1]); v != nil && v.kind == varParam {
		return m[1]
	}
	return ""
}

func (c *checker) rawInSelector(l *ast.StringLit) {
	if len(l.Parts) == 0 || len(l.Parts) == 1 && l.Parts[0].Expr != nil {
		return // a selector that is the param itself: the caller gives a whole selector
	}
	head := l.Parts[0].Text
	xpath := strings.HasPrefix(head, "xpath=") || strings.HasPrefix(head, "//")
	if !xpath && (strings.HasPrefix(head, "text=") || strings.HasPrefix(head, "aria/")) {
		return // matched as text, not parsed
	}
	for _, p := range l.Parts {
		name := c.rawParam(p)
		if name == "" {
			continue
		}
		d := c.warnf(p.Expr.Range, "param %q goes into a selector unescaped", name)
		if xpath {
			d.Detail = fmt.Sprintf("a quote in it changes what the selector matches; write {{ %s(%s) }} in place of the quoted string", FuncXPathString, name)
		} else {
			d.Detail = fmt.Sprintf("a quote, bracket or # in it changes what the selector matches; write {{ %s(%s) }}", FuncCSSEscape, name)
		}
	}
}

func (c *checker) rawInQuery(l *ast.StringLit) {
	inQuery := false
	for _, p := range l.Parts {
		if p.Expr == nil {
			if strings.ContainsAny(p.Text, "?") {
				inQuery = true
			}
			if strings.Contains(p.Text, "#") {
				return // the fragment
			}
			continue
		}
		if !inQuery {
			continue
		}
		if name := c.rawParam(p); name != "" {
			d := c.warnf(p.Expr.Range, "param %q goes into the URL's query unescaped", name)
			d.Detail = fmt.Sprintf("a & or # in it changes what the URL asks for; write {{ %s(%s) }}", FuncURLQuery, name)
		}
	}
}
