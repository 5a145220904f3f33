package parse

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	g "github.com/rpa-dev/rpa/lang/parse/internal/grammar"
)

// Limits. Past them the parser reports an error naming the limit instead of
// recursing or looping further.
const (
	// MaxBlockDepth is how deeply blocks ({ }) may nest.
	MaxBlockDepth = 100
	// MaxBracketDepth is how deeply ( [ { may nest inside one expression.
	MaxBracketDepth = 100
	// MaxErrors is how many diagnostics one file may produce before the
	// parser gives up with "too many errors".
	MaxErrors = 100
)

// streamBatch is how many tokens the parser cuts into lines before it
// parses them (see run).
const streamBatch = 1 << 13

// maxResync bounds how often an unclosed bracket makes the splitter re-scan
// the rest of the file (each re-scan is linear).
const maxResync = 10

// dslKeywords start a statement of their own (never an action).
var dslKeywords = map[string]bool{
	"flow": true, "param": true, "defaults": true, "if": true, "else": true, "for": true,
	"while": true, "try": true, "catch": true, "retry": true, "frame": true, "return": true,
	"fail": true, "assert": true, "log": true, "break": true, "continue": true,
}

// blockKeywords start a line whose final '{' opens a block.
var blockKeywords = map[string]bool{
	"if": true, "for": true, "while": true, "try": true, "retry": true, "frame": true,
}

// errTooMany stops parsing once MaxErrors diagnostics exist.
var errTooMany = errors.New("too many errors")

// Flow parses the .flow source src (named filename in positions) into a
// File. It never panics (an internal panic becomes an "internal error: ..."
// diagnostic) and always returns a non-nil File holding whatever parsed;
// the Diagnostics list every syntax error in source order, at least one per
// bad line (the parser resynchronises at the next line).
func Flow(filename string, src []byte) (f *ast.File, ds diag.Diagnostics) {
	p := &parser{file: filename, src: string(src)}
	p.f = &ast.File{Range: ast.Range{File: filename, Start: ast.Pos{Line: 1, Col: 1}, End: p.posAt(len(src))}}
	defer func() {
		if r := recover(); r != nil {
			if r == errTooMany { //nolint:errorlint // sentinel panic value
				p.diags.Errorf(p.curRange, "too many errors (more than %d); stopping", MaxErrors)
			} else {
				p.diags.Errorf(p.curRange, "internal error: %v", r)
			}
		}
		p.diags.Sort()
		// A re-scan after an unclosed bracket can report a line twice.
		out := p.diags[:0]
		for i, d := range p.diags {
			if i > 0 && d.Summary == p.diags[i-1].Summary && d.Subject == p.diags[i-1].Subject {
				continue
			}
			out = append(out, d)
		}
		p.diags = out
		f, ds = p.f, p.diags
	}()
	p.run()
	return p.f, p.diags
}

type frameKind int

const (
	kThen frameKind = iota
	kElse
	kFor
	kWhile
	kTry
	kCatch
	kRetry
	kFrame
	kDummy
)

type frame struct {
	kind frameKind
	body *[]ast.Stmt // nil: statements are parsed and dropped (dummy frames)
	ends []*ast.Range
	open ast.Range // the `{` that opened the frame
	ifs  *ast.IfStmt
	try  *ast.TryStmt
}

type parser struct {
	file     string
	src      string
	f        *ast.File
	diags    diag.Diagnostics
	sc       *g.Scanner
	stack    []*frame
	curRange ast.Range

	sawFlow, sawBody, missingFlow, depthReported bool

	// splitter state
	pending  *lexer.Token
	resyncs  int
	toks     []lexer.Token
	brackets []lexer.Token
	parens   int // how many of brackets are ( or [ (where '#' is a closure name)
	dummies  int // how many frames of stack are dummies
}

func (p *parser) errorf(r ast.Range, format string, args ...any) {
	if len(p.diags) >= MaxErrors {
		panic(errTooMany)
	}
	p.diags.Errorf(r, format, args...)
}

// posAt converts a byte offset to a Pos by scanning the source (used for
// ranges that do not come from a token start).
func (p *parser) posAt(off int) ast.Pos {
	line, col := 1, 1
	start := 0
	if strings.HasPrefix(p.src, "\xef\xbb\xbf") && off >= 3 {
		start = 3
	}
	i := start
	for i < off && i < len(p.src) {
		if p.src[i] == '\n' {
			line++
			start = i + 1
		}
		i++
	}
	col = off - start + 1
	return ast.Pos{Line: line, Col: col, Offset: off}
}

func tokPos(t lexer.Token) ast.Pos {
	return ast.Pos{Line: t.Pos.Line, Col: t.Pos.Column, Offset: t.Pos.Offset}
}

func tokEnd(t lexer.Token) ast.Pos {
	return ast.Pos{Line: t.Pos.Line, Col: t.Pos.Column + len(t.Value), Offset: t.Pos.Offset + len(t.Value)}
}

func (p *parser) tokRange(t lexer.Token) ast.Range {
	return ast.Range{File: p.file, Start: tokPos(t), End: tokEnd(t)}
}

func (p *parser) spanRange(a, b lexer.Token) ast.Range {
	return ast.Range{File: p.file, Start: tokPos(a), End: tokEnd(b)}
}

func (p *parser) run() {
	p.sc = g.NewScanner(p.file, p.src)
	if len(strings.TrimSpace(strings.TrimPrefix(p.src, "\xef\xbb\xbf"))) == 0 {
		p.errorf(ast.Range{File: p.file, Start: ast.Pos{Line: 1, Col: 1}, End: ast.Pos{Line: 1, Col: 1}},
			"empty file: a flow starts with `flow NAME`")
		return
	}
	// Phase 1: cut the logical lines, check their shape, retype tokens.
	// The lines go into one token stream (each ending with an NL
	// terminator), so the parser is set up once per batch of lines, not
	// once per line. Phase 2 parses a batch once it holds streamBatch
	// tokens: a large file (an imported recording of 300,000 steps) is
	// never held as one stream of all its tokens (two copies of it:
	// hundreds of MB). Phase 1 uses only the splitter's state, so where
	// the batches end changes nothing.
	type lineInfo struct {
		start, end int // all[start:end+1], all[end] is the terminator
		bad        bool
	}
	var all []lexer.Token
	var lines []lineInfo
	// Phase 2: parse each line of the batch and build the blocks.
	parseBatch := func() {
		if len(lines) == 0 {
			return
		}
		pl := g.NewStream(all)
		for _, li := range lines {
			toks := all[li.start : li.end+1]
			p.curRange = p.spanRange(toks[0], toks[len(toks)-2])
			p.line(pl, toks, li.bad)
			pl.FastForward(lexer.RawCursor(li.end))
		}
		all, lines = nil, nil // a new batch: what the AST kept of this one stays valid
	}
	for {
		toks, bad, eof := p.nextLine()
		if len(toks) > 1 {
			start := len(all)
			all = append(all, toks...)
			all[len(all)-1].Type = g.NL // the EOF ending the line becomes its terminator
			line := all[start:]
			if !bad {
				if msg, r, ok := p.blockShape(line); !ok {
					p.errorf(r, "%s", msg)
					bad = true
				}
			}
			if !bad {
				retype(line)
			}
			lines = append(lines, lineInfo{start, len(all) - 1, bad})
		}
		if eof {
			break
		}
		if len(all) >= streamBatch {
			parseBatch()
		}
	}
	parseBatch()
	for i := len(p.stack) - 1; i >= 0; i-- {
		fr := p.stack[i]
		if fr.kind == kDummy && fr.open.Start.Line == 0 {
			continue
		}
		p.errorf(fr.open, "block is never closed: no `}` matches this `{`")
	}
	if !p.sawFlow && !p.missingFlow {
		p.errorf(ast.Range{File: p.file, Start: ast.Pos{Line: 1, Col: 1}, End: ast.Pos{Line: 1, Col: 1}},
			"a flow starts with `flow NAME`")
	}
}

// next returns the next token of the scanner, honouring one pushed-back
// token. InParen is set from the open brackets.
func (p *parser) next() lexer.Token {
	if p.pending != nil {
		t := *p.pending
		p.pending = nil
		return t
	}
	p.sc.InParen = p.parens > 0
	return p.sc.Next()
}

func (p *parser) peek() lexer.Token {
	if p.pending == nil {
		t := p.next()
		p.pending = &t
	}
	return *p.pending
}

// setBrackets truncates the open-bracket stack, keeping parens in step.
func (p *parser) setBrackets(b []lexer.Token) {
	for _, t := range p.brackets[len(b):] {
		if t.Value != "{" {
			p.parens--
		}
	}
	p.brackets = b
}

func closerOf(open string) string {
	switch open {
	case "(":
		return ")"
	case "[":
		return "]"
	}
	return "}"
}

// nextLine cuts the next logical line: tokens up to a newline at bracket
// depth 0, ending with an EOF token. bad is set when the line already
// produced an error (it is then only used to keep the block structure).
func (p *parser) nextLine() (toks []lexer.Token, bad, eof bool) {
	toks = p.toks[:0]
	p.setBrackets(p.brackets[:0])
	codeOnLine := false
	deep := false // the bracket depth limit was hit on this line
	lineErr := func(r ast.Range, format string, args ...any) {
		if !bad {
			p.errorf(r, format, args...)
		}
		bad = true
	}
	for {
		t := p.next()
		switch t.Type {
		case g.EOF:
			if len(p.brackets) > 0 && p.resyncs < maxResync {
				// Report the outermost unclosed bracket and re-scan from the
				// line after it: the rest of the file was swallowed.
				open := p.brackets[0]
				p.resyncs++
				// The root cause of whatever else this line reported.
				p.errorf(p.tokRange(open), "%s is never closed (no matching %s)", open.Value, closerOf(open.Value))
				bad = true
				nl := strings.IndexByte(p.src[open.Pos.Offset:], '\n')
				var keep []lexer.Token
				for _, x := range toks {
					if x.Pos.Line == open.Pos.Line || x.Pos.Offset < open.Pos.Offset {
						keep = append(keep, x)
					}
				}
				toks = append(toks[:0], keep...)
				p.setBrackets(p.brackets[:0])
				if nl >= 0 {
					resume := open.Pos.Offset + nl + 1
					p.dropCommentsFrom(resume)
					p.sc.Seek(resume, open.Pos.Line+1)
					if len(toks) > 0 {
						toks = append(toks, eofAfter(toks[len(toks)-1]))
					}
					p.toks = toks
					return toks, bad, false
				}
			} else if len(p.brackets) > 0 {
				open := p.brackets[0]
				if deep {
					p.errorf(p.tokRange(open), "%s is never closed (no matching %s)", open.Value, closerOf(open.Value))
				} else {
					lineErr(p.tokRange(open), "%s is never closed (no matching %s)", open.Value, closerOf(open.Value))
				}
			}
			if len(toks) > 0 {
				t = eofAfter(toks[len(toks)-1])
			}
			toks = append(toks, t)
			p.toks = toks
			return toks, bad, true
		case g.NL:
			codeOnLine = false
			if len(p.brackets) > 0 {
				continue
			}
			if len(toks) == 0 {
				continue
			}
			toks = append(toks, eofAfter(toks[len(toks)-1]))
			p.toks = toks
			return toks, bad, false
		case g.Comment:
			p.f.Comments = append(p.f.Comments, &ast.Comment{Range: p.tokRange(t), Text: t.Value, Trailing: codeOnLine})
			if !utf8.ValidString(t.Value) {
				lineErr(p.tokRange(t), "invalid UTF-8 in comment")
			}
			continue
		case g.LParen, g.GLParen, g.LBrack, g.GLBrack:
			p.brackets = append(p.brackets, t)
			p.parens++
		case g.LBrace:
			if len(p.brackets) == 0 && isBlockLine(toks) {
				nt := p.peek()
				if nt.Type == g.NL || nt.Type == g.EOF || nt.Type == g.Comment {
					t.Type = g.BlockOpen
					break
				}
			}
			p.brackets = append(p.brackets, t)
		case g.RParen, g.RBrack, g.RBrace:
			n := len(p.brackets)
			switch {
			case n > 0 && closerOf(p.brackets[n-1].Value) == t.Value:
				p.setBrackets(p.brackets[:n-1])
			case n == 0 && t.Type == g.RBrace && len(toks) == 0:
				// `}` starting a line closes a block.
			case n == 0 && t.Type == g.RBrace:
				lineErr(p.tokRange(t), "unexpected }: a block's } must start a line")
			case n == 0:
				lineErr(p.tokRange(t), "unexpected %s: nothing to close", t.Value)
			default:
				lineErr(p.tokRange(t), "unexpected %s: %s at %d:%d is still open", t.Value,
					p.brackets[n-1].Value, p.brackets[n-1].Pos.Line, p.brackets[n-1].Pos.Column)
				// Recover: close down to a matching opener if there is one,
				// else take it as a typo for the innermost closer.
				i := n - 1
				for i >= 0 && closerOf(p.brackets[i].Value) != t.Value {
					i--
				}
				if i < 0 {
					i = n - 1
				}
				p.setBrackets(p.brackets[:i])
			}
		case g.Invalid:
			lineErr(p.tokRange(t), "%s", invalidMessage(t.Value))
		case g.String, g.SQString:
			// Checked here too: a string inside a full expression is
			// never lowered by the parser.
			if !stringClosed(t.Value) {
				lineErr(p.tokRange(t), "string not terminated")
			} else if !utf8.ValidString(t.Value) {
				lineErr(p.tokRange(t), "invalid UTF-8 in string")
			}
		case g.Closure:
			// Inside ( and [ '#' is expr's closure name; written like a
			// comment (an operand right before or after it) it is an error.
			var prev lexer.Token
			if len(toks) > 0 {
				prev = toks[len(toks)-1]
			}
			if len(p.brackets) == 0 {
				lineErr(p.tokRange(t), "unexpected %s", t.Value)
			} else if (codeOnLine && endsOperand(prev)) || startsOperand(p.peek()) {
				lineErr(p.tokRange(t), "a comment cannot stand inside ( ) or [ ]: there %s is expr's closure name", t.Value)
			}
		}
		if len(p.brackets) > MaxBracketDepth {
			if !deep {
				deep = true
				p.resyncs = maxResync // re-scanning a pathological file would not help
				if bad {
					p.errorf(p.tokRange(t), "expression nested too deeply (more than %d brackets)", MaxBracketDepth)
				}
			}
			lineErr(p.tokRange(t), "expression nested too deeply (more than %d brackets)", MaxBracketDepth)
			if len(p.brackets) > 10*MaxBracketDepth {
				// Stop tracking: the line is bad anyway.
				p.setBrackets(p.brackets[:10*MaxBracketDepth])
			}
		}
		codeOnLine = true
		toks = append(toks, t)
	}
}

// eofAfter is the EOF token ending a logical line: right after its last
// token, so "unexpected end of line" points where something is missing.
func eofAfter(t lexer.Token) lexer.Token {
	e := tokEnd(t)
	return lexer.Token{Type: g.EOF, Pos: lexer.Position{Filename: t.Pos.Filename, Offset: e.Offset, Line: e.Line, Column: e.Col}}
}

func (p *parser) dropCommentsFrom(off int) {
	cs := p.f.Comments
	for len(cs) > 0 && cs[len(cs)-1].Start.Offset >= off {
		cs = cs[:len(cs)-1]
	}
	p.f.Comments = cs
}

func invalidMessage(v string) string {
	r, size := utf8.DecodeRuneInString(v)
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("invalid UTF-8 byte 0x%02x", v[0])
	}
	if r < 0x20 || r == 0x7f {
		return fmt.Sprintf("invalid character %U", r)
	}
	if r >= 0x80 {
		return fmt.Sprintf("invalid character %U %q outside a string or comment", r, r)
	}
	return fmt.Sprintf("invalid character %q", r)
}

// exprWords are expr's operator words: identifiers that are not operands.
var exprWords = map[string]bool{
	"in": true, "not": true, "and": true, "or": true, "matches": true, "contains": true,
	"startsWith": true, "endsWith": true, "let": true, "if": true, "else": true,
}

// endsOperand reports whether t can end an operand (so a following '#'
// cannot be expr's closure name).
func endsOperand(t lexer.Token) bool {
	switch t.Type {
	case g.Ident:
		return !exprWords[t.Value]
	case g.Number, g.String, g.SQString, g.Duration, g.Closure, g.RParen, g.RBrack, g.RBrace:
		return true
	}
	return false
}

// startsOperand reports whether t can start an operand.
func startsOperand(t lexer.Token) bool {
	switch t.Type {
	case g.Ident:
		return !exprWords[t.Value]
	case g.Number, g.String, g.SQString, g.Duration, g.Closure:
		return true
	}
	return false
}

func isBlockLine(toks []lexer.Token) bool {
	if len(toks) == 0 {
		return false
	}
	if toks[0].Type == g.RBrace {
		return true
	}
	return toks[0].Type == g.Ident && blockKeywords[toks[0].Value]
}

// retype marks the context-dependent tokens of a line: the action keyword
// (at statement start unless '=' follows, and right after `NAME =`) and
// option keys (an identifier followed by ':' at bracket depth 0).
func retype(toks []lexer.Token) {
	if len(toks) < 2 || toks[0].Type != g.Ident || dslKeywords[toks[0].Value] {
		if len(toks) > 0 && toks[0].Type == g.Ident && toks[0].Value == "param" {
			optKeys(toks)
		}
		if len(toks) > 0 && toks[0].Type == g.Ident && (toks[0].Value == "defaults" || toks[0].Value == "retry") {
			optKeys(toks)
		}
		return
	}
	if toks[1].Type == g.Assign {
		if len(toks) > 3 && toks[2].Type == g.Ident && actions.Lookup(toks[2].Value) != nil {
			switch toks[3].Type {
			case g.GDot, g.GLParen, g.GLBrack:
			default:
				toks[2].Type = g.ActionKw
				optKeys(toks)
			}
		}
		return
	}
	toks[0].Type = g.ActionKw
	optKeys(toks)
}

func optKeys(toks []lexer.Token) {
	depth := 0
	for i := 1; i < len(toks)-1; i++ {
		switch toks[i].Type {
		case g.LParen, g.GLParen, g.LBrack, g.GLBrack, g.LBrace:
			depth++
		case g.RParen, g.RBrack, g.RBrace:
			depth--
		case g.Ident:
			if depth == 0 && toks[i+1].Type == g.Colon {
				toks[i].Type = g.OptKey
			}
		}
	}
}

// line parses and applies one logical line; toks is the line ending with
// its terminator and pl is positioned at the line's first token.
func (p *parser) line(pl *lexer.PeekingLexer, toks []lexer.Token, bad bool) {
	var ln *g.Line
	if !bad {
		var err error
		ln, err = g.ParseLine(pl)
		if err != nil {
			p.parseError(err, toks)
			bad = true
		}
	}
	if bad {
		// Keep the block structure: a bad `}` line closes, a bad line
		// ending in `{` opens (a block whose statements are dropped).
		last := toks[len(toks)-2]
		if toks[0].Type == g.RBrace && len(p.stack) > 0 {
			for _, r := range p.pop().ends {
				r.End = tokEnd(toks[0])
			}
		}
		if last.Type == g.BlockOpen || (last.Type == g.LBrace && isBlockLine(toks)) {
			p.push(&frame{kind: kDummy, open: p.tokRange(last)})
		}
		return
	}
	p.lower(ln, toks)
}

// blockShape checks the rules on `{` and `}` a grammar error would report
// poorly: block lines end in `{`, one-line blocks are errors.
func (p *parser) blockShape(toks []lexer.Token) (string, ast.Range, bool) {
	last := toks[len(toks)-2]
	if !isBlockLine(toks) {
		return "", ast.Range{}, true
	}
	if toks[0].Type == g.RBrace && len(toks) == 2 {
		return "", ast.Range{}, true
	}
	if last.Type == g.BlockOpen {
		return "", ast.Range{}, true
	}
	for _, t := range toks {
		if t.Type == g.LBrace {
			return "one-line blocks are not allowed: `{` must be the last token of its line and `}` must start a line", p.tokRange(t), false
		}
	}
	kw := toks[0].Value
	if toks[0].Type == g.RBrace {
		if len(toks) > 2 && (toks[1].Value == "else" || toks[1].Value == "catch") {
			kw = "} " + toks[1].Value
		} else {
			return fmt.Sprintf("unexpected %q after }: only `} else {`, `} else if COND {` or `} catch NAME {` may follow", toks[1].Value), p.tokRange(toks[1]), false
		}
	}
	end := tokEnd(last)
	return fmt.Sprintf("expected `{` at the end of the %s line", kw), ast.Range{File: p.file, Start: end, End: end}, false
}

func (p *parser) parseError(err error, toks []lexer.Token) {
	var perr participle.Error
	var r ast.Range
	msg := err.Error()
	if errors.As(err, &perr) {
		pos := perr.Position()
		r = ast.Range{File: p.file, Start: ast.Pos{Line: pos.Line, Col: pos.Column, Offset: pos.Offset}}
		r.End = r.Start
		msg = perr.Message()
		var ute *participle.UnexpectedTokenError
		if errors.As(err, &ute) {
			t := ute.Unexpected
			if t.EOF() || t.Type == g.NL {
				msg = "unexpected end of line"
			} else if t.Type == g.BlockOpen {
				r = p.tokRange(t)
				msg = "unexpected {: an expression is missing before it"
			} else {
				r = p.tokRange(t)
				msg = fmt.Sprintf("unexpected %s", describe(t))
			}
			if ute.Expect != "" {
				msg += " (expected " + ute.Expect + ")"
			}
		}
	} else {
		r = p.spanRange(toks[0], toks[0])
	}
	if toks[0].Type == g.Ident && (toks[0].Value == "else" || toks[0].Value == "catch") {
		r = p.tokRange(toks[0])
		form := "} else {"
		if toks[0].Value == "catch" {
			form = "} catch NAME {"
		}
		msg = fmt.Sprintf("%s must follow } on the same line: `%s`", toks[0].Value, form)
	}
	if br, bmsg, ok := p.badDuration(toks); ok {
		r, msg = br, bmsg
	}
	if imsg, ok := p.indexAssign(toks); ok { // indexassign.go
		r, msg = p.spanRange(toks[0], toks[1]), imsg
	}
	detail := ""
	if ute := (*participle.UnexpectedTokenError)(nil); errors.As(err, &ute) {
		for i, t := range toks {
			if t.Pos.Offset == ute.Unexpected.Pos.Offset && t.Type == ute.Unexpected.Type {
				detail = joinHint(toks, i) // joinhint.go
				break
			}
		}
	}
	if toks[0].Value == "param" && toks[0].Type == g.Ident {
		// After `=` only a literal may stand.
		for _, t := range toks {
			if t.Type == g.Assign && r.Start.Offset > t.Pos.Offset {
				msg = "a param default must be a literal: a string, number, bool, null, or a list or map of those"
				break
			}
		}
	}
	p.errorf(r, "%s", msg)
	if detail != "" {
		p.diags[len(p.diags)-1].Detail = detail
	}
}

func describe(t lexer.Token) string {
	switch t.Type {
	case g.String:
		return "string " + t.Value
	case g.Number:
		return "number " + t.Value
	case g.Duration:
		return "duration " + t.Value
	case g.BlockOpen:
		return "{"
	}
	return fmt.Sprintf("%q", t.Value)
}

func (p *parser) push(fr *frame) {
	if fr.kind != kDummy && len(p.stack) >= MaxBlockDepth {
		if !p.depthReported {
			p.depthReported = true
			p.errorf(fr.open, "blocks nested too deeply (more than %d levels)", MaxBlockDepth)
		}
		fr = &frame{kind: kDummy}
	}
	p.stack = append(p.stack, fr)
	if fr.kind == kDummy {
		p.dummies++
	}
}

func (p *parser) pop() *frame {
	fr := p.stack[len(p.stack)-1]
	p.stack = p.stack[:len(p.stack)-1]
	if fr.kind == kDummy {
		p.dummies--
	}
	return fr
}

func (p *parser) inDummy() bool { return p.dummies > 0 }

// add appends a statement to the current block.
func (p *parser) add(s ast.Stmt) {
	p.sawBody = true
	if len(p.stack) == 0 {
		p.f.Body = append(p.f.Body, s)
		return
	}
	if top := p.stack[len(p.stack)-1]; top.body != nil {
		*top.body = append(*top.body, s)
	}
}

// open adds a block statement and pushes the frame of its body.
func (p *parser) open(s ast.Stmt, fr *frame, brace lexer.Token) {
	p.add(s)
	fr.open = p.tokRange(brace)
	if p.inDummy() {
		fr = &frame{kind: kDummy}
	}
	p.push(fr)
}

// badDuration finds a duration option (wait:, every:, timeout:) of a bad
// line whose value is a negative duration (`-1s`) or a number with a unit
// that is not ms, s, m or h (`1x`), and says so at the value.
func (p *parser) badDuration(toks []lexer.Token) (ast.Range, string, bool) {
	for i := 0; i+3 < len(toks); i++ {
		k := toks[i]
		if (k.Type != g.OptKey && k.Type != g.Ident) || toks[i+1].Type != g.Colon {
			continue
		}
		if o := actions.CommonOption(k.Value); o == nil || o.Kind != actions.KindDuration {
			continue
		}
		v, next := toks[i+2], toks[i+3]
		adjacent := next.Pos.Offset == v.Pos.Offset+len(v.Value)
		switch {
		case v.Value == "-" && adjacent && (next.Type == g.Duration || next.Type == g.Number):
			return p.spanRange(v, next), fmt.Sprintf("invalid duration %q for %s: a duration cannot be negative (use 0s for none)", "-"+next.Value, k.Value), true
		case v.Type == g.Number && adjacent && next.Type == g.Ident:
			return p.spanRange(v, next), fmt.Sprintf("invalid duration %q for %s: the unit must be ms, s, m or h (500ms, 10s, 1m30s)", v.Value+next.Value, k.Value), true
		}
	}
	return ast.Range{}, "", false
}
