package check

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/expr-lang/expr"
	exprast "github.com/expr-lang/expr/ast"
	exprchecker "github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"github.com/rpa-dev/rpa/lang/ast"
)

// StrHelper is the name of the stringify function the checker inserts when it
// rewrites a string literal with `{{ }}` inside expression source
// ("a {{ x }}" becomes ("a " + __str(x))). It is compiled into each program
// with expr.Function, so run-time envs never carry it.
const StrHelper = "__str"

var strFunc = expr.Function(StrHelper, func(params ...any) (any, error) {
	return Stringify(params[0]), nil
}, new(func(any) string))

// rewriteInterp rewrites every string literal of expr source src that holds
// a `{{ E }}` interpolation into a parenthesised concatenation. It returns
// the new source and, when it changed anything, origOf: for each rune of the
// new source the rune offset in src it comes from (inserted runes map to the
// next original rune). origOf is nil when src is returned unchanged.
func rewriteInterp(src string) (string, []int) {
	out, orig, _ := rewriteInterpDepth(src, 0)
	return out, orig
}

// errInterpDepth is rewriteInterp's error past MaxInterpDepth.
var errInterpDepth = fmt.Errorf("interpolations nested too deeply (more than %d strings with {{ }} inside one another)", MaxInterpDepth)

// rewriteInterpDepth is rewriteInterp at nesting depth (0 at the top): past
// MaxInterpDepth it stops with errInterpDepth, so a hostile file cannot
// make it recurse without bound.
func rewriteInterpDepth(src string, depth int) (string, []int, error) {
	if !strings.Contains(src, "{{") {
		return src, nil, nil
	}
	if depth >= MaxInterpDepth {
		return "", nil, errInterpDepth
	}
	rs := []rune(src)
	var out []rune
	var orig []int
	changed := false
	emit := func(r rune, at int) { out = append(out, r); orig = append(orig, at) }
	emitS := func(s string, at int) {
		for _, r := range s {
			emit(r, at)
		}
	}
	for i := 0; i < len(rs); {
		q := rs[i]
		if q != '"' && q != '\'' && q != '`' {
			emit(q, i)
			i++
			continue
		}
		end := stringEnd(rs, i)
		if end < 0 { // unterminated: let expr report it
			for ; i < len(rs); i++ {
				emit(rs[i], i)
			}
			break
		}
		parts := splitInterp(rs, i+1, end, q)
		if parts == nil {
			for ; i <= end; i++ {
				emit(rs[i], i)
			}
			continue
		}
		changed = true
		if len(parts) == 1 && parts[0].expr {
			// "{{ E }}" alone keeps E's own value and type.
			p := parts[0]
			emit('(', i)
			inner, m, err := rewriteInterpDepth(string(rs[p.from:p.to]), depth+1)
			if err != nil {
				return "", nil, err
			}
			for k, r := range []rune(inner) {
				o := k
				if m != nil {
					o = m[k]
				}
				emit(r, p.from+o)
			}
			emit(')', end)
			i = end + 1
			continue
		}
		emit('(', i)
		for n, p := range parts {
			if n > 0 {
				emitS(" + ", p.from)
			}
			if !p.expr {
				emit(q, p.from)
				for k := p.from; k < p.to; k++ {
					emit(rs[k], k)
				}
				emit(q, p.to)
				continue
			}
			emitS(StrHelper+"(", p.from)
			inner, m, err := rewriteInterpDepth(string(rs[p.from:p.to]), depth+1)
			if err != nil {
				return "", nil, err
			}
			for k, r := range []rune(inner) {
				o := k
				if m != nil {
					o = m[k]
				}
				emit(r, p.from+o)
			}
			emit(')', p.to)
		}
		emit(')', end)
		i = end + 1
	}
	if !changed {
		return src, nil, nil
	}
	return string(out), orig, nil
}

// stringEnd returns the index of the closing quote of the string literal
// starting at rs[i], or -1.
func stringEnd(rs []rune, i int) int {
	q := rs[i]
	for j := i + 1; j < len(rs); j++ {
		if rs[j] == '\\' && q != '`' {
			j++
			continue
		}
		if rs[j] == q {
			return j
		}
	}
	return -1
}

type interpPart struct {
	from, to int // rune range of the text, or of the expression inside {{ }}
	expr     bool
}

// splitInterp splits the content rs[from:to] of a string literal quoted with
// q into literal and `{{ }}` parts. It returns nil when there is no complete
// interpolation.
func splitInterp(rs []rune, from, to int, q rune) []interpPart {
	var parts []interpPart
	text := from
	found := false
	for i := from; i+1 < to; i++ {
		if rs[i] != '{' || rs[i+1] != '{' {
			if rs[i] == '\\' && q != '`' {
				i++
			}
			continue
		}
		close := interpClose(rs, i+2, to, q)
		if close < 0 {
			break
		}
		found = true
		if i > text {
			parts = append(parts, interpPart{from: text, to: i})
		}
		parts = append(parts, interpPart{from: i + 2, to: close, expr: true})
		text = close + 2
		i = close + 1
	}
	if !found {
		return nil
	}
	if text < to {
		parts = append(parts, interpPart{from: text, to: to})
	}
	return parts
}

// interpClose finds the `}}` closing an interpolation whose body starts at
// rs[i], skipping nested braces and quoted strings (other than q); -1 if none.
func interpClose(rs []rune, i, to int, q rune) int {
	depth := 0
	for ; i < to; i++ {
		switch c := rs[i]; c {
		case '"', '\'', '`':
			if c == q {
				return -1
			}
			e := stringEnd(rs[:to], i)
			if e < 0 {
				return -1
			}
			i = e
		case '{':
			depth++
		case '}':
			if depth == 0 {
				if i+1 < to && rs[i+1] == '}' {
					return i
				}
				return -1
			}
			depth--
		}
	}
	return -1
}

// Advance returns the position reached by moving n runes forward from p
// through src (which starts at p). Lines advance on '\n'; Col counts bytes.
func Advance(p ast.Pos, src string, n int) ast.Pos {
	for _, r := range src {
		if n == 0 {
			break
		}
		n--
		w := utf8.RuneLen(r)
		if w < 0 {
			w = 1
		}
		p.Offset += w
		if r == '\n' {
			p.Line++
			p.Col = 1
		} else {
			p.Col += w
		}
	}
	return p
}

// withoutComments returns the source of e with every comment of f that lies
// inside it replaced by spaces, so offsets (and expr's rune positions) are
// unchanged. A full expression that spans lines inside `{ }` may hold `#`
// comments (LANGUAGE.md: braces do not make '#' a closure name); they are
// part of e.Source and listed in f.Comments, and expr-lang must not see them.
func withoutComments(f *ast.File, e *ast.ExprSrc) string {
	if f == nil || e.Start.Line == e.End.Line || len(f.Comments) == 0 {
		return e.Source
	}
	b := []byte(e.Source)
	changed := false
	for _, cm := range f.Comments {
		if cm.File != e.File || cm.Start.Offset < e.Start.Offset || cm.End.Offset > e.End.Offset {
			continue
		}
		for i := cm.Start.Offset - e.Start.Offset; i < cm.End.Offset-e.Start.Offset && i < len(b); i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
		changed = true
	}
	if !changed {
		return e.Source
	}
	return string(b)
}

// exprError is a compile failure mapped to the flow file.
type exprError struct {
	msg    string
	detail string // an optional hint (diag.Diagnostic.Detail)
	rng    ast.Range
	name   string // for "unknown name X"
	call   bool   // the unknown name is called: name(...)
}

// exprCompiler compiles expressions for one checker (one goroutine): it
// keeps one expr config, so the builtins table is not copied per
// expression, and an env nature whose fields it updates in place as names
// come into and go out of scope.
type exprCompiler struct {
	cfg    *conf.Config
	env    nature.Nature
	fields map[string]nature.Nature
	cache  map[string]nature.Nature // field nature by type string
}

func newCompiler() *exprCompiler {
	cfg := conf.CreateNew()
	strFunc(cfg)
	escapeFuncs(cfg) // escape.go
	totpFunc(cfg)
	cfg.Check()
	env := nature.NatureOf(map[string]any{})
	if env.TypeData == nil {
		env.TypeData = new(nature.TypeData)
	}
	env.Strict = true
	env.Fields = map[string]nature.Nature{}
	cfg.Env, cfg.Strict = env, true
	return &exprCompiler{cfg: cfg, env: env, fields: env.Fields, cache: map[string]nature.Nature{}}
}

// natureOf is the nature of a static type (nil = any), cached per checker.
func (c *exprCompiler) natureOf(t types.Type) nature.Nature {
	if t == nil {
		return nature.Nature{}
	}
	key := t.String()
	if n, ok := c.cache[key]; ok {
		return n
	}
	n := t.Nature()
	c.cache[key] = n
	return n
}

// set puts name in the env with type t and returns what it replaced.
func (c *exprCompiler) set(name string, t types.Type) (prev nature.Nature, had bool) {
	prev, had = c.fields[name]
	c.fields[name] = c.natureOf(t)
	return prev, had
}

// restore undoes a set.
func (c *exprCompiler) restore(name string, prev nature.Nature, had bool) {
	if had {
		c.fields[name] = prev
	} else {
		delete(c.fields, name)
	}
}

// compile compiles e against the current env. asBool asks for a boolean
// result (checked statically when the type is known, at run time else).
// The comments of f inside e are blanked first (see withoutComments).
func (c *exprCompiler) compile(f *ast.File, e *ast.ExprSrc, asBool bool) (*vm.Program, *exprError) {
	src, origOf, err := rewriteInterpDepth(withoutComments(f, e), 0)
	if err == nil {
		err = NestingError(src) // depth.go: before expr's parser recurses
	}
	if err != nil {
		return nil, &exprError{msg: err.Error(), rng: e.Range}
	}
	c.cfg.Expect = reflect.Invalid
	if asBool {
		c.cfg.Expect = reflect.Bool
	}
	prog, err := c.run(src)
	if err == nil {
		return prog, nil
	}
	ee := &exprError{msg: err.Error(), rng: e.Range}
	var fe *file.Error
	if errors.As(err, &fe) {
		ee.msg, ee.detail = exprWording(fe.Message)
		from, to := fe.From, fe.To
		if origOf != nil {
			from = mapOff(origOf, from, e.Source)
			to = mapOff(origOf, to, e.Source)
		}
		if strings.HasPrefix(fe.Message, "unknown name ") {
			ee.name = strings.TrimPrefix(fe.Message, "unknown name ")
			ee.msg = "unknown name \"" + ee.name + "\""
			to = from + utf8.RuneCountInString(ee.name)
			rest := strings.TrimLeft(suffixRunes(e.Source, to), " \t")
			ee.call = strings.HasPrefix(rest, "(")
		}
		if to <= from {
			to = from + 1
		}
		start := Advance(e.Range.Start, e.Source, from)
		end := Advance(start, suffixRunes(e.Source, from), to-from)
		ee.rng = ast.Range{File: e.Range.File, Start: start, End: end}
	} else if i := strings.IndexByte(ee.msg, '\n'); i >= 0 {
		// expr's compiler turns its own panics into errors with a stack.
		ee.msg = "internal error compiling expression: " + ee.msg[:i]
	}
	ee.msg = strings.TrimSpace(ee.msg)
	return nil, ee
}

// run is expr.Compile with the checker's long-lived config.
func (c *exprCompiler) run(src string) (prog *vm.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error compiling expression: %v", r)
		}
	}()
	tree, err := exprchecker.ParseCheck(src, c.cfg)
	if err != nil {
		return nil, err
	}
	if c.cfg.Optimize {
		if err := optimizer.Optimize(&tree.Node, c.cfg); err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, c.cfg)
}

func suffixRunes(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[i:]
		}
		n--
	}
	return ""
}

func mapOff(origOf []int, off int, src string) int {
	if off < 0 {
		return 0
	}
	if off < len(origOf) {
		return origOf[off]
	}
	return utf8.RuneCountInString(src)
}

// progType is the static result type of a program, nil when unknown.
func progType(p *vm.Program) reflect.Type {
	n := p.Node()
	if n == nil {
		return nil
	}
	t := n.Type()
	if t == nil || t.Kind() == reflect.Interface {
		return nil
	}
	return t
}

// identifiers lists the names a program reads from its env.
func identifiers(p *vm.Program) []string {
	n := p.Node()
	if n == nil {
		return nil
	}
	v := &identVisitor{}
	exprast.Walk(&n, v)
	return v.names
}

type identVisitor struct{ names []string }

// Visit records identifier nodes.
func (v *identVisitor) Visit(n *exprast.Node) {
	if id, ok := (*n).(*exprast.IdentifierNode); ok {
		v.names = append(v.names, id.Value)
	}
}

// exprTokenRE matches expr-lang's rendering of a token: Kind("value") or a
// bare kind (EOF).
var exprTokenRE = regexp.MustCompile(`unexpected token (\w+)(?:\((".*")\))?`)

// exprWording rewrites expr-lang's own wording of a syntax error
// (`unexpected token Identifier("x")`) into our Summary + Detail form:
// a terse summary that names the culprit in the flow's terms and, where
// one helps, a hint. Messages it does not know pass through unchanged.
func exprWording(msg string) (summary, detail string) {
	if h, ok := ListPlusHint(msg); ok { // wording.go
		return h, ""
	}
	switch {
	case strings.HasPrefix(msg, "a map key must be"):
		summary = "a map key must be a quoted string, a number, a name or an expression in parentheses"
		if m := exprTokenRE.FindStringSubmatch(msg); m != nil {
			detail = "found " + describeToken(m[1], m[2])
		}
		if strings.Contains(msg, `Operator("#")`) {
			detail += "; a # inside ( ) or [ ] is expr's closure name, not a comment"
		}
		return summary, detail
	case strings.HasPrefix(msg, "unexpected token "):
		m := exprTokenRE.FindStringSubmatch(msg)
		if m == nil {
			break
		}
		summary = "unexpected " + describeToken(m[1], m[2])
		switch m[1] {
		case "Identifier", "Number", "String":
			detail = "two values stand side by side: is an operator or a comma missing before it?"
		case "EOF":
			detail = "the expression ends too early"
		case "Operator":
			if m[2] == `"#"` {
				detail = "a # inside ( ) or [ ] is expr's closure name, not a comment"
			}
		}
		return summary, detail
	case strings.HasPrefix(msg, "Operator (") && strings.Contains(msg, "coalesce"):
		op := strings.TrimSuffix(strings.TrimPrefix(msg, "Operator ("), msg[strings.Index(msg, ")"):])
		return "?? cannot be mixed with " + op, "wrap one side in parentheses"
	case msg == "literal not terminated":
		return "string not terminated", "close it with the quote it starts with"
	case strings.HasPrefix(msg, "unrecognized character: "):
		return "unexpected character " + strings.TrimPrefix(msg, "unrecognized character: "), ""
	}
	return msg, ""
}

// describeToken names an expr-lang token in the flow's terms: name "x",
// number 1, string "s", "+", end of expression.
func describeToken(kind, quoted string) string {
	v, err := strconv.Unquote(quoted)
	if err != nil {
		v = quoted
	}
	switch kind {
	case "Identifier":
		return fmt.Sprintf("name %q", v)
	case "Number":
		return "number " + v
	case "String":
		return fmt.Sprintf("string %q", v)
	case "EOF":
		return "end of expression"
	}
	return fmt.Sprintf("%q", v)
}
