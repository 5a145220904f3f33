package parse

import (
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	g "github.com/rpa-dev/rpa/lang/parse/internal/grammar"
)

// joinHint is the detail of an error at toks[i], an operator standing
// between an action's arguments (`ask "Pick for " + region`): an action's
// argument is one value (LANGUAGE.md, "Arguments"), so text is joined by
// interpolation. When the operator joins strings and name paths with `+`
// it spells the interpolated string out (`"Pick for {{ region }}"`). ""
// when toks[i] is not such an operator.
func joinHint(toks []lexer.Token, i int) string {
	if i <= 0 || i >= len(toks) || toks[i].Type != g.Op {
		return ""
	}
	action := false
	for _, t := range toks[:i] {
		if t.Type == g.ActionKw {
			action = true
		}
	}
	if !action {
		return ""
	}
	const generic = "an action's argument is one value: put an expression in parentheses, ( ); text is joined inside one string with {{ }} (\"Region {{ region }}\")"
	if toks[i].Value != "+" {
		return generic
	}
	// the operand before the first +: a string or a name path
	start := i - 1
	for start >= 2 && toks[start].Type == g.Ident && toks[start-1].Type == g.GDot && toks[start-2].Type == g.Ident {
		start -= 2
	}
	var b strings.Builder
	str := false
	j := start
	for {
		k, ok := joinOperand(toks, j, &b)
		if !ok {
			return generic
		}
		str = str || toks[j].Type == g.String
		if k >= len(toks) {
			break
		}
		if toks[k].Type != g.Op || toks[k].Value != "+" {
			switch toks[k].Type {
			case g.NL, g.EOF, g.OptKey:
			default:
				return generic
			}
			break
		}
		j = k + 1
	}
	if !str {
		return generic
	}
	return "an action's argument is one value: to join text write one string with {{ }} inside: \"" + b.String() + "\""
}

// joinOperand writes the operand of a + chain at toks[j] into b as a
// string's content (a string's own content; a name path as {{ path }})
// and returns the index after it; false when it is neither.
func joinOperand(toks []lexer.Token, j int, b *strings.Builder) (int, bool) {
	if j >= len(toks) {
		return j, false
	}
	switch t := toks[j]; t.Type {
	case g.String:
		v := t.Value
		if len(v) < 2 || !strings.HasSuffix(v, `"`) {
			return j, false
		}
		b.WriteString(v[1 : len(v)-1])
		return j + 1, true
	case g.Ident:
		path := t.Value
		j++
		for j+1 < len(toks) && toks[j].Type == g.GDot && toks[j+1].Type == g.Ident {
			path += "." + toks[j+1].Value
			j += 2
		}
		b.WriteString("{{ " + path + " }}")
		return j, true
	}
	return j, false
}
