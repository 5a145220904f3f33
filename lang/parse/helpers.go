package parse

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	g "github.com/rpa-dev/rpa/lang/parse/internal/grammar"
)

// lexAll scans src (one expression's text) into tokens with the bracket
// rules of the splitter ('#' is a closure name inside ( and [), without the
// final EOF. ok is false when src holds a newline, a comment or an invalid
// character.
func lexAll(src string) (toks []lexer.Token, ok bool) {
	sc := g.NewScanner("", src)
	depth := 0
	for {
		sc.InParen = depth > 0
		t := sc.Next()
		switch t.Type {
		case g.EOF:
			return toks, true
		case g.NL, g.Comment, g.Invalid:
			return toks, false
		case g.LParen, g.GLParen, g.LBrack, g.GLBrack:
			depth++
		case g.RParen, g.RBrack:
			depth--
		}
		toks = append(toks, t)
	}
}

// IsNamePath reports whether src (surrounding spaces ignored) is a name
// path: NAME followed, with no space, by `.NAME`, `[EXPR]` or `(EXPRS)`
// (`row.kWh`, `rows[0]`, `page.exists("#x")`). A name path is written bare
// in an argument position; any other expression needs `( )`.
func IsNamePath(src string) bool {
	toks, ok := lexAll(strings.TrimSpace(src))
	if !ok || len(toks) == 0 || toks[0].Type != g.Ident {
		return false
	}
	switch toks[0].Value {
	case "true", "false", "null", "nil":
		return false
	}
	depth := 0
	for i := 1; i < len(toks); i++ {
		t := toks[i]
		if depth == 0 {
			switch t.Type {
			case g.GDot:
				if i+1 >= len(toks) || toks[i+1].Type != g.Ident {
					return false
				}
				i++
				continue
			case g.GLBrack, g.GLParen:
				depth++
				continue
			default:
				return false
			}
		}
		switch t.Type {
		case g.LParen, g.GLParen, g.LBrack, g.GLBrack, g.LBrace:
			depth++
		case g.RParen, g.RBrack, g.RBrace:
			depth--
			if depth < 0 {
				return false
			}
		}
	}
	return depth == 0
}

// StartsWithAction reports whether the expression src would be read as an
// action after `NAME =` (its first token is an action name not followed by
// a glued '.', '[' or '('), so a printer must not write it bare there.
func StartsWithAction(src string) bool {
	toks, _ := lexAll(strings.TrimSpace(src))
	if len(toks) == 0 || toks[0].Type != g.Ident || actions.Lookup(toks[0].Value) == nil {
		return false
	}
	if len(toks) > 1 {
		switch toks[1].Type {
		case g.GDot, g.GLParen, g.GLBrack:
			return false
		}
	}
	return true
}

// Expression lowers the source text of a full expression the way the .flow
// parser does (the normalisation rule of ast.Expr): exactly one literal
// token (a string, number, bool, null/nil, or '-' and a number) becomes
// that literal node, a string that is exactly `{{ E }}` becomes E, and
// anything else is an *ast.ExprSrc holding src untouched. r is the range of
// src in its file (the YAML front end passes the scalar's range); literal
// nodes get ranges advanced from r.Start on the same line.
func Expression(src string, r ast.Range) (ast.Expr, *diag.Diagnostic) {
	toks, ok := lexAll(src)
	if ok {
		p := &parser{file: r.File, src: src}
		shift := func(t lexer.Token) lexer.Token {
			t.Pos.Line = r.Start.Line
			t.Pos.Column = r.Start.Col + t.Pos.Offset
			t.Pos.Offset += r.Start.Offset
			return t
		}
		if len(toks) == 1 || (len(toks) == 2 && toks[0].Value == "-") {
			// Re-base the tokens on r, then lower through the parser's
			// literal rules.
			shifted := make([]lexer.Token, len(toks))
			for i, t := range toks {
				shifted[i] = shift(t)
			}
			if lit := p.single(shifted); lit != nil {
				if len(p.diags) > 0 {
					return lit, p.diags[0]
				}
				return lit, nil
			}
		}
	}
	return &ast.ExprSrc{Range: r, Source: src}, nil
}
