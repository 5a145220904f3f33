package importer

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
)

// exprNames parses expr-lang source and returns the free names it reads
// (builtins left out), or an error when it does not parse.
func exprNames(s string) ([]string, error) {
	if err := check.NestingError(s); err != nil {
		return nil, err // expr's parser would recurse past the stack
	}
	tree, err := parser.Parse(s)
	if err != nil {
		return nil, err
	}
	v := &identVisitor{seen: map[string]bool{}}
	exprast.Walk(&tree.Node, v)
	sort.Strings(v.names)
	return v.names, nil
}

type identVisitor struct {
	seen  map[string]bool
	names []string
}

// Visit collects free identifiers (expr ast.Visitor).
func (v *identVisitor) Visit(n *exprast.Node) {
	id, ok := (*n).(*exprast.IdentifierNode)
	if !ok || v.seen[id.Value] {
		return
	}
	v.seen[id.Value] = true
	switch id.Value {
	case "true", "false", "nil", "page", "dialogs", "loop", "#", "#acc", "#index":
		return
	}
	for _, b := range builtinNames {
		if b == id.Value {
			return
		}
	}
	v.names = append(v.names, id.Value)
}

// jsonFlow imports rpa2mcp's neutral JSON flow: {"name", "description",
// "steps": [{"type", "attrs": {...}, "body": [...]}]} with `{{var}}`
// templates (names nobody binds become params) and `store` bindings.
// Step types: navigate(url), input(selector, value), click(selector),
// extract(selector, store), loop(items, var, body), llm(prompt, store),
// and the obvious select(selector, value), hover, scroll (selector),
// press(key), wait(selector | seconds | ms), screenshot(path, selector).
type jsonFlow struct {
	*builder
	renames map[string]string // store or loop var as written → flow name
}

var tmplRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{(.*?)\}\}`) })

// The kinds of the members of a JSON flow, of its steps and of their
// attrs that the importer reads; another kind is an error naming the
// member ("url": 123 is not a missing url).
var (
	jsonFlowKinds = map[string]jkind{"name": jString, "description": jString, "steps": jArray}
	jsonStepKinds = map[string]jkind{"type": jString, "attrs": jObject, "body": jArray}
	jsonAttrKinds = map[string]jkind{
		"description": jString, "url": jString, "selector": jString, "value": jString, "store": jString,
		"items": jString, "var": jString, "prompt": jString, "key": jString, "path": jString,
		"seconds": jNumber, "ms": jNumber,
	}
)

func (j *jsonFlow) run(root *jnode) {
	if !j.wellTyped("flow", root, jsonFlowKinds) {
		return
	}
	steps := root.get("steps")
	if steps == nil {
		j.errorf(root, `flow has no "steps" list`)
		return
	}
	j.steps(steps.list(), "")
}

func (j *jsonFlow) steps(steps []*jnode, prefix string) {
	for i, st := range steps {
		n := fmt.Sprintf("%s%d", prefix, i+1)
		if st.kind != jObject {
			j.errorf(st, "step %s: expected an object, found %s", n, st.kind)
			continue
		}
		what := "step " + n
		if t := st.get("type"); t != nil && t.kind == jString && t.str != "" {
			what += " (" + t.str + ")"
		}
		if !j.wellTyped(what, st, jsonStepKinds) {
			continue
		}
		if a := st.get("attrs"); a != nil && !j.wellTyped(what+", attrs", a, jsonAttrKinds) {
			continue
		}
		j.step(n, st)
	}
}

var namePathRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[[0-9]+\])*)\s*$`)
})

// path maps a template's name path (`user`, `o.id`, `rows[0]`) to flow
// names: its root is the name a store or loop bound (renamed like them),
// else a param of type typ (a path into it makes it a map). ok=false when
// it is not a name path.
func (j *jsonFlow) path(e, typ, desc string) (string, bool) {
	m := namePathRe().FindStringSubmatch(e)
	if m == nil {
		return "", false
	}
	root, rest := m[1], m[2]
	name, ok := j.renames[root]
	if !ok {
		name = varName(root)
		t := typ
		if rest != "" {
			t = "map"
		} else if t == "string" && looksPassword(root) {
			t = "secret"
		}
		j.use(name, t, desc)
	}
	return name + rest, true
}

// tmpl turns a value with {{ name }} templates into a string literal that
// interpolates them (a value that is exactly one template is the name
// itself). A template that is not a name path stays text, with a warning.
func (j *jsonFlow) tmpl(st *jnode, n string, v string, typ string) ast.Expr {
	locs := tmplRe().FindAllStringSubmatchIndex(v, -1)
	part := func(e string) *ast.ExprSrc {
		p, ok := j.path(e, typ, "")
		if !ok {
			j.warn(st, "step %s: template {{%s}} is not a variable name; kept as text", n, e)
			return nil
		}
		return src(p)
	}
	if len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(v) {
		if e := part(v[locs[0][2]:locs[0][3]]); e != nil {
			return e
		}
		return lit(v)
	}
	out := &ast.StringLit{}
	last := 0
	for _, l := range locs {
		e := part(v[l[2]:l[3]])
		if e == nil {
			continue
		}
		if l[0] > last {
			out.Parts = append(out.Parts, ast.StringPart{Text: v[last:l[0]]})
		}
		out.Parts = append(out.Parts, ast.StringPart{Expr: e})
		last = l[1]
	}
	if last < len(v) || len(out.Parts) == 0 {
		out.Parts = append(out.Parts, ast.StringPart{Text: v[last:]})
	}
	return out
}

// storeName maps a `store` target to a name; a path (o.status) cannot be
// assigned, so its dots become underscores, with a warning.
func (j *jsonFlow) storeName(st *jnode, n, store string) string {
	if name, ok := j.renames[store]; ok {
		j.bind(name)
		return name
	}
	name := varName(store)
	if name != store {
		why := "is not a plain name"
		if identRe().MatchString(store) {
			why = "is a reserved word"
		}
		j.warn(st, "step %s: store %q %s; bound to %q instead", n, store, why, name)
	}
	if j.byParam[name] != nil || j.refIdx[name] != nil && !j.isBound(name) {
		// a param already has that name: keep the stored value apart
		name = j.uniq(name)
	}
	j.renames[store] = name
	j.bind(name)
	return name
}

func (j *jsonFlow) step(n string, st *jnode) {
	typ := st.getStr("type")
	attrs := st.get("attrs")
	if attrs == nil {
		attrs = &jnode{kind: jObject, off: st.off, end: st.end}
	}
	if attrs.kind != jObject {
		j.errorf(attrs, "step %s (%s): attrs must be an object", n, typ)
		return
	}
	get := func(k string) string { return attrs.getStr(k) }
	if d := get("description"); d != "" {
		j.comment(d)
	}
	known := map[string]bool{"description": true}
	need := func(keys ...string) bool {
		ok := true
		for _, k := range keys {
			known[k] = true
			if get(k) == "" {
				j.errorf(st, "step %s (%s): attrs.%s is required", n, typ, k)
				ok = false
			}
		}
		return ok
	}
	accept := func(keys ...string) {
		for _, k := range keys {
			known[k] = true
		}
	}
	switch typ {
	case "navigate":
		if need("url") {
			u := j.tmpl(st, n, get("url"), "string")
			if why := badURL(u); why != "" {
				j.errorf(st, "step %s (navigate): %s", n, why)
				return
			}
			j.emit(act("open", u))
		}
	case "input":
		if !need("selector") {
			return
		}
		accept("value")
		sel := get("selector")
		var value ast.Expr
		v := get("value")
		if looksPassword(sel) && !strings.Contains(v, "{{") {
			value = src(j.secretParam(st, fieldName([]string{sel}), v, fmt.Sprintf("step %s (input)", n)))
		} else {
			typ := "string"
			if looksPassword(sel) {
				typ = "secret"
			}
			value = j.tmpl(st, n, v, typ)
		}
		j.emit(act("fill", j.tmpl(st, n, sel, "string"), value))
	case "click":
		if !need("selector") {
			return
		}
		if get("value") != "" {
			known["value"] = true
			j.warn(st, "step %s (click): value %q has no meaning for a click; ignored", n, get("value"))
		}
		j.emit(act("click", j.tmpl(st, n, get("selector"), "string")))
	case "extract":
		if !need("selector") {
			return
		}
		accept("store")
		a := act("text", j.tmpl(st, n, get("selector"), "string"))
		if s := get("store"); s != "" {
			a.Target = j.storeName(st, n, s)
		} else {
			j.warn(st, "step %s (extract): no store; the text read is not kept", n)
		}
		j.emit(a)
	case "llm":
		if !need("prompt") {
			return
		}
		accept("store")
		a := act("llm", j.tmpl(st, n, get("prompt"), "string"))
		if s := get("store"); s != "" {
			a.Target = j.storeName(st, n, s)
		}
		j.emit(a)
	case "loop":
		if !need("items", "var") {
			return
		}
		items := strings.TrimSpace(get("items"))
		if m := tmplRe().FindStringSubmatch(items); m != nil && m[0] == items {
			items = strings.TrimSpace(m[1])
		}
		iter, ok := j.path(items, "list", "Items the loop of step "+n+" goes through")
		if !ok {
			j.errorf(st, "step %s (loop): items %q is not a variable name", n, items)
			return
		}
		raw := get("var")
		v := varName(raw)
		if j.used[v] {
			v = j.uniq(v)
		}
		j.loopVars[v] = true
		j.used[v] = true
		prev, had := j.renames[raw]
		j.renames[raw] = v
		defer func() {
			if had {
				j.renames[raw] = prev
			} else {
				delete(j.renames, raw)
			}
		}()
		f := &ast.ForStmt{Var: v, Iter: src(iter)}
		j.emit(f)
		j.push(&f.Body)
		if body := st.get("body"); body != nil && body.kind == jArray {
			j.steps(body.elems, n+".")
		} else {
			j.warn(st, "step %s (loop): no body", n)
		}
		j.pop()
	case "select", "hover", "scroll":
		if !need("selector") {
			return
		}
		a := act(typ, j.tmpl(st, n, get("selector"), "string"))
		if typ == "select" {
			known["value"] = true
			a.Args = append(a.Args, j.tmpl(st, n, get("value"), "string"))
		}
		j.emit(a)
	case "press":
		if need("key") {
			j.emit(act("press", lit(get("key"))))
		}
	case "wait":
		accept("selector", "seconds", "ms")
		switch {
		case get("selector") != "":
			j.emit(act("wait", j.tmpl(st, n, get("selector"), "string")))
		case attrs.has("seconds") || attrs.has("ms"):
			ms, ok := attrs.getNum("ms")
			if sec, ok2 := attrs.getNum("seconds"); ok2 {
				ms, ok = sec*1000, true
			}
			if !ok || ms <= 0 {
				j.errorf(st, "step %s (wait): seconds/ms must be a positive number", n)
				return
			}
			j.emit(act("sleep", dur(ms)))
		default:
			j.errorf(st, "step %s (wait): needs attrs.selector, attrs.seconds or attrs.ms", n)
			return
		}
	case "screenshot":
		accept("path", "selector")
		a := act("screenshot")
		if sel := get("selector"); sel != "" {
			a.Args = append(a.Args, j.tmpl(st, n, sel, "string"))
		}
		if p := get("path"); p != "" {
			opt(a, "path", j.tmpl(st, n, p, "string"))
		}
		j.emit(a)
	case "":
		j.errorf(st, "step %s: no type", n)
		return
	default:
		j.comment("not imported: " + typ)
		j.warn(st, "step %s: step type %q has no equivalent; not imported", n, typ)
		return
	}
	for _, m := range attrs.mems {
		if !known[m.key] {
			j.warn(m.val, "step %s (%s): attribute %q has no equivalent; ignored", n, typ, m.key)
		}
	}
	if typ != "loop" && st.has("body") {
		j.warn(st.get("body"), "step %s (%s): only loop steps have a body; ignored", n, typ)
	}
}
