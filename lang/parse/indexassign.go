package parse

import (
	"fmt"

	"github.com/alecthomas/participle/v2/lexer"

	g "github.com/rpa-dev/rpa/lang/parse/internal/grammar"
)

// indexAssign recognises `NAME[...] = V` and `NAME.key = V` (a line the
// grammar cannot parse) and says what to do instead: lists and maps are
// values, never changed in place, so a new one is built and assigned.
func (p *parser) indexAssign(toks []lexer.Token) (string, bool) {
	if len(toks) < 4 || (toks[0].Type != g.Ident && toks[0].Type != g.ActionKw) || (toks[1].Type != g.GLBrack && toks[1].Type != g.GDot) {
		return "", false
	}
	depth := 0
	for _, t := range toks[1:] {
		switch t.Type {
		case g.GLBrack, g.LBrack, g.GLParen, g.LParen, g.LBrace:
			depth++
		case g.RBrack, g.RParen, g.RBrace:
			depth--
		case g.Assign:
			if depth == 0 {
				name := toks[0].Value
				return fmt.Sprintf("cannot assign to a part of %s: lists and maps are values, not changed in place; build a new one and assign it to %s (a map: %s = {...}, a list: %s = concat(%s, [x]))",
					name, name, name, name, name), true
			}
		case g.NL:
			return "", false
		}
	}
	return "", false
}
