package check

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/conf"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/totp"
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

// FuncTOTP is `totp(SEED)` or `totp(SEED, {"algorithm": "SHA256", "digits":
// 8, "period": 60})`: the current RFC 6238 code of a seed (base32 or an
// otpauth://totp/ URI; package lang/totp), a string of 6 or 8 digits. Read
// from a credential (`totp(account.totp)`) it is a secret like the seed.
const FuncTOTP = "totp"

// Now is the clock of totp() (tests replace it).
var Now = time.Now

// totpFunc registers totp with an expr config.
func totpFunc(cfg *conf.Config) {
	expr.Function(FuncTOTP, func(params ...any) (any, error) {
		seed, ok := params[0].(string)
		if !ok {
			return nil, fmt.Errorf("totp: the seed must be a string, got %T", params[0])
		}
		var o totp.Options
		if len(params) > 1 && params[1] != nil {
			m, ok := params[1].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("totp: the options must be a map, got %T", params[1])
			}
			for k, v := range m {
				switch k {
				case "algorithm":
					o.Algorithm, _ = v.(string)
				case "digits", "period":
					n, ok := wholeNumber(v)
					if !ok {
						return nil, fmt.Errorf("totp: %s must be a whole number", k)
					}
					if k == "digits" {
						o.Digits = n
					} else {
						o.Period = n
					}
				default:
					return nil, fmt.Errorf("totp: unknown option %q (algorithm, digits, period)", k)
				}
			}
		}
		return totp.Code(seed, o, Now())
	}, new(func(string) string), new(func(string, map[string]any) string))(cfg)
}

// wholeNumber reads a whole number of an expression value.
func wholeNumber(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == float64(int(x)) {
			return int(x), true
		}
	}
	return 0, false
}

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
