// Package check is the static checker of flows: it resolves names through the
// block scopes, checks every action against the action table
// (lang/actions), checks params, defaults and control statements, and
// compiles every expression of the file once with expr-lang against the
// names in scope (see env.go for the env contract). It collects every
// problem of a file, never only the first.
package check

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/expr-lang/expr/builtin"
	"github.com/expr-lang/expr/checker/nature"
	"github.com/expr-lang/expr/types"
	"github.com/expr-lang/expr/vm"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

// Options tune a check.
type Options struct {
	// Folder, when non-nil, holds the flows of the file's folder by NAME
	// (the file itself may be among them). `call` targets must be in it and
	// `with:` keys are checked against the callee's params. When nil (a
	// single file is checked) `call` targets are not resolved.
	Folder map[string]*ast.File
}

// Result is what a check produces besides diagnostics.
type Result struct {
	// Programs holds the compiled program of every ExprSrc of the file that
	// compiled (all of them when the diagnostics have no error).
	Programs map[*ast.ExprSrc]*vm.Program
}

// File checks one flow. It never panics on any tree a front end produces;
// nil statements or expressions are reported as errors.
func File(f *ast.File, opts *Options) (res *Result, ds diag.Diagnostics) {
	if opts == nil {
		opts = &Options{}
	}
	defer func() {
		if r := recover(); r != nil {
			var at ast.Range
			if f != nil {
				at = f.NameRange
			}
			ds = append(ds, &diag.Diagnostic{Severity: diag.Error, Summary: fmt.Sprintf("internal error in the checker: %v", r), Subject: at})
			res = &Result{Programs: map[*ast.ExprSrc]*vm.Program{}}
		}
	}()
	c := newChecker(f, opts, nil)
	c.run()
	if len(c.widen) > 0 {
		// Some name is bound to values of different static types: its
		// common type is any. Check again with that knowledge, so uses
		// before the differing binding are not held to the first type.
		widen := c.widen
		c = newChecker(f, opts, widen)
		c.run()
	}
	c.diags.Sort()
	return &Result{Programs: c.progs}, c.diags
}

type varKind int

const (
	varLocal varKind = iota
	varParam
	varLoop
	varCatch
	varBuiltin
)

type varInfo struct {
	name string
	typ  types.Type // nil: any
	kind varKind
	decl ast.Node
	used bool
}

type scope struct {
	vars   map[string]*varInfo
	order  []string
	parent *scope
	undo   []undo
}

// undo restores the env field a declaration replaced, when its scope ends.
type undo struct {
	name string
	prev nature.Nature
	had  bool
}

type checker struct {
	f      *ast.File
	opts   *Options
	diags  diag.Diagnostics
	progs  map[*ast.ExprSrc]*vm.Program
	scope  *scope
	params []*varInfo
	loops  int
	widen  map[ast.Node]bool // declaring nodes whose name has mixed types
	forced map[ast.Node]bool // from the previous pass
	comp   *exprCompiler
	// stmts holds the ranges of the statements being checked, outermost
	// first: a diagnostic's Context is the innermost one around it.
	stmts []ast.Range
}

func newChecker(f *ast.File, opts *Options, forced map[ast.Node]bool) *checker {
	c := &checker{f: f, opts: opts, progs: map[*ast.ExprSrc]*vm.Program{}, widen: map[ast.Node]bool{},
		forced: forced, comp: newCompiler()}
	c.comp.set("page", typePage)
	c.comp.set("dialogs", typeDialogs)
	return c
}

func (c *checker) errorf(r ast.Range, format string, args ...any) *diag.Diagnostic {
	return c.context(c.diags.Errorf(r, format, args...))
}

func (c *checker) warnf(r ast.Range, format string, args ...any) *diag.Diagnostic {
	return c.context(c.diags.Warnf(r, format, args...))
}

// context sets d.Context to the innermost statement being checked that
// encloses d.Subject and is larger than it: the step call an argument's
// error sits in, or the block around a statement's own error.
func (c *checker) context(d *diag.Diagnostic) *diag.Diagnostic {
	sub := d.Subject
	for i := len(c.stmts) - 1; i >= 0; i-- {
		r := c.stmts[i]
		if r != sub && r.File == sub.File && r.Start.Line > 0 &&
			r.Start.Offset <= sub.Start.Offset && sub.End.Offset <= r.End.Offset {
			d.Context = &r
			break
		}
	}
	return d
}

func (c *checker) push() { c.scope = &scope{vars: map[string]*varInfo{}, parent: c.scope} }

func (c *checker) pop() {
	s := c.scope
	for i := len(s.undo) - 1; i >= 0; i-- {
		u := s.undo[i]
		c.comp.restore(u.name, u.prev, u.had)
	}
	c.scope = s.parent
}

func (c *checker) lookup(name string) *varInfo {
	for s := c.scope; s != nil; s = s.parent {
		if v, ok := s.vars[name]; ok {
			return v
		}
	}
	return nil
}

// declare adds v to the current scope and to the compile-time env (every
// visible name with its static type, plus page and dialogs).
func (c *checker) declare(v *varInfo) {
	if _, ok := c.scope.vars[v.name]; !ok {
		c.scope.order = append(c.scope.order, v.name)
	}
	c.scope.vars[v.name] = v
	prev, had := c.comp.set(v.name, v.typ)
	c.scope.undo = append(c.scope.undo, undo{v.name, prev, had})
}

func (c *checker) visibleNames() []string {
	seen := map[string]bool{}
	var out []string
	for s := c.scope; s != nil; s = s.parent {
		for _, n := range s.order {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	return append(out, "page", "dialogs")
}

var builtinNames = func() []string {
	var out []string
	for _, b := range builtin.Builtins {
		out = append(out, b.Name)
	}
	return out
}()

func (c *checker) run() {
	f := c.f
	if f == nil {
		c.errorf(ast.Range{}, "empty flow")
		return
	}
	c.push()
	if f.Name == "" {
		c.errorf(f.NameRange, "missing flow name")
	} else if why := ast.FlowNameTooLong(f.Name); why != "" {
		c.errorf(f.NameRange, "flow name %s", why)
	} else if !ast.IsFlowName(f.Name) {
		c.errorf(f.NameRange, "bad flow name %q", f.Name).Detail = "a flow name is lower-case letters, digits and _, starting with a letter"
	}
	c.checkParams()
	c.checkDefaults()
	c.block(f.Body)
	login := false // a sign-in flow takes the flow's params by name
	for _, o := range f.Defaults {
		login = login || o != nil && o.Name == "login"
	}
	for _, p := range c.params {
		if !p.used && !login {
			r := p.decl.Rng()
			if pp, ok := p.decl.(*ast.Param); ok {
				r = pp.NameRange
			}
			c.warnf(r, "param %q is never used", p.name)
		}
	}
}

// Reserved lists the names that cannot name a param or a variable
// (LANGUAGE.md, "Lexical rules").
var Reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, n := range strings.Fields(`page loop dialogs null nil true false profileId deviceId
		in not and or matches contains startsWith endsWith let if else
		flow param defaults for while try catch retry frame return fail assert log break continue`) {
		m[n] = true
	}
	for _, b := range builtin.Builtins {
		m[b.Name] = true
	}
	return m
}()

// IsIdent reports whether name is an identifier of the language
// (LANGUAGE.md, "Lexical rules": [A-Za-z_][A-Za-z0-9_]*, ASCII only). A
// param's or variable's name is one that is not Reserved too.
func IsIdent(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c == '_', 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case '0' <= c && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

func (c *checker) checkName(name string, r ast.Range, what string) bool {
	if name == "" {
		c.errorf(r, "missing %s name", what)
		return false
	}
	if Reserved[name] {
		c.errorf(r, "%q is reserved and cannot name a %s", name, what)
		return false
	}
	return true
}

// ParamTypes are the param type names.
var ParamTypes = []string{"string", "secret", "int", "number", "bool", "list", "map", "enum", "credential"}

// ParamType is the static expr type of a param of type t (nil = any).
func ParamType(t *ast.Type) types.Type {
	if t == nil {
		return nil
	}
	switch t.Name {
	case "string", "secret", "enum":
		return typeString
	case "int":
		return typeInt
	case "number":
		return typeFloat
	case "bool":
		return typeBool
	case "list":
		return typeList
	case "map", "credential":
		return typeMap
	}
	return nil
}

func (c *checker) checkParams() {
	seen := map[string]*ast.Param{}
	for _, p := range c.f.Params {
		if p == nil {
			continue
		}
		ok := c.checkName(p.Name, p.NameRange, "param")
		if prev := seen[p.Name]; prev != nil && p.Name != "" {
			c.errorf(p.NameRange, "duplicate param %q", p.Name).Detail = "first declared at " + prev.NameRange.Start.String()
			ok = false
		}
		seen[p.Name] = p
		c.checkParamType(p)
		if p.Default != nil {
			c.checkParamDefault(p)
		}
		if ok {
			v := &varInfo{name: p.Name, typ: ParamType(p.Type), kind: varParam, decl: p}
			c.declare(v)
			c.params = append(c.params, v)
		}
	}
}

func (c *checker) checkParamType(p *ast.Param) {
	t := p.Type
	if t == nil {
		c.errorf(p.NameRange, "param %q has no type", p.Name)
		return
	}
	switch t.Name {
	case "string", "secret", "int", "number", "bool", "list", "map", "credential":
		if len(t.Values) > 0 {
			c.errorf(t.Range, "only enum takes values")
		}
	case "enum":
		if len(t.Values) == 0 {
			c.errorf(t.Range, "enum needs at least one value")
		}
		seen := map[string]bool{}
		for _, v := range t.Values {
			if seen[v] {
				c.errorf(t.Range, "duplicate enum value %q", v)
			}
			seen[v] = true
		}
	default:
		d := c.errorf(t.Range, "unknown type %q", t.Name)
		if s := diag.Suggest(t.Name, ParamTypes); s != "" {
			d.Detail = fmt.Sprintf("did you mean %q?", s)
		} else {
			d.Detail = "types are " + strings.Join(ParamTypes, ", ")
		}
	}
}

func (c *checker) checkParamDefault(p *ast.Param) {
	d := p.Default
	if !isLiteral(d) {
		c.errorf(d.Rng(), "the default of param %q must be a literal", p.Name)
		return
	}
	if _, ok := d.(*ast.NullLit); ok {
		return
	}
	if p.Type == nil {
		return
	}
	bad := func(want string) {
		c.errorf(d.Rng(), "the default of param %q must be %s, got %s", p.Name, want, describe(d))
	}
	switch p.Type.Name {
	case "string", "secret":
		if _, ok := d.(*ast.StringLit); !ok {
			bad("a string")
		}
	case "credential":
		if _, ok := d.(*ast.StringLit); !ok {
			bad("an account name (a string)")
		}
	case "enum":
		s, ok := d.(*ast.StringLit)
		if !ok {
			bad("a string")
			break
		}
		if v, ok := s.Value(); ok && !slices.Contains(p.Type.Values, v) {
			c.errorf(d.Rng(), "the default %q of param %q is not one of its values", v, p.Name).Detail = "values: " + quoteList(p.Type.Values)
		}
	case "int":
		if n, ok := d.(*ast.NumberLit); !ok || !isInt(n) {
			bad("an integer")
		}
	case "number":
		if _, ok := d.(*ast.NumberLit); !ok {
			bad("a number")
		}
	case "bool":
		if _, ok := d.(*ast.BoolLit); !ok {
			bad("true or false")
		}
	case "list":
		if _, ok := d.(*ast.ListLit); !ok {
			bad("a list")
		}
	case "map":
		if _, ok := d.(*ast.MapLit); !ok {
			bad("a map")
		}
	}
	if p.Type.Name == "secret" {
		c.warnf(d.Rng(), "secret param %q has a default", p.Name).Detail = "a secret's default is stored in the flow file in clear text"
	}
}

// isLiteral reports whether e is a literal made only of literals (strings
// without interpolation).
func isLiteral(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.StringLit:
		_, ok := x.Value()
		return ok
	case *ast.NumberLit, *ast.BoolLit, *ast.NullLit:
		return true
	case *ast.ListLit:
		for _, el := range x.Elems {
			if !isLiteral(el) {
				return false
			}
		}
		return true
	case *ast.MapLit:
		for _, en := range x.Entries {
			if en == nil || !isLiteral(en.Key) || !isLiteral(en.Value) {
				return false
			}
		}
		return true
	}
	return false
}

func isInt(n *ast.NumberLit) bool {
	switch n.Value.(type) {
	case int64, int:
		return true
	}
	return false
}

func (c *checker) checkDefaults() {
	seen := map[string]bool{}
	names := make([]string, len(actions.DefaultsKeys))
	for i, k := range actions.DefaultsKeys {
		names[i] = k.Name
	}
	for _, o := range c.f.Defaults {
		if o == nil {
			continue
		}
		var spec *actions.Option
		for i := range actions.DefaultsKeys {
			if actions.DefaultsKeys[i].Name == o.Name {
				spec = &actions.DefaultsKeys[i]
			}
		}
		if !c.optionHead("defaults", o, spec != nil, func() []string { return names }, seen) {
			continue
		}
		if !isLiteral(o.Value) {
			if _, ok := o.Value.(*ast.DurationLit); !ok {
				c.errorf(o.Value.Rng(), "defaults %s expects a literal, got %s", o.Name, describe(o.Value))
				continue
			}
		}
		c.checkKind(o.Value, spec.Kind, spec.Enum, "defaults "+o.Name)
	}
	c.waitBeyondTimeout(c.f.Defaults, true)
}

// ---- statements ----

func (c *checker) block(stmts []ast.Stmt) {
	terminated, warned := false, false
	for _, s := range stmts {
		if s == nil {
			c.errorf(ast.Range{}, "internal error: nil statement")
			continue
		}
		if terminated && !warned {
			c.warnf(s.Rng(), "unreachable code")
			warned = true // one warning per block
		}
		c.stmt(s)
		switch s.(type) {
		case *ast.ReturnStmt, *ast.FailStmt, *ast.BreakStmt, *ast.ContinueStmt:
			terminated = true
		}
	}
}

func (c *checker) child(stmts []ast.Stmt) {
	c.push()
	c.block(stmts)
	c.pop()
}

func (c *checker) stmt(s ast.Stmt) {
	c.stmts = append(c.stmts, s.Rng())
	defer func() { c.stmts = c.stmts[:len(c.stmts)-1] }()
	switch s := s.(type) {
	case *ast.ActionStmt:
		c.action(s)
	case *ast.AssignStmt:
		if c.actionTypo(s) {
			c.bind(s.Name, s.NameRange, nil, s)
			break
		}
		t := c.full(s.Value, false)
		c.bind(s.Name, s.NameRange, t, s)
	case *ast.IfStmt:
		c.full(s.Cond, true)
		c.child(s.Then)
		c.child(s.Else)
	case *ast.ForStmt:
		it := c.full(s.Iter, false)
		elem := c.iterElem(it, s.Iter)
		c.push()
		c.loops++
		if c.checkName(s.Var, s.VarRange, "loop variable") {
			c.declare(&varInfo{name: s.Var, typ: elem, kind: varLoop, decl: s})
		}
		c.declare(&varInfo{name: "loop", typ: typeLoop, kind: varBuiltin, decl: s})
		c.block(s.Body)
		c.loops--
		c.pop()
	case *ast.WhileStmt:
		c.full(s.Cond, true)
		c.loops++
		c.child(s.Body)
		c.loops--
	case *ast.BreakStmt:
		if c.loops == 0 {
			c.errorf(s.Range, "break outside a loop")
		}
	case *ast.ContinueStmt:
		if c.loops == 0 {
			c.errorf(s.Range, "continue outside a loop")
		}
	case *ast.TryStmt:
		c.child(s.Body)
		c.push()
		if c.checkName(s.CatchVar, s.CatchVarRange, "catch variable") {
			c.declare(&varInfo{name: s.CatchVar, typ: typeCatch, kind: varCatch, decl: s})
		}
		c.block(s.Catch)
		c.pop()
	case *ast.RetryStmt:
		if s.Count == nil {
			c.errorf(s.Range, "retry needs a count")
		} else {
			c.value(s.Count, actions.KindInt, nil, "retry count")
			if n, ok := s.Count.(*ast.NumberLit); ok && isInt(n) && toInt(n) < 0 {
				c.errorf(n.Range, "retry count must not be negative")
			}
		}
		if s.Every != nil {
			c.value(s.Every, actions.KindDuration, nil, "retry every")
		}
		c.child(s.Body)
	case *ast.FrameStmt:
		if s.Selector == nil {
			c.errorf(s.Range, "frame needs a selector")
		} else {
			c.value(s.Selector, actions.KindSelector, nil, "frame selector")
		}
		c.child(s.Body)
	case *ast.ReturnStmt:
		if s.Value != nil {
			c.full(s.Value, false)
		}
	case *ast.FailStmt:
		if s.Message == nil {
			c.errorf(s.Range, "fail needs a message")
		} else {
			c.full(s.Message, false)
		}
	case *ast.AssertStmt:
		if s.Cond == nil {
			c.errorf(s.Range, "assert needs a condition")
		} else {
			c.full(s.Cond, true)
		}
		if s.Message != nil {
			c.full(s.Message, false)
		}
	case *ast.LogStmt:
		if s.Value == nil {
			c.errorf(s.Range, "log needs a value")
		} else {
			c.full(s.Value, false)
		}
	default:
		c.errorf(s.Rng(), "internal error: unknown statement %T", s)
	}
}

func toInt(n *ast.NumberLit) int64 {
	switch v := n.Value.(type) {
	case int64:
		return v
	case int:
		return int64(v)
	}
	return 0
}

// bind assigns a value of static type t to name: it updates the nearest
// binding or creates one in the current block.
func (c *checker) bind(name string, r ast.Range, t types.Type, decl ast.Node) {
	if !c.checkName(name, r, "variable") {
		return
	}
	if v := c.lookup(name); v != nil {
		switch v.kind {
		case varParam:
			c.errorf(r, "cannot assign to param %q", name).Detail = "params are read-only; bind a new name"
			return
		case varBuiltin:
			c.errorf(r, "cannot assign to %q", name)
			return
		}
		if v.typ != nil && (t == nil || !sameType(v.typ, t)) {
			c.widen[v.decl] = true
			v.typ = nil
			c.comp.fields[name] = nature.Nature{}
		}
		return
	}
	if c.forced[decl] {
		t = nil
	}
	c.declare(&varInfo{name: name, typ: t, kind: varLocal, decl: decl})
}

func sameType(a, b types.Type) bool {
	return a.String() == b.String()
}

func (c *checker) iterElem(t types.Type, iter ast.Expr) types.Type {
	if t == nil {
		return nil
	}
	rt := t.Nature().Type
	if rt == nil {
		return nil
	}
	switch rt.Kind() {
	case reflect.Slice, reflect.Array:
		if rt.Elem().Kind() == reflect.Interface {
			return nil
		}
		return types.TypeOf(reflect.Zero(rt.Elem()).Interface())
	case reflect.Map:
		return typeString
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return typeInt
	case reflect.Interface:
		return nil
	}
	c.errorf(iter.Rng(), "cannot iterate over %s", rt)
	return nil
}

// ---- expressions ----

// full checks a full-expression position (condition, assignment, return,
// ...) and returns its static type (nil = any).
func (c *checker) full(e ast.Expr, asBool bool) types.Type {
	if e == nil {
		return nil
	}
	switch x := e.(type) {
	case *ast.ExprSrc:
		return c.compile(x, asBool)
	case *ast.StringLit:
		c.parts(x)
		if len(x.Parts) == 1 && x.Parts[0].Expr != nil {
			return nil
		}
		if asBool {
			c.errorf(x.Range, "condition expects a bool, got a string")
		}
		return typeString
	case *ast.NumberLit:
		if asBool {
			c.errorf(x.Range, "condition expects a bool, got a number")
		}
		if isInt(x) {
			return typeInt
		}
		return typeFloat
	case *ast.BoolLit:
		return typeBool
	case *ast.NullLit:
		return nil
	case *ast.DurationLit:
		return types.TypeOf(x.Value)
	case *ast.ListLit:
		for _, el := range x.Elems {
			c.full(el, false)
		}
		return typeList
	case *ast.MapLit:
		for _, en := range x.Entries {
			if en != nil {
				c.full(en.Key, false)
				c.full(en.Value, false)
			}
		}
		return typeMap
	}
	c.errorf(e.Rng(), "internal error: unknown expression %T", e)
	return nil
}

func (c *checker) parts(s *ast.StringLit) {
	for _, p := range s.Parts {
		if p.Expr != nil {
			c.compile(p.Expr, false)
		}
	}
}

func (c *checker) compile(e *ast.ExprSrc, asBool bool) types.Type {
	if strings.TrimSpace(e.Source) == "" {
		c.errorf(e.Range, "empty expression")
		return nil
	}
	prog, ee := c.comp.compile(c.f, e, asBool)
	if ee != nil {
		d := c.errorf(ee.rng, "%s", ee.msg)
		d.Detail = ee.detail
		if ee.name != "" {
			if s := diag.Suggest(ee.name, c.visibleNames()); s != "" {
				d.Detail = fmt.Sprintf("did you mean %q?", s)
			} else if s := diag.SuggestWithin(ee.name, builtinNames, 1); s != "" && ee.call {
				d.Detail = fmt.Sprintf("did you mean %q?", s)
			}
		}
		c.markUsedText(e.Source)
		return nil
	}
	c.progs[e] = prog
	for _, id := range identifiers(prog) {
		if v := c.lookup(id); v != nil {
			v.used = true
		}
	}
	t := progType(prog)
	if t == nil {
		return nil
	}
	return types.TypeOf(reflect.Zero(t).Interface())
}

// markUsedText marks params whose name appears as a word of src, so an
// expression that does not compile does not also cause unused warnings.
func (c *checker) markUsedText(src string) {
	words := identRE.FindAllString(src, -1)
	for _, w := range words {
		if v := c.lookup(w); v != nil {
			v.used = true
		}
	}
}

var identRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// ---- helpers ----

func quoteList(list []string) string {
	q := make([]string, len(list))
	for i, s := range list {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, ", ")
}

// describe names a literal's kind for messages ("a number", "the string "x"").
func describe(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StringLit:
		if v, ok := x.Value(); ok {
			if len(v) > 30 {
				v = v[:27] + "..."
			}
			return fmt.Sprintf("the string %q", v)
		}
		return "a string"
	case *ast.NumberLit:
		return "the number " + x.Raw
	case *ast.BoolLit:
		return fmt.Sprintf("%v", x.Value)
	case *ast.NullLit:
		return "null"
	case *ast.DurationLit:
		return "the duration " + x.Raw
	case *ast.ListLit:
		return "a list"
	case *ast.MapLit:
		return "a map"
	}
	return "an expression"
}

var leadWordRE = regexp.MustCompile(`^(\s*)([A-Za-z_][A-Za-z0-9_]*)[ \t]+[^\s=!<>&|+*/%.?,)\]}-]`)

// actionTypo reports (as an error) `NAME = WORD ARG...` where WORD is no
// name in scope and no action but close to one (`x = txt "#a"`): an
// expression cannot have a word followed by an argument, so expr's own
// "unexpected token" would not help.
func (c *checker) actionTypo(s *ast.AssignStmt) bool {
	e, ok := s.Value.(*ast.ExprSrc)
	if !ok || e == nil {
		return false
	}
	m := leadWordRE.FindStringSubmatchIndex(e.Source)
	if m == nil {
		return false
	}
	word := e.Source[m[4]:m[5]]
	if actions.Lookup(word) != nil || c.lookup(word) != nil || isExprWord(word) {
		return false
	}
	sug := diag.Suggest(word, actions.Names())
	if sug == "" {
		return false
	}
	r := e.Range
	if !strings.Contains(e.Source[:m[4]], "\n") {
		r.Start.Col += m[4]
		r.Start.Offset += m[4]
		r.End = r.Start
		r.End.Col += len(word)
		r.End.Offset += len(word)
	}
	c.errorf(r, "unknown action %q", word).Detail = fmt.Sprintf("did you mean %q?", sug)
	return true
}

// isExprWord reports expr's word operators and literals, which may be
// followed by a space and an operand.
func isExprWord(w string) bool {
	switch w {
	case "not", "in", "and", "or", "matches", "contains", "startsWith", "endsWith", "true", "false", "nil", "let":
		return true
	}
	return false
}
