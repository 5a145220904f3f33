package grammar

import "github.com/alecthomas/participle/v2/lexer"

// FastPath enables fastSimple. Only tests change it (not concurrently with
// parsing), to check that both paths give identical Lines: TestParseGolden
// and FuzzParseFlow parse every input both ways.
var FastPath = true

// fastSimple recognises, without participle, the most common line shape:
// `[NAME =] ACTION ARG... [KEY: VALUE ...]` where every ARG and VALUE is a
// literal token (string, duration, number, '-' number, true, false, null,
// nil) or a dotted name (`row.kWh`). It returns the Line the SimpleLine
// production would build, or nil (cursor unchanged) when the line has any
// other shape, which then goes to participle. It never reports errors.
func fastSimple(pl *lexer.PeekingLexer) *Line {
	if !FastPath {
		return nil
	}
	start := pl.MakeCheckpoint()
	fail := func() *Line {
		pl.LoadCheckpoint(start)
		return nil
	}
	sl := &SimpleLine{}
	t := *pl.Peek()
	if t.Type == Ident {
		pl.Next()
		if pl.Peek().Type != Assign {
			return fail()
		}
		pl.Next()
		target := t
		sl.Target = &target
		t = *pl.Peek()
	}
	if t.Type != ActionKw {
		return fail()
	}
	pl.Next()
	call := &Call{Action: t}
	for {
		t = *pl.Peek()
		switch t.Type {
		case NL:
			if sl.Target != nil {
				sl.Bound = call
			} else {
				sl.Action = call
			}
			return &Line{Simple: sl}
		case OptKey:
			pl.Next()
			if pl.Peek().Type != Colon {
				return fail()
			}
			pl.Next()
			v := fastArg(pl)
			if v == nil {
				return fail()
			}
			call.Options = append(call.Options, &Option{Key: t, Value: v})
		default:
			if len(call.Options) > 0 {
				return fail()
			}
			a := fastArg(pl)
			if a == nil {
				return fail()
			}
			call.Args = append(call.Args, a)
		}
	}
}

// fastArg reads a literal token, a name path whose brackets hold no
// nested brackets (`row.kWh`, `rows[0].code`, `page.url()`), or a list of
// single-token elements; nil when the next tokens are anything else (the
// caller then restores the cursor).
func fastArg(pl *lexer.PeekingLexer) *Arg {
	l := &Lit{}
	if l.Parse(pl) == nil {
		return &Arg{Lit: l}
	}
	t := *pl.Peek()
	switch t.Type {
	case LBrack:
		return fastList(pl)
	case Ident:
	default:
		return nil
	}
	cp := pl.MakeCheckpoint()
	pl.Next()
	p := &Path{Head: t}
	for {
		switch pl.Peek().Type {
		case GDot:
			pl.Next()
			name := *pl.Peek()
			switch name.Type {
			case Ident, OptKey, ActionKw:
			default:
				return nil
			}
			pl.Next()
			p.Suffix = append(p.Suffix, &Suffix{Name: &name})
			continue
		case GLBrack, GLParen:
			open := *pl.Next()
			closer := lexer.TokenType(RBrack)
			if open.Type == GLParen {
				closer = RParen
			}
			in := &Inner{}
			for {
				x := *pl.Peek()
				if x.Type == closer {
					pl.Next()
					break
				}
				switch x.Type {
				case LParen, GLParen, LBrack, GLBrack, LBrace, RParen, RBrack, RBrace, NL, BlockOpen:
					return nil // nested or unbalanced: participle reads it
				}
				in.Tokens = append(in.Tokens, *pl.Next())
			}
			if open.Type == GLBrack {
				p.Suffix = append(p.Suffix, &Suffix{Index: in})
			} else {
				p.Suffix = append(p.Suffix, &Suffix{Call: in})
			}
			continue
		}
		break
	}
	end := pl.MakeCheckpoint()
	p.Tokens = pl.Range(cp.RawCursor(), end.RawCursor())
	return &Arg{Path: p}
}

// fastList reads `[E, E, ...]` whose elements are single tokens.
func fastList(pl *lexer.PeekingLexer) *Arg {
	l := &List{Open: *pl.Next()}
	for {
		t := *pl.Peek()
		if t.Type == RBrack {
			l.Close = *pl.Next()
			return &Arg{List: l}
		}
		switch t.Type {
		case String, Number, Duration, Ident, SQString:
		default:
			return nil
		}
		pl.Next()
		l.Elems = append(l.Elems, &Expr{Tokens: []lexer.Token{t}})
		switch pl.Peek().Type {
		case Comma:
			pl.Next()
		case RBrack:
		default:
			return nil
		}
	}
}
