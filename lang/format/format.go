// Package format prints a flow AST as canonical .flow text: 4-space
// indentation, the header (flow, params, defaults) in groups separated by
// one blank line and followed by one, options as `key: value`, strings
// re-quoted with Go escapes (their `{{ }}` parts kept verbatim), an
// expression in argument position written bare when it is a name path and
// in parentheses otherwise, `else if` when an else holds exactly one if.
// Comments (File.Comments) stay in place: own-line comments before the
// next statement, trailing comments after their line. At most one blank
// line is kept where the source had blank lines between statements.
//
// Flow is idempotent on parsed files: Flow(parse(Flow(f))) == Flow(f), and
// parsing Flow(f) gives a tree ast.Equal to f.
package format

import (
	"sort"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/parse"
)

const indentUnit = "    "

// Flow renders f as canonical .flow source (ending with one newline).
func Flow(f *ast.File) []byte {
	pr := &printer{}
	pr.comments = liveComments(f)
	pr.file(f)
	return []byte(pr.b.String())
}

type printer struct {
	b        strings.Builder
	comments []*ast.Comment // pending, sorted by offset
	indent   int
	lastLine int  // source line of the last thing printed (0 = none)
	fresh    bool // nothing printed yet at this block level
}

// liveComments returns the comments of f that are not inside an ExprSrc
// (those are printed as part of the expression's source), sorted.
func liveComments(f *ast.File) []*ast.Comment {
	if len(f.Comments) == 0 {
		return nil
	}
	type span struct{ s, e int }
	var spans []span
	ast.Walk(f, func(n ast.Node) bool {
		if e, ok := n.(*ast.ExprSrc); ok && e.Start.Line != e.End.Line {
			spans = append(spans, span{e.Start.Offset, e.End.Offset})
		}
		return true
	})
	var out []*ast.Comment
	for _, c := range f.Comments {
		inside := false
		for _, sp := range spans {
			if c.Start.Offset >= sp.s && c.Start.Offset < sp.e {
				inside = true
				break
			}
		}
		if !inside {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Offset < out[j].Start.Offset })
	return out
}

func (pr *printer) writeLine(s string) {
	for i := 0; i < pr.indent; i++ {
		pr.b.WriteString(indentUnit)
	}
	pr.b.WriteString(s)
}

func (pr *printer) endLine() { pr.b.WriteByte('\n') }

// blankBefore writes one blank line when the source had a gap before line.
func (pr *printer) blankBefore(line int) {
	if !pr.fresh && pr.lastLine > 0 && line > pr.lastLine+1 {
		pr.b.WriteByte('\n')
	}
}

// flush prints, as own-line comments, every pending comment that starts
// before offset off.
func (pr *printer) flush(off int) {
	for len(pr.comments) > 0 && pr.comments[0].Start.Offset < off {
		c := pr.comments[0]
		pr.comments = pr.comments[1:]
		pr.blankBefore(c.Start.Line)
		pr.writeLine(c.Text)
		pr.endLine()
		pr.lastLine = c.End.Line
		pr.fresh = false
	}
}

// trailing appends the pending trailing comment that sits on line at or
// after offset off, if any, then ends the line.
func (pr *printer) trailing(line, off int) {
	if len(pr.comments) > 0 {
		c := pr.comments[0]
		if c.Trailing && c.Start.Line == line && c.Start.Offset >= off {
			pr.b.WriteByte(' ')
			pr.b.WriteString(c.Text)
			pr.comments = pr.comments[1:]
		}
	}
	pr.endLine()
}

// item prints one line-level item whose source spans [r.Start, r.End): own
// comments before it, a kept blank line, then text, then its trailing
// comment on the line ending at endLine/endOff.
func (pr *printer) item(r ast.Range, text string, endLine, endOff int) {
	pr.flush(r.Start.Offset)
	pr.blankBefore(r.Start.Line)
	// Comments inside the item (a multi-line map argument) move before it.
	pr.flush(endOff)
	pr.writeLine(text)
	pr.trailing(endLine, endOff)
	pr.lastLine = endLine
	pr.fresh = false
}

func (pr *printer) file(f *ast.File) {
	pr.fresh = true
	pr.item(ast.Range{Start: f.NameRange.Start, End: f.NameRange.End}, headerLine(f), f.NameRange.End.Line, f.NameRange.End.Offset)
	if len(f.Params) > 0 {
		pr.b.WriteByte('\n')
		pr.fresh = true
		for _, p := range f.Params {
			pr.item(p.Range, paramLine(p), p.Range.End.Line, p.Range.End.Offset)
		}
	}
	if len(f.Defaults) > 0 {
		pr.b.WriteByte('\n')
		pr.fresh = true
		// One `defaults` line per source line of options.
		for i := 0; i < len(f.Defaults); {
			j := i + 1
			for j < len(f.Defaults) && f.Defaults[j].Start.Line == f.Defaults[i].Start.Line && f.Defaults[i].Start.Line != 0 {
				j++
			}
			var sb strings.Builder
			sb.WriteString("defaults")
			for _, o := range f.Defaults[i:j] {
				sb.WriteByte(' ')
				sb.WriteString(option(o))
			}
			last := f.Defaults[j-1]
			pr.item(f.Defaults[i].Range, sb.String(), last.End.Line, last.End.Offset)
			i = j
		}
	}
	if len(f.Body) > 0 {
		pr.b.WriteByte('\n')
		pr.fresh = true
		pr.stmts(f.Body)
	}
	pr.fresh = false
	pr.flush(1 << 62)
}

func headerLine(f *ast.File) string {
	s := "flow " + f.Name
	if f.Description != "" {
		s += " " + quote(f.Description)
	}
	return s
}

func paramLine(p *ast.Param) string {
	var sb strings.Builder
	sb.WriteString("param ")
	sb.WriteString(p.Name)
	sb.WriteString(": ")
	if p.Type != nil {
		sb.WriteString(p.Type.Name)
		if p.Type.Values != nil {
			sb.WriteByte('(')
			for i, v := range p.Type.Values {
				if i > 0 {
					sb.WriteString(", ")
				}
				sb.WriteString(quote(v))
			}
			sb.WriteByte(')')
		}
	}
	if p.Default != nil {
		sb.WriteString(" = ")
		sb.WriteString(arg(p.Default))
	}
	if p.Description != "" {
		sb.WriteByte(' ')
		sb.WriteString(quote(p.Description))
	}
	return sb.String()
}

func (pr *printer) stmts(ss []ast.Stmt) {
	for _, s := range ss {
		pr.stmt(s)
	}
}

// block prints a body one level deeper, then flushes the comments that
// stand before closeOff (the body's closing line).
func (pr *printer) block(body []ast.Stmt, closeOff int) {
	pr.indent++
	pr.fresh = true
	pr.stmts(body)
	pr.flush(closeOff)
	pr.indent--
	pr.fresh = false
}

func endOf(e ast.Expr, fallback ast.Range) (int, int) {
	if e == nil {
		return fallback.Start.Line, fallback.Start.Offset
	}
	r := e.Rng()
	return r.End.Line, r.End.Offset
}

func (pr *printer) stmt(s ast.Stmt) {
	switch s := s.(type) {
	case *ast.ActionStmt:
		pr.item(s.Range, action(s), s.End.Line, s.End.Offset)
	case *ast.AssignStmt:
		pr.item(s.Range, s.Name+" = "+assignValue(s.Value), s.End.Line, s.End.Offset)
	case *ast.ReturnStmt:
		text := "return"
		if s.Value != nil {
			text += " " + full(s.Value)
		}
		pr.item(s.Range, text, s.End.Line, s.End.Offset)
	case *ast.FailStmt:
		pr.item(s.Range, "fail "+full(s.Message), s.End.Line, s.End.Offset)
	case *ast.LogStmt:
		pr.item(s.Range, "log "+full(s.Value), s.End.Line, s.End.Offset)
	case *ast.AssertStmt:
		text := "assert " + full(s.Cond)
		if s.Message != nil {
			text += ", " + full(s.Message)
		}
		pr.item(s.Range, text, s.End.Line, s.End.Offset)
	case *ast.BreakStmt:
		pr.item(s.Range, "break", s.End.Line, s.End.Offset)
	case *ast.ContinueStmt:
		pr.item(s.Range, "continue", s.End.Line, s.End.Offset)
	case *ast.IfStmt:
		l, o := endOf(s.Cond, s.Range)
		pr.item(s.Range, "if "+full(s.Cond)+" {", l, o)
		pr.ifRest(s)
	case *ast.ForStmt:
		l, o := endOf(s.Iter, s.Range)
		pr.item(s.Range, "for "+s.Var+" in "+full(s.Iter)+" {", l, o)
		pr.block(s.Body, s.End.Offset-1)
		pr.closeLine("}", s.End)
	case *ast.WhileStmt:
		l, o := endOf(s.Cond, s.Range)
		pr.item(s.Range, "while "+full(s.Cond)+" {", l, o)
		pr.block(s.Body, s.End.Offset-1)
		pr.closeLine("}", s.End)
	case *ast.TryStmt:
		pr.item(s.Range, "try {", s.Start.Line, s.Start.Offset)
		pr.block(s.Body, s.CatchVarRange.Start.Offset)
		pr.writeLine("} catch " + s.CatchVar + " {")
		pr.trailing(s.CatchVarRange.End.Line, s.CatchVarRange.End.Offset)
		pr.lastLine = s.CatchVarRange.End.Line
		pr.block(s.Catch, s.End.Offset-1)
		pr.closeLine("}", s.End)
	case *ast.RetryStmt:
		text := "retry " + arg(s.Count)
		l, o := endOf(s.Count, s.Range)
		if s.Every != nil {
			text += " every: " + arg(s.Every)
			l, o = endOf(s.Every, s.Range)
		}
		pr.item(s.Range, text+" {", l, o)
		pr.block(s.Body, s.End.Offset-1)
		pr.closeLine("}", s.End)
	case *ast.FrameStmt:
		l, o := endOf(s.Selector, s.Range)
		pr.item(s.Range, "frame "+arg(s.Selector)+" {", l, o)
		pr.block(s.Body, s.End.Offset-1)
		pr.closeLine("}", s.End)
	}
}

// ifRest prints the then-body and the else chain of an if whose header is
// already printed.
func (pr *printer) ifRest(s *ast.IfStmt) {
	switch {
	case len(s.Else) == 1 && isIf(s.Else[0]):
		inner := s.Else[0].(*ast.IfStmt)
		pr.block(s.Then, inner.Start.Offset)
		l, o := endOf(inner.Cond, inner.Range)
		pr.writeLine("} else if " + full(inner.Cond) + " {")
		pr.trailing(l, o)
		pr.lastLine = l
		pr.ifRest(inner)
	case len(s.Else) > 0:
		// Comments between the bodies go to the else body.
		thenEnd := s.Start.Offset + 1
		if n := len(s.Then); n > 0 {
			thenEnd = s.Then[n-1].Rng().End.Offset
		} else if s.Cond != nil {
			thenEnd = s.Cond.Rng().End.Offset + 1
		}
		pr.block(s.Then, thenEnd)
		pr.writeLine("} else {")
		pr.endLine()
		pr.block(s.Else, s.End.Offset-1)
		pr.closeLine("}", s.End)
	default:
		pr.block(s.Then, s.End.Offset-1)
		pr.closeLine("}", s.End)
	}
}

func isIf(s ast.Stmt) bool {
	_, ok := s.(*ast.IfStmt)
	return ok
}

func (pr *printer) closeLine(text string, end ast.Pos) {
	pr.writeLine(text)
	pr.trailing(end.Line, end.Offset)
	pr.lastLine = end.Line
	pr.fresh = false
}

func action(s *ast.ActionStmt) string {
	var sb strings.Builder
	if s.Target != "" {
		sb.WriteString(s.Target)
		sb.WriteString(" = ")
	}
	sb.WriteString(s.Action)
	for i, a := range s.Args {
		sb.WriteByte(' ')
		if actions.IsFlowArg(s.Action, i) {
			if sl, ok := a.(*ast.StringLit); ok {
				if v, ok := sl.Value(); ok && isIdent(v) {
					sb.WriteString(v)
					continue
				}
			}
		}
		sb.WriteString(arg(a))
	}
	for _, o := range s.Options {
		sb.WriteByte(' ')
		sb.WriteString(option(o))
	}
	return sb.String()
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (i > 0 && '0' <= c && c <= '9')) {
			return false
		}
	}
	return true
}

func option(o *ast.Option) string { return o.Name + ": " + arg(o.Value) }

// arg prints a value in argument position.
func arg(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.ExprSrc:
		src := strings.TrimSpace(e.Source)
		if parse.IsNamePath(src) {
			return src
		}
		return "(" + src + ")"
	case *ast.ListLit:
		parts := make([]string, len(e.Elems))
		for i, x := range e.Elems {
			parts[i] = full(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *ast.MapLit:
		parts := make([]string, len(e.Entries))
		for i, en := range e.Entries {
			parts[i] = mapKey(en.Key) + ": " + full(en.Value)
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return literal(e)
}

func mapKey(e ast.Expr) string {
	if s, ok := e.(*ast.ExprSrc); ok {
		return "(" + strings.TrimSpace(s.Source) + ")"
	}
	return literal(e)
}

// full prints a value in full-expression position.
func full(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.ExprSrc:
		return strings.TrimSpace(e.Source)
	case *ast.ListLit, *ast.MapLit:
		return arg(e)
	}
	return literal(e)
}

// assignValue prints the value of `NAME = EXPR`: an expression starting
// with an action name would be read as an action there, so it is written
// as the string "{{ EXPR }}" (the same tree).
func assignValue(e ast.Expr) string {
	if s, ok := e.(*ast.ExprSrc); ok && parse.StartsWithAction(s.Source) && !strings.ContainsAny(s.Source, "\"\n") {
		return `"{{ ` + strings.TrimSpace(s.Source) + ` }}"`
	}
	return full(e)
}

func literal(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StringLit:
		var sb strings.Builder
		sb.WriteByte('"')
		for i, p := range e.Parts {
			if p.Expr != nil {
				sb.WriteString("{{")
				sb.WriteString(p.Expr.Source)
				sb.WriteString("}}")
				continue
			}
			body := quoteBody(p.Text)
			if i+1 < len(e.Parts) && strings.HasSuffix(body, "{") {
				// "a{" before "{{ x }}" would read as "{{{": escape it.
				body = body[:len(body)-1] + `\x7b`
			}
			sb.WriteString(body)
		}
		sb.WriteByte('"')
		return sb.String()
	case *ast.NumberLit:
		if e.Raw != "" {
			return e.Raw
		}
		switch v := e.Value.(type) {
		case int64:
			return strconv.FormatInt(v, 10)
		case float64:
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		return "0"
	case *ast.BoolLit:
		if e.Value {
			return "true"
		}
		return "false"
	case *ast.NullLit:
		return "null"
	case *ast.DurationLit:
		if e.Raw != "" {
			return e.Raw
		}
		return e.Value.String()
	case nil:
		return "null"
	}
	return arg(e)
}

// quote writes s as a .flow string: Go escapes, and a literal "{{" as
// `{{ '{{' }}` so it is not read as an interpolation.
func quote(s string) string { return `"` + quoteBody(s) + `"` }

// Quote writes s as a .flow string literal that reads back as exactly s,
// wherever it stands: Go escapes (so no newline or other line break ends
// the statement) and every literal "{{" written `{{ '{{' }}` (string
// literals interpolate inside expressions too). It is the one quoting
// path for text taken from outside (a recording, a page) into expression
// source, e.g. `page.count(` + Quote(sel) + `)`.
func Quote(s string) string { return quote(s) }

// Literal writes a literal node as .flow source: a string with its
// interpolations (text parts quoted as Quote does), a number, bool, null
// or duration. Other nodes are printed as arguments.
func Literal(e ast.Expr) string { return literal(e) }

func quoteBody(s string) string {
	q := strconv.Quote(s)
	q = q[1 : len(q)-1]
	return strings.ReplaceAll(q, "{{", "{{ '{{' }}")
}
