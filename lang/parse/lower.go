package parse

import (
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	g "github.com/rpa-dev/rpa/lang/parse/internal/grammar"
)

// lower applies one parsed line: header lines fill the File, statements go
// to the current block, block lines push and pop frames.
func (p *parser) lower(ln *g.Line, toks []lexer.Token) {
	first, last := toks[0], toks[len(toks)-2]
	lineRange := p.spanRange(first, last)
	if ln.Flow == nil && !p.sawFlow && !p.missingFlow {
		p.missingFlow = true
		p.errorf(lineRange, "a flow starts with `flow NAME`")
	}
	switch {
	case ln.Flow != nil:
		p.flowLine(ln.Flow, lineRange)
	case ln.Param != nil:
		p.header("param", lineRange)
		p.f.Params = append(p.f.Params, p.param(ln.Param, lineRange))
	case ln.Defaults != nil:
		p.header("defaults", lineRange)
		for _, o := range ln.Defaults.Options {
			p.f.Defaults = append(p.f.Defaults, p.option(o))
		}
	case ln.If != nil:
		s := &ast.IfStmt{Range: lineRange, Cond: p.expr(ln.If.Cond)}
		p.open(s, &frame{kind: kThen, body: &s.Then, ends: []*ast.Range{&s.Range}, ifs: s}, last)
	case ln.For != nil:
		s := &ast.ForStmt{Range: lineRange, Var: ln.For.Var.Value, VarRange: p.tokRange(ln.For.Var), Iter: p.expr(ln.For.Iter)}
		p.open(s, &frame{kind: kFor, body: &s.Body, ends: []*ast.Range{&s.Range}}, last)
	case ln.While != nil:
		s := &ast.WhileStmt{Range: lineRange, Cond: p.expr(ln.While.Cond)}
		p.open(s, &frame{kind: kWhile, body: &s.Body, ends: []*ast.Range{&s.Range}}, last)
	case ln.Try != nil:
		s := &ast.TryStmt{Range: lineRange}
		p.open(s, &frame{kind: kTry, body: &s.Body, ends: []*ast.Range{&s.Range}, try: s}, last)
	case ln.Retry != nil:
		s := &ast.RetryStmt{Range: lineRange, Count: p.arg(ln.Retry.Count)}
		for _, o := range ln.Retry.Options {
			opt := p.option(o)
			switch {
			case opt.Name != "every":
				p.errorf(opt.NameRange, "retry has no option %q", opt.Name)
				p.diags[len(p.diags)-1].Detail = "options: every"
			case s.Every != nil:
				p.errorf(opt.NameRange, "duplicate option %q", opt.Name)
			default:
				s.Every = opt.Value
			}
		}
		p.open(s, &frame{kind: kRetry, body: &s.Body, ends: []*ast.Range{&s.Range}}, last)
	case ln.Frame != nil:
		s := &ast.FrameStmt{Range: lineRange, Selector: p.arg(ln.Frame.Sel)}
		p.open(s, &frame{kind: kFrame, body: &s.Body, ends: []*ast.Range{&s.Range}}, last)
	case ln.Return != nil:
		s := &ast.ReturnStmt{Range: lineRange}
		if ln.Return.Value != nil {
			s.Value = p.expr(ln.Return.Value)
		}
		p.add(s)
	case ln.Fail != nil:
		p.add(&ast.FailStmt{Range: lineRange, Message: p.expr(ln.Fail.Msg)})
	case ln.Assert != nil:
		s := &ast.AssertStmt{Range: lineRange, Cond: p.expr(ln.Assert.Cond)}
		if ln.Assert.Msg != nil {
			s.Message = p.expr(ln.Assert.Msg)
		}
		p.add(s)
	case ln.Log != nil:
		p.add(&ast.LogStmt{Range: lineRange, Value: p.expr(ln.Log.Value)})
	case ln.Break != nil:
		p.add(&ast.BreakStmt{Range: lineRange})
	case ln.Continue != nil:
		p.add(&ast.ContinueStmt{Range: lineRange})
	case ln.Close != nil:
		p.closeLine(ln.Close, last)
	case ln.Simple != nil:
		p.simple(ln.Simple, lineRange)
	}
}

func (p *parser) flowLine(fl *g.FlowLine, r ast.Range) {
	switch {
	case p.sawFlow:
		p.errorf(r, "a flow has one `flow` line")
		return
	case len(p.stack) > 0 || p.sawBody || len(p.f.Params) > 0 || len(p.f.Defaults) > 0:
		p.errorf(r, "`flow NAME` must be the first line")
	}
	p.sawFlow = true
	p.f.Name = fl.Name.Value
	p.f.NameRange = p.tokRange(*fl.Name)
	if why := ast.FlowNameTooLong(fl.Name.Value); why != "" {
		p.errorf(p.f.NameRange, "flow name %s", why)
	} else if !ast.IsFlowName(fl.Name.Value) {
		p.errorf(p.f.NameRange, "flow name %q must match [a-z][a-z0-9_]*", fl.Name.Value)
	}
	if fl.Desc != nil {
		p.f.Description = p.plainString(*fl.Desc)
	}
}

// header checks that a param or defaults line stands in the header.
func (p *parser) header(what string, r ast.Range) {
	if len(p.stack) > 0 || p.sawBody {
		p.errorf(r, "%s lines belong to the header, before the first statement", what)
	}
}

// plainString is a description: a string without interpolation.
func (p *parser) plainString(t lexer.Token) string {
	e := p.str(t)
	if s, ok := e.(*ast.StringLit); ok {
		if v, ok := s.Value(); ok {
			return v
		}
	}
	p.errorf(p.tokRange(t), "a description cannot interpolate {{ }}")
	return ""
}

func (p *parser) param(pl *g.ParamLine, r ast.Range) *ast.Param {
	pr := &ast.Param{Range: r, Name: pl.Name.Value, NameRange: p.tokRange(*pl.Name)}
	t := &ast.Type{Name: pl.Type.Name.Value, Range: p.tokRange(*pl.Type.Name)}
	if pl.Type.Open != nil {
		t.Range.End = tokEnd(*pl.Type.Close)
		t.Values = []string{}
		for _, v := range pl.Type.Values {
			t.Values = append(t.Values, p.plainString(v.Tok))
		}
		if t.Name != "enum" {
			p.errorf(t.Range, "only enum takes values, not %s", t.Name)
		}
	} else if t.Name == "enum" {
		p.errorf(t.Range, `enum needs its values: enum("a", "b")`)
	}
	pr.Type = t
	if pl.Default != nil {
		pr.Default = p.literal(pl.Default)
	}
	if pl.Desc != nil {
		pr.Description = p.plainString(*pl.Desc)
	}
	return pr
}

func (p *parser) literal(l *g.Literal) ast.Expr {
	switch {
	case l.Lit != nil:
		e := p.lit(l.Lit)
		switch l.Lit.Tok.Type {
		case g.Duration:
			p.errorf(e.Rng(), "a param default must be a literal: a string, number, bool, null, or a list or map of those")
		case g.String:
			if s, ok := e.(*ast.StringLit); !ok {
				p.errorf(p.tokRange(l.Lit.Tok), "a param default must be a literal: it cannot interpolate {{ }}")
			} else if _, ok := s.Value(); !ok {
				p.errorf(p.tokRange(l.Lit.Tok), "a param default must be a literal: it cannot interpolate {{ }}")
			}
		}
		return e
	case l.List != nil:
		out := &ast.ListLit{Range: p.spanRange(l.List.Open, l.List.Close), Elems: []ast.Expr{}}
		for _, e := range l.List.Elems {
			out.Elems = append(out.Elems, p.literal(e))
		}
		return out
	case l.Map != nil:
		out := &ast.MapLit{Range: p.spanRange(l.Map.Open, l.Map.Close), Entries: []*ast.MapEntry{}}
		for _, e := range l.Map.Entries {
			k := p.mapKey(e.Key)
			v := p.literal(e.Value)
			out.Entries = append(out.Entries, &ast.MapEntry{Range: ast.Range{File: p.file, Start: k.Rng().Start, End: v.Rng().End}, Key: k, Value: v})
		}
		return out
	}
	panic("literal: no alternative")
}

func (p *parser) mapKey(t lexer.Token) ast.Expr {
	switch t.Type {
	case g.String:
		return p.str(t)
	case g.Number:
		return p.number(nil, t)
	}
	return &ast.StringLit{Range: p.tokRange(t), Parts: []ast.StringPart{{Text: t.Value}}}
}

func (p *parser) option(o *g.Option) *ast.Option {
	v := p.arg(o.Value)
	return &ast.Option{Range: ast.Range{File: p.file, Start: tokPos(o.Key), End: tokEnd(o.Value.Last())},
		Name: o.Key.Value, NameRange: p.tokRange(o.Key), Value: v}
}

func (p *parser) simple(sl *g.SimpleLine, r ast.Range) {
	call := sl.Action
	if call == nil {
		call = sl.Bound
	}
	if call == nil {
		p.add(&ast.AssignStmt{Range: r, Name: sl.Target.Value, NameRange: p.tokRange(*sl.Target), Value: p.expr(sl.Value)})
		return
	}
	s := &ast.ActionStmt{Range: r, Action: call.Action.Value, ActionRange: p.tokRange(call.Action)}
	if sl.Target != nil {
		s.Target = sl.Target.Value
		s.TargetRange = p.tokRange(*sl.Target)
	}
	for i, a := range call.Args {
		if actions.IsFlowArg(s.Action, i) && a.Path != nil && len(a.Path.Suffix) == 0 {
			// `call NAME`: a bare flow name, kept as a string.
			h := a.Path.Head
			s.Args = append(s.Args, &ast.StringLit{Range: p.tokRange(h), Parts: []ast.StringPart{{Text: h.Value}}})
			continue
		}
		s.Args = append(s.Args, p.arg(a))
	}
	for _, o := range call.Options {
		s.Options = append(s.Options, p.option(o))
	}
	// Arguments and options are separated by spaces: `5x` or `"a""b"`
	// are two tokens glued together, not two arguments.
	prevEnd := call.Action.Pos.Offset + len(call.Action.Value)
	for _, a := range call.Args {
		first, last := a.First(), a.Last()
		if first.Pos.Offset == prevEnd {
			p.errorf(p.tokRange(first), "missing space before %s", describe(first))
			break
		}
		prevEnd = last.Pos.Offset + len(last.Value)
	}
	p.add(s)
}

func (p *parser) closeLine(cl *g.CloseLine, last lexer.Token) {
	closeTok := cl.Close
	if len(p.stack) == 0 {
		p.errorf(p.tokRange(closeTok), "unexpected }: no block is open")
		if cl.Else != nil || cl.Catch != nil {
			p.push(&frame{kind: kDummy})
		}
		return
	}
	top := p.pop()
	end := tokEnd(closeTok)
	for _, r := range top.ends {
		r.End = end
	}
	switch {
	case cl.Else == nil && cl.Catch == nil:
		if top.kind == kTry {
			p.errorf(p.tokRange(closeTok), "try needs a catch: write `} catch NAME {`")
		}
	case top.kind == kDummy:
		p.push(&frame{kind: kDummy})
	case cl.Else != nil:
		if top.kind != kThen {
			p.errorf(p.tokRange(*cl.Else), "else without if")
			p.push(&frame{kind: kDummy, open: p.tokRange(last)})
			return
		}
		fr := &frame{kind: kElse, body: &top.ifs.Else, ends: top.ends, open: p.tokRange(last), ifs: top.ifs}
		if cl.If != nil {
			inner := &ast.IfStmt{Range: ast.Range{File: p.file, Start: tokPos(*cl.If), End: tokEnd(last)}, Cond: p.expr(cl.Cond)}
			top.ifs.Else = []ast.Stmt{inner}
			fr = &frame{kind: kThen, body: &inner.Then, ends: append(append([]*ast.Range{}, top.ends...), &inner.Range),
				open: p.tokRange(last), ifs: inner}
		}
		p.stack = append(p.stack, fr)
	default: // catch
		if top.kind != kTry {
			p.errorf(p.tokRange(*cl.Catch), "catch without try")
			p.push(&frame{kind: kDummy, open: p.tokRange(last)})
			return
		}
		top.try.CatchVar = cl.Var.Value
		top.try.CatchVarRange = p.tokRange(*cl.Var)
		p.stack = append(p.stack, &frame{kind: kCatch, body: &top.try.Catch, ends: top.ends, open: p.tokRange(last)})
	}
}

// lit lowers one literal token (with its optional '-').
func (p *parser) lit(l *g.Lit) ast.Expr {
	t := l.Tok
	switch t.Type {
	case g.String:
		return p.str(t)
	case g.Duration:
		return p.duration(t)
	case g.Number:
		return p.number(l.Minus, t)
	}
	switch t.Value {
	case "true", "false":
		return &ast.BoolLit{Range: p.tokRange(t), Value: t.Value == "true"}
	}
	return &ast.NullLit{Range: p.tokRange(t)}
}

// arg lowers an argument or option value.
func (p *parser) arg(a *g.Arg) ast.Expr {
	switch {
	case a.Lit != nil:
		return p.lit(a.Lit)
	case a.Path != nil:
		return p.source(a.Path.Tokens[0], a.Path.Tokens[len(a.Path.Tokens)-1])
	case a.List != nil:
		out := &ast.ListLit{Range: p.spanRange(a.List.Open, a.List.Close), Elems: []ast.Expr{}}
		for _, e := range a.List.Elems {
			out.Elems = append(out.Elems, p.expr(e))
		}
		return out
	case a.Map != nil:
		out := &ast.MapLit{Range: p.spanRange(a.Map.Open, a.Map.Close), Entries: []*ast.MapEntry{}}
		for _, e := range a.Map.Entries {
			var k ast.Expr
			if e.Key != nil {
				k = p.mapKey(*e.Key)
			} else {
				k = p.paren(e.KeyParen)
			}
			v := p.expr(e.Value)
			out.Entries = append(out.Entries, &ast.MapEntry{Range: ast.Range{File: p.file, Start: k.Rng().Start, End: v.Rng().End}, Key: k, Value: v})
		}
		return out
	case a.Paren != nil:
		return p.paren(a.Paren)
	}
	panic("arg: no alternative")
}

// paren lowers `( EXPR )`: the source between the parentheses, normalised.
func (p *parser) paren(pr *g.Paren) ast.Expr {
	inner := pr.Inner.Tokens
	if len(inner) == 0 {
		p.errorf(p.spanRange(pr.Open, pr.Close), "empty ( )")
		return &ast.ExprSrc{Range: ast.Range{File: p.file, Start: tokEnd(pr.Open), End: tokPos(pr.Close)},
			Source: p.src[pr.Open.Pos.Offset+1 : pr.Close.Pos.Offset]}
	}
	if lit := p.single(inner); lit != nil {
		return lit
	}
	start, end := tokEnd(pr.Open), tokPos(pr.Close)
	return &ast.ExprSrc{Range: ast.Range{File: p.file, Start: start, End: end}, Source: p.src[start.Offset:end.Offset]}
}

// expr lowers a full expression: one literal token becomes that literal,
// anything else its exact source text.
func (p *parser) expr(e *g.Expr) ast.Expr {
	toks := e.Tokens
	if lit := p.single(toks); lit != nil {
		return lit
	}
	return p.source(toks[0], toks[len(toks)-1])
}

func (p *parser) source(a, b lexer.Token) *ast.ExprSrc {
	r := p.spanRange(a, b)
	return &ast.ExprSrc{Range: r, Source: p.src[r.Start.Offset:r.End.Offset]}
}

// single returns the literal node when toks is exactly one literal token
// (or '-' and a number), else nil.
func (p *parser) single(toks []lexer.Token) ast.Expr {
	switch len(toks) {
	case 1:
		t := toks[0]
		switch t.Type {
		case g.String:
			return p.str(t)
		case g.Number:
			return p.number(nil, t)
		case g.Ident, g.OptKey:
			switch t.Value {
			case "true", "false":
				return &ast.BoolLit{Range: p.tokRange(t), Value: t.Value == "true"}
			case "null", "nil":
				return &ast.NullLit{Range: p.tokRange(t)}
			}
		}
	case 2:
		if toks[0].Value == "-" && toks[1].Type == g.Number {
			return p.number(&toks[0], toks[1])
		}
	}
	return nil
}

func (p *parser) number(minus *lexer.Token, t lexer.Token) ast.Expr {
	raw := t.Value
	r := p.tokRange(t)
	if minus != nil {
		raw = "-" + raw
		r.Start = tokPos(*minus)
	}
	n := &ast.NumberLit{Range: r, Raw: raw}
	isHex := strings.HasPrefix(t.Value, "0x") || strings.HasPrefix(t.Value, "0X")
	if !isHex && strings.ContainsAny(t.Value, ".eE") {
		f, err := strconv.ParseFloat(strings.ReplaceAll(raw, "_", ""), 64)
		if err != nil {
			p.errorf(r, "number %s out of range", raw)
		}
		n.Value = f
		return n
	}
	i, err := strconv.ParseInt(raw, 0, 64)
	if err != nil {
		p.errorf(r, "bad number %s", raw)
	}
	n.Value = i
	return n
}

func (p *parser) duration(t lexer.Token) ast.Expr {
	d, err := time.ParseDuration(t.Value)
	if err != nil {
		p.errorf(p.tokRange(t), "duration %s out of range", t.Value)
	}
	return &ast.DurationLit{Range: p.tokRange(t), Raw: t.Value, Value: d}
}

// str lowers a "..." token: Go escapes, {{ }} interpolation, and the rule
// that a string that is exactly `{{ E }}` is E itself.
func (p *parser) str(t lexer.Token) ast.Expr {
	raw := t.Value
	r := p.tokRange(t)
	if !stringClosed(raw) {
		p.errorf(r, "string not terminated")
		return &ast.StringLit{Range: r}
	}
	if !utf8.ValidString(raw) {
		p.errorf(r, "invalid UTF-8 in string")
		return &ast.StringLit{Range: r}
	}
	base := ast.Pos{Line: t.Pos.Line, Col: t.Pos.Column + 1, Offset: t.Pos.Offset + 1}
	e, err := Template(p.file, raw[1:len(raw)-1], base, true)
	if err != nil {
		p.errorf(err.Subject, "%s", err.Summary)
		return &ast.StringLit{Range: r}
	}
	if s, ok := e.(*ast.StringLit); ok {
		s.Range = r
	}
	return e
}

func stringClosed(raw string) bool {
	if len(raw) < 2 {
		return false
	}
	q := raw[0]
	for i := 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			if q != '`' {
				i++
			}
		case q:
			return i == len(raw)-1
		}
	}
	return false
}

// Template splits the text of a string into literal parts and `{{ EXPR }}`
// parts. base is the position of text[0]; text must lie on one line (the
// columns of parts advance from base). When quoted is true the literal parts
// are Go-unescaped (a .flow string's body); otherwise they are taken as is
// (an already decoded YAML scalar). `{{ '{{' }}` is the literal text "{{".
// A text that is exactly one `{{ E }}` returns the *ast.ExprSrc E;
// errors come back as one Diagnostic (unterminated or empty {{ }}, bad escape);
// otherwise a *ast.StringLit whose Range spans text (callers of .flow
// strings widen it to the quotes). Adjacent literal parts are merged and
// empty ones dropped, so "" has no parts.
func Template(file, text string, base ast.Pos, quoted bool) (ast.Expr, *diag.Diagnostic) {
	at := func(i int) ast.Pos { return ast.Pos{Line: base.Line, Col: base.Col + i, Offset: base.Offset + i} }
	rng := func(i, j int) ast.Range { return ast.Range{File: file, Start: at(i), End: at(j)} }
	s := &ast.StringLit{Range: rng(0, len(text))}
	addText := func(v string) {
		if v == "" {
			return
		}
		if n := len(s.Parts); n > 0 && s.Parts[n-1].Expr == nil {
			s.Parts[n-1].Text += v
			return
		}
		s.Parts = append(s.Parts, ast.StringPart{Text: v})
	}
	unescape := func(i, j int) (string, *diag.Diagnostic) {
		seg := text[i:j]
		if !quoted || strings.IndexByte(seg, '\\') < 0 {
			return seg, nil
		}
		var b strings.Builder
		k := 0
		for k < len(seg) {
			rest := seg[k:]
			v, mb, tail, err := strconv.UnquoteChar(rest, '"')
			if err != nil {
				n := 2
				if len(rest) < 2 {
					n = len(rest)
				}
				return "", &diag.Diagnostic{Subject: rng(i+k, i+k+n), Summary: "invalid escape " + strconv.Quote(rest[:n]) + " in string"}
			}
			if v < utf8.RuneSelf || !mb {
				b.WriteByte(byte(v))
			} else {
				b.WriteRune(v)
			}
			k += len(rest) - len(tail)
		}
		return b.String(), nil
	}
	textStart := 0
	nexpr := 0
	i := 0
	for i < len(text) {
		c := text[i]
		if c == '\\' && quoted {
			i += 2
			continue
		}
		if c != '{' || i+1 >= len(text) || text[i+1] != '{' {
			i++
			continue
		}
		v, err := unescape(textStart, i)
		if err != nil {
			return nil, err
		}
		addText(v)
		j := interpEnd(text, i+2)
		if j < 0 {
			return nil, &diag.Diagnostic{Subject: rng(i, i+2), Summary: "{{ is never closed with }}"}
		}
		src := text[i+2 : j]
		switch strings.TrimSpace(src) {
		case "":
			return nil, &diag.Diagnostic{Subject: rng(i, j+2), Summary: "empty {{ }}"}
		case "'{{'":
			addText("{{")
		default:
			nexpr++
			s.Parts = append(s.Parts, ast.StringPart{Expr: &ast.ExprSrc{Range: rng(i+2, j), Source: src}})
		}
		i = j + 2
		textStart = i
	}
	if i > len(text) {
		i = len(text)
	}
	v, err := unescape(textStart, i)
	if err != nil {
		return nil, err
	}
	addText(v)
	if nexpr == 1 && len(s.Parts) == 1 {
		// Exactly `{{ E }}`: E itself, normalised like any full expression
		// (`"{{ 0 }}"` is the number 0).
		e := s.Parts[0].Expr
		return Expression(e.Source, e.Range)
	}
	return s, nil
}

// interpEnd returns the index of the `}}` closing an interpolation whose
// expression starts at i, skipping expr's quoted strings and nested braces;
// -1 when there is none.
func interpEnd(text string, i int) int {
	depth := 0
	for i < len(text) {
		switch c := text[i]; c {
		case '\'', '`':
			i++
			for i < len(text) && text[i] != c {
				if text[i] == '\\' && c == '\'' {
					i++
				}
				i++
			}
		case '{':
			depth++
		case '}':
			if depth == 0 {
				if i+1 < len(text) && text[i+1] == '}' {
					return i
				}
			} else {
				depth--
			}
		}
		i++
	}
	return -1
}
