package importer

import (
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/expr-lang/expr/builtin"
	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

// reserved are the words a param or variable may not be called
// (check.Reserved: LANGUAGE.md, "Lexical rules", and expr's builtins), plus
// every action name and alias: an action name right after `NAME =` would be
// read as that action.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for w := range check.Reserved {
		m[w] = true
	}
	for _, n := range actions.Names() {
		m[n] = true
	}
	return m
}()

// builtinNames are expr-lang's builtin function names.
var builtinNames = func() []string {
	var out []string
	for _, f := range builtin.Builtins {
		out = append(out, f.Name)
	}
	return out
}()

// isReserved reports whether s may not name a param or variable.
func isReserved(s string) bool { return reserved[s] }

// identRe matches a flow identifier. This package's patterns are compiled
// at their first use (sync.OnceValue), not at init: every rpa process
// links the importer and few import (issue 24).
var identRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// secretName turns a field's name, id or label into a param name by the
// recorder's rule: lower-cased, each run of characters outside [a-z0-9_]
// turned into "_" (leading and trailing ones trimmed), "p_" before a
// leading digit or a reserved word. `auth[password]` → `auth_password`.
// Collisions are the caller's (builder.uniq).
func secretName(field string) string {
	return cleanName(strings.ToLower(field), false)
}

// varName maps a variable name of the source format (Selenium `${myVar}`,
// a template name) to a flow identifier: kept as is when it is one and is
// not reserved, else cleaned like secretName but keeping case.
func varName(raw string) string {
	if identRe().MatchString(raw) && !isReserved(raw) {
		return raw
	}
	return cleanName(raw, true)
}

func cleanName(s string, keepCase bool) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		ok := r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (keepCase && r >= 'A' && r <= 'Z')
		if ok {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		out = "field"
	}
	if (out[0] >= '0' && out[0] <= '9') || isReserved(out) {
		out = "p_" + out
	}
	return out
}

// flowName turns a title into a flow NAME ([a-z][a-z0-9_]*), or "" when
// nothing usable is left (the caller then falls back to the file name).
func flowName(title string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(title) {
		if r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') {
			b.WriteRune(r)
			under = false
			continue
		}
		if !under {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.Trim(b.String(), "_")
	if out == "" {
		return ""
	}
	if out[0] < 'a' || out[0] > 'z' {
		out = "flow_" + out
	}
	if len(out) > 64 {
		out = strings.TrimRight(out[:64], "_")
	}
	return out
}

// passwordRe says whether a field name, id, label or selector names a
// password field.
var passwordRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)pass(word|wd|code)|pwd|密码|passwort|mot.de.passe|contraseña`)
})

// looksPassword reports whether a field name or selector says "password".
func looksPassword(s string) bool { return passwordRe().MatchString(s) }

// pref is a name referenced before (or without) a binding: it becomes a
// param unless the flow binds it.
type pref struct {
	name string
	typ  string // string, secret, list, int
	desc string
}

// builder assembles one flow: statements into nested blocks, params for
// names nobody binds, comments for the formatter, diagnostics against the
// input file.
type builder struct {
	src    *source
	diags  *diag.Diagnostics
	strict bool

	file     *ast.File
	cur      *[]ast.Stmt
	stack    []*[]ast.Stmt
	comments map[ast.Stmt][]string // comment lines written above a statement
	trailing []string              // comments after the last statement of the body

	params   []*ast.Param          // params declared by the importer (secrets, base_url)
	byParam  map[string]*ast.Param // all params by name
	bound    map[string]int        // variable → depth of its first binding
	loopVars map[string]bool
	refs     []*pref
	refIdx   map[string]*pref
	used     map[string]bool // every name taken (params, variables, loop vars)

	pendingComments []string // attached to the next statement emitted

	secrets      []secretValue     // recorded passwords dropped, scrubbed from every string at the end
	secretFields map[string]string // password field → its secret param
}

// secretValue is a recorded password and the secret param that replaced it.
type secretValue struct{ value, param string }

func newBuilder(src *source, diags *diag.Diagnostics, strict bool) *builder {
	b := &builder{
		src: src, diags: diags, strict: strict,
		file:     &ast.File{},
		comments: map[ast.Stmt][]string{},
		byParam:  map[string]*ast.Param{},
		bound:    map[string]int{},
		loopVars: map[string]bool{},
		refIdx:   map[string]*pref{},
		used:     map[string]bool{},

		secretFields: map[string]string{},
	}
	b.cur = &b.file.Body
	return b
}

// warn reports something of the input that the flow cannot express (or
// expresses only approximately) at the step's position; with --strict it
// is an error.
func (b *builder) warn(at *jnode, format string, args ...any) {
	r := b.src.rng(focus(at))
	if b.strict {
		b.diags.Errorf(r, format, args...)
	} else {
		b.diags.Warnf(r, format, args...)
	}
}

// errorf reports input the importer cannot read at all.
func (b *builder) errorf(at *jnode, format string, args ...any) {
	b.diags.Errorf(b.src.rng(focus(at)), format, args...)
}

// note reports a deliberate change of the recording (a dropped password)
// as a warning, even with --strict: it is expressed, on purpose otherwise.
func (b *builder) note(at *jnode, format string, args ...any) {
	b.diags.Warnf(b.src.rng(focus(at)), format, args...)
}

// focus narrows a step object to its "type" or "command" member, so the
// caret stands under the line that names the step.
func focus(n *jnode) *jnode {
	if n == nil || n.kind != jObject {
		return n
	}
	for _, k := range []string{"command", "type"} {
		for _, m := range n.mems {
			if m.key == k {
				return &jnode{kind: jString, off: m.koff, end: m.val.end}
			}
		}
	}
	return n
}

// comment queues a `# text` line above the next statement.
func (b *builder) comment(text string) {
	for _, l := range strings.Split(text, "\n") {
		b.pendingComments = append(b.pendingComments, "# "+strings.TrimRight(l, " \t"))
	}
}

// emit appends a statement to the current block.
func (b *builder) emit(s ast.Stmt) {
	if len(b.pendingComments) > 0 {
		b.comments[s] = append(b.comments[s], b.pendingComments...)
		b.pendingComments = nil
	}
	*b.cur = append(*b.cur, s)
}

// depth is the block nesting depth (0 = flow body).
func (b *builder) depth() int { return len(b.stack) }

// push makes body the current block (the caller has emitted its owner).
func (b *builder) push(body *[]ast.Stmt) {
	b.stack = append(b.stack, b.cur)
	b.cur = body
}

// pop returns to the enclosing block; comments still queued go to the end
// of the block being left (as a trailing comment of its last statement's
// owner is not representable, they move to the next statement).
func (b *builder) pop() {
	if len(b.stack) == 0 {
		return
	}
	b.cur = b.stack[len(b.stack)-1]
	b.stack = b.stack[:len(b.stack)-1]
}

// bind records that the flow assigns name (a variable) at the current depth.
func (b *builder) bind(name string) {
	if _, ok := b.bound[name]; !ok {
		b.bound[name] = b.depth()
	}
	b.used[name] = true
}

// isBound reports whether name is a param, a variable bound so far or a loop
// variable.
func (b *builder) isBound(name string) bool {
	if _, ok := b.bound[name]; ok {
		return true
	}
	return b.byParam[name] != nil || b.loopVars[name]
}

// use records a reference to name; unbound names become required params of
// type typ at the end.
func (b *builder) use(name, typ, desc string) {
	if b.isBound(name) {
		return
	}
	if r := b.refIdx[name]; r != nil {
		if typ == "secret" || (r.typ == "string" && typ != "string") {
			r.typ = typ
		}
		if r.desc == "" {
			r.desc = desc
		}
		return
	}
	r := &pref{name: name, typ: typ, desc: desc}
	b.refs = append(b.refs, r)
	b.refIdx[name] = r
	b.used[name] = true
}

// uniq returns name, or name_2, name_3 ... so that it is not taken yet, and
// takes it.
func (b *builder) uniq(name string) string {
	n := name
	for i := 2; b.used[n]; i++ {
		n = fmt.Sprintf("%s_%d", name, i)
	}
	b.used[n] = true
	return n
}

// param declares a param (and takes its name).
func (b *builder) param(name, typ string, def ast.Expr, desc string) *ast.Param {
	p := &ast.Param{Name: name, Type: &ast.Type{Name: typ}, Default: def, Description: desc}
	b.params = append(b.params, p)
	b.byParam[name] = p
	b.used[name] = true
	return p
}

// secretParam declares (once per field) the required secret param that
// replaces a recorded password; the value itself is dropped with a warning.
func (b *builder) secretParam(at *jnode, field, value, what string) string {
	name, ok := b.secretFields[field]
	if !ok {
		name = b.uniq(secretName(field))
		b.secretFields[field] = name
		b.param(name, "secret", nil, "Password for the "+field+" field")
	}
	b.secrets = append(b.secrets, secretValue{value: value, param: name})
	b.src.dropped = append(b.src.dropped, value)
	b.note(at, "%s: recorded password value dropped; the flow takes the secret param %q", what, name)
	return name
}

// finish turns unbound references into params, declares at flow level the
// variables first bound inside a block (so later statements outside it see
// them), and fills the file header.
func (b *builder) finish(name, description string) *ast.File {
	for len(b.stack) > 0 {
		b.pop()
	}
	f := b.file
	f.Name = name
	f.Description = description
	f.Params = append(f.Params, b.params...)
	for _, r := range b.refs {
		if _, ok := b.bound[r.name]; ok {
			continue // bound later in the flow; declared at the top below
		}
		typ := r.typ
		if typ == "string" && looksPassword(r.name) {
			typ = "secret"
		}
		f.Params = append(f.Params, &ast.Param{Name: r.name, Type: &ast.Type{Name: typ}, Description: r.desc})
	}
	var hoist []string
	for n, d := range b.bound {
		if d > 0 || b.refIdx[n] != nil {
			hoist = append(hoist, n)
		}
	}
	sort.Strings(hoist)
	if len(hoist) > 0 {
		pre := make([]ast.Stmt, 0, len(hoist)+len(f.Body))
		for _, n := range hoist {
			pre = append(pre, &ast.AssignStmt{Name: n, Value: &ast.NullLit{}})
		}
		f.Body = append(pre, f.Body...)
	}
	b.trailing = append(b.trailing, b.pendingComments...)
	b.pendingComments = nil
	b.scrub(f)
	layout(f, b.comments, b.trailing)
	return f
}

// scrub removes every recorded password from the flow: in strings
// (a navigation URL that carried it, a later value) it becomes the secret
// param's interpolation, in comments `***`. Values shorter than 3 bytes are
// left alone: replacing them would corrupt unrelated text.
func (b *builder) scrub(f *ast.File) {
	type rep struct{ text, param string }
	var reps []rep
	for _, s := range b.secrets {
		if len(s.value) < 3 {
			continue
		}
		for _, t := range []string{s.value, url.QueryEscape(s.value), url.PathEscape(s.value)} {
			reps = append(reps, rep{t, s.param})
		}
	}
	if len(reps) == 0 {
		return
	}
	sort.SliceStable(reps, func(i, j int) bool { return len(reps[i].text) > len(reps[j].text) })
	fix := func(s *ast.StringLit) {
		var out []ast.StringPart
		for _, p := range s.Parts {
			if p.Expr != nil {
				out = append(out, p)
				continue
			}
			text := p.Text
		scan:
			for text != "" {
				best, at := -1, len(text)
				for i, r := range reps {
					if k := strings.Index(text, r.text); k >= 0 && k < at {
						best, at = i, k
					}
				}
				if best < 0 {
					break scan
				}
				if at > 0 {
					out = append(out, ast.StringPart{Text: text[:at]})
				}
				out = append(out, ast.StringPart{Expr: src(reps[best].param)})
				text = text[at+len(reps[best].text):]
			}
			if text != "" {
				out = append(out, ast.StringPart{Text: text})
			}
		}
		s.Parts = out
	}
	walkStrings(f, fix)
	for st, cs := range b.comments {
		for i, c := range cs {
			for _, r := range reps {
				c = strings.ReplaceAll(c, r.text, "***")
			}
			b.comments[st][i] = c
		}
	}
	for i, c := range b.trailing {
		for _, r := range reps {
			c = strings.ReplaceAll(c, r.text, "***")
		}
		b.trailing[i] = c
	}
}

// walkStrings calls fn on every string literal of the flow's body.
func walkStrings(f *ast.File, fn func(*ast.StringLit)) {
	var expr func(e ast.Expr)
	expr = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.StringLit:
			fn(e)
		case *ast.ListLit:
			for _, x := range e.Elems {
				expr(x)
			}
		case *ast.MapLit:
			for _, en := range e.Entries {
				expr(en.Key)
				expr(en.Value)
			}
		}
	}
	var stmts func(ss []ast.Stmt)
	stmts = func(ss []ast.Stmt) {
		for _, s := range ss {
			switch s := s.(type) {
			case *ast.ActionStmt:
				for _, a := range s.Args {
					expr(a)
				}
				for _, o := range s.Options {
					expr(o.Value)
				}
			case *ast.AssignStmt:
				expr(s.Value)
			case *ast.IfStmt:
				stmts(s.Then)
				stmts(s.Else)
			case *ast.ForStmt:
				stmts(s.Body)
			case *ast.WhileStmt:
				stmts(s.Body)
			case *ast.FrameStmt:
				expr(s.Selector)
				stmts(s.Body)
			case *ast.TryStmt:
				stmts(s.Body)
				stmts(s.Catch)
			case *ast.RetryStmt:
				stmts(s.Body)
			case *ast.LogStmt:
				expr(s.Value)
			case *ast.AssertStmt:
				expr(s.Message)
			case *ast.FailStmt:
				expr(s.Message)
			}
		}
	}
	stmts(f.Body)
}

// badURL says why the URL an `open` of the flow gets cannot be opened ("" when
// it can, or when it interpolates: then it is known only when the flow
// runs). An importer refuses such a step (as the checker would refuse the
// flow) rather than write a flow that does not load.
func badURL(e ast.Expr) string {
	s, ok := e.(*ast.StringLit)
	if !ok {
		return ""
	}
	var text strings.Builder
	for _, p := range s.Parts {
		if p.Expr != nil {
			return ""
		}
		text.WriteString(p.Text)
	}
	return actions.CheckOpenURL(text.String())
}

// ---- expression helpers ----

// lit is a plain string literal (no interpolation).
func lit(s string) *ast.StringLit { return &ast.StringLit{Parts: []ast.StringPart{{Text: s}}} }

// num is an integer literal.
func num(n int64) *ast.NumberLit { return &ast.NumberLit{Raw: strconv.FormatInt(n, 10), Value: n} }

// src is expr-lang source (a name, a name path or a full expression).
func src(s string) *ast.ExprSrc { return &ast.ExprSrc{Source: s} }

// quote renders s, a value taken from the input, as a string literal of
// expression source: the one quoting path (format.Quote), so no value can
// end the statement, add one, or become an interpolation.
func quote(s string) string { return format.Quote(s) }

// dur converts milliseconds to a duration literal (500ms, 5s, 1m30s).
func dur(ms float64) *ast.DurationLit {
	d := time.Duration(ms * float64(time.Millisecond)).Round(time.Millisecond)
	if d <= 0 {
		d = time.Millisecond
	}
	var raw string
	switch {
	case d%time.Second != 0:
		raw = fmt.Sprintf("%dms", d/time.Millisecond)
	default:
		s := int64(d / time.Second)
		h, m, sec := s/3600, (s%3600)/60, s%60
		if h > 0 {
			raw += fmt.Sprintf("%dh", h)
		}
		if m > 0 {
			raw += fmt.Sprintf("%dm", m)
		}
		if sec > 0 || raw == "" {
			raw += fmt.Sprintf("%ds", sec)
		}
	}
	return &ast.DurationLit{Raw: raw, Value: d}
}

// selExpr is a selector argument: one string, or a fallback list.
func selExpr(sels []string) ast.Expr {
	if len(sels) == 1 {
		return lit(sels[0])
	}
	l := &ast.ListLit{}
	for _, s := range sels {
		l.Elems = append(l.Elems, lit(s))
	}
	return l
}

// act builds an action statement.
func act(name string, args ...ast.Expr) *ast.ActionStmt {
	return &ast.ActionStmt{Action: name, Args: args}
}

// opt appends an option to an action statement and returns it.
func opt(a *ast.ActionStmt, name string, v ast.Expr) *ast.ActionStmt {
	a.Options = append(a.Options, &ast.Option{Name: name, Value: v})
	return a
}

// ---- layout ----

// layout gives every statement and comment a synthetic position, one line
// each in print order (offsets grow with lines), so the formatter, which
// places comments by offset, writes each comment above its statement.
func layout(f *ast.File, comments map[ast.Stmt][]string, trailing []string) {
	line := 1
	pos := func(l, col int) ast.Pos { return ast.Pos{Line: l, Col: col, Offset: l*10000 + col} }
	at := func(indent int) ast.Range {
		return ast.Range{Start: pos(line, indent*4+1), End: pos(line, indent*4+2)}
	}
	f.NameRange = at(0)
	line++
	for _, p := range f.Params {
		p.Range = at(0)
		p.NameRange = p.Range
		line++
	}
	for _, o := range f.Defaults {
		o.Range = at(0)
		o.NameRange = o.Range
		line++
	}
	var block func(body []ast.Stmt, indent int)
	var stmt func(s ast.Stmt, indent int)
	addComments := func(lines []string, indent int) {
		for _, c := range lines {
			r := at(indent)
			r.End = pos(line, indent*4+1+len(c))
			f.Comments = append(f.Comments, &ast.Comment{Range: r, Text: c})
			line++
		}
	}
	block = func(body []ast.Stmt, indent int) {
		for _, s := range body {
			stmt(s, indent)
		}
	}
	stmt = func(s ast.Stmt, indent int) {
		addComments(comments[s], indent)
		r := at(indent)
		line++
		switch s := s.(type) {
		case *ast.ActionStmt:
			s.ActionRange = r
			for _, o := range s.Options {
				o.Range, o.NameRange = r, r
			}
		case *ast.AssignStmt:
			s.NameRange = r
		case *ast.IfStmt:
			block(s.Then, indent+1)
			cur := s
			for len(cur.Else) == 1 {
				ei, ok := cur.Else[0].(*ast.IfStmt)
				if !ok {
					break
				}
				addComments(comments[ei], indent+1)
				ei.Range = at(indent) // the `} else if` line; End set below
				line++
				block(ei.Then, indent+1)
				cur = ei
			}
			if len(cur.Else) > 0 {
				line++ // } else {
				block(cur.Else, indent+1)
			}
			line++ // }
			end := pos(line-1, indent*4+2)
			for x := s; ; {
				x.End = end
				if len(x.Else) != 1 {
					break
				}
				nx, ok := x.Else[0].(*ast.IfStmt)
				if !ok || nx == x {
					break
				}
				x = nx
			}
		case *ast.ForStmt:
			s.VarRange = r
			block(s.Body, indent+1)
			line++
		case *ast.WhileStmt:
			block(s.Body, indent+1)
			line++
		case *ast.FrameStmt:
			block(s.Body, indent+1)
			line++
		case *ast.RetryStmt:
			block(s.Body, indent+1)
			line++
		case *ast.TryStmt:
			block(s.Body, indent+1)
			s.CatchVarRange = at(indent)
			line++
			block(s.Catch, indent+1)
			line++
		}
		if _, isIf := s.(*ast.IfStmt); !isIf {
			r.End = pos(line-1, indent*4+2)
		} else {
			r.End = s.(*ast.IfStmt).End
		}
		setRange(s, r)
	}
	block(f.Body, 0)
	addComments(trailing, 0)
	f.Range = ast.Range{Start: pos(1, 1), End: pos(line, 1)}
}

// setRange sets a statement's own Range.
func setRange(s ast.Stmt, r ast.Range) {
	switch s := s.(type) {
	case *ast.ActionStmt:
		s.Range = r
	case *ast.AssignStmt:
		s.Range = r
	case *ast.IfStmt:
		s.Range = r
	case *ast.ForStmt:
		s.Range = r
	case *ast.WhileStmt:
		s.Range = r
	case *ast.BreakStmt:
		s.Range = r
	case *ast.ContinueStmt:
		s.Range = r
	case *ast.TryStmt:
		s.Range = r
	case *ast.RetryStmt:
		s.Range = r
	case *ast.FrameStmt:
		s.Range = r
	case *ast.ReturnStmt:
		s.Range = r
	case *ast.FailStmt:
		s.Range = r
	case *ast.AssertStmt:
		s.Range = r
	case *ast.LogStmt:
		s.Range = r
	}
}
