package importer

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/format"
)

// importSide imports a Selenium IDE project: one flow per test. A `run`
// command becomes `call` of the other test's flow, passing the names it
// needs.
func importSide(s *source, root *jnode, opts Options, diags *diag.Diagnostics) []*Flow {
	check := newBuilder(s, diags, opts.Strict) // reports the kinds of members
	if !check.wellTyped("project", root, sideProjectKinds) {
		return nil
	}
	tests := root.get("tests")
	if tests == nil {
		diags.Errorf(s.rng(root), `Selenium IDE project has no "tests" list`)
		return nil
	}
	ok := true
	for i, t := range tests.elems {
		if t.kind != jObject {
			check.errorf(t, "test %d: expected an object, found %s", i+1, t.describe())
			ok = false
			continue
		}
		ok = check.wellTyped(fmt.Sprintf("test %d", i+1), t, sideTestKinds) && ok
	}
	if !ok {
		return nil
	}
	p := &sideProject{src: s, opts: opts, diags: diags, base: strings.TrimRight(root.getStr("url"), "/"),
		byName: map[string]int{}, built: map[int]*Flow{}, building: map[int]bool{}}
	taken := map[string]bool{}
	for i, t := range tests.elems {
		name := flowName(t.getStr("name"))
		if name == "" {
			name = fmt.Sprintf("test_%d", i+1)
		}
		n := name
		for k := 2; taken[n]; k++ {
			n = fmt.Sprintf("%s_%d", name, k)
		}
		taken[n] = true
		p.names = append(p.names, n)
		p.tests = append(p.tests, t)
		p.byName[t.getStr("name")] = i
	}
	var out []*Flow
	for i := range p.tests {
		out = append(out, p.build(i))
	}
	return out
}

// The kinds of the members of a Selenium IDE project, of its tests and
// of their commands that the importer reads. A member of another kind is
// an error naming it and where it is ("target": 123 is not a URL "").
var (
	sideProjectKinds = map[string]jkind{"url": jString, "name": jString, "tests": jArray}
	sideTestKinds    = map[string]jkind{"name": jString, "commands": jArray}
	sideCommandKinds = map[string]jkind{
		"command": jString, "target": jString, "value": jString, "comment": jString,
		"targets": jArray, "fallbackTargets": jArray,
		"opensWindow": jBool, "windowHandleName": jString, "windowTimeout": jNumber,
	}
)

// commandTyped checks the kinds of command n's members (and of its
// recorded alternative locators: [locator, kind] pairs of strings), as
// errors naming the test, the command and the member.
func (sd *side) commandTyped(n int, c *jnode) bool {
	what := fmt.Sprintf("test %q, command %d", sd.test, n)
	if cmd := c.get("command"); cmd != nil && cmd.kind == jString && cmd.str != "" {
		what += " (" + cmd.str + ")"
	}
	ok := sd.wellTyped(what, c, sideCommandKinds)
	for _, key := range []string{"targets", "fallbackTargets"} {
		alts := c.get(key)
		if alts == nil || alts.kind != jArray {
			continue
		}
		for i, a := range alts.elems {
			good := a.kind == jArray
			for _, e := range a.elems {
				good = good && e.kind == jString
			}
			if !good {
				sd.errorf(a, "%s: %s[%d] must be a [locator, kind] list of strings, found %s", what, key, i, a.describe())
				ok = false
			}
		}
	}
	return ok
}

type sideProject struct {
	src      *source
	opts     Options
	diags    *diag.Diagnostics
	base     string
	tests    []*jnode
	names    []string
	byName   map[string]int
	built    map[int]*Flow
	building map[int]bool
}

// build imports test i (once; the tests it runs first).
func (p *sideProject) build(i int) *Flow {
	if f := p.built[i]; f != nil {
		return f
	}
	p.building[i] = true
	t := p.tests[i]
	b := newBuilder(p.src, p.diags, p.opts.Strict)
	sd := &side{builder: b, proj: p, newWindows: map[string]bool{}, test: t.getStr("name")}
	cmds := t.get("commands")
	if cmds == nil || cmds.kind != jArray {
		b.errorf(t, "test %q has no commands list", t.getStr("name"))
	} else {
		sd.run(cmds.elems)
	}
	f := &Flow{Name: p.names[i], Source: t.getStr("name"), File: b.finish(p.names[i], "Selenium IDE test "+strconv.Quote(t.getStr("name")))}
	p.built[i] = f
	delete(p.building, i)
	return f
}

// sblock is an open Selenium control-flow block.
type sblock struct {
	kind   string // if, while, times, do, forEach
	at     *jnode
	ifs    *ast.IfStmt
	frames int // frame blocks open when the block started
}

type side struct {
	*builder
	proj   *sideProject
	test   string // the test's name
	blocks []*sblock
	frames int // frame blocks open (innermost blocks)
	// newWindows are window handle names of clicks that open a window,
	// not switched to yet.
	newWindows map[string]bool
	baseOK     bool
	actual     string
	n          int // command number (1-based)
	cmd        *jnode
	// prompt is the answer of an answerOnNextPrompt (or answerPrompt)
	// no prompt has been seen to take yet (no assertPrompt since): the
	// runtime has one dialog policy for every dialog type, so a later
	// accept policy carries it in text: or the prompt gets its default.
	prompt ast.Expr
	// dialogChecks counts the dialog checks of each condition met in
	// straight-line code so far.
	dialogChecks map[string]int
}

var varRefRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]+)\}`) })

// name maps a Selenium variable to a flow name.
func (sd *side) name(raw string) string { return varName(strings.TrimSpace(raw)) }

// tmpl turns a Selenium value with ${var} references into a string literal
// interpolating them.
func (sd *side) tmpl(s string) ast.Expr {
	locs := varRefRe().FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 1 && locs[0][0] == 0 && locs[0][1] == len(s) {
		n := sd.name(s[locs[0][2]:locs[0][3]])
		sd.use(n, "string", "")
		return src(n)
	}
	out := &ast.StringLit{}
	last := 0
	for _, l := range locs {
		if l[0] > last {
			out.Parts = append(out.Parts, ast.StringPart{Text: s[last:l[0]]})
		}
		n := sd.name(s[l[2]:l[3]])
		sd.use(n, "string", "")
		out.Parts = append(out.Parts, ast.StringPart{Expr: src(n)})
		last = l[1]
	}
	if last < len(s) || len(out.Parts) == 0 {
		out.Parts = append(out.Parts, ast.StringPart{Text: s[last:]})
	}
	return out
}

// jsExpr translates a JavaScript expression of a Selenium command (if,
// while, repeatIf, executeScript's `return E`) to expr-lang: ${x} → x,
// === → ==, !== → !=. ok=false when it uses anything expr has not got
// (the DOM, functions, methods, .length).
var jsBad = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(document|window|function|new|var|let|const|this|typeof|undefined|null)\b|=>|\.\s*[A-Za-z_]\w*\s*\(|\.length\b|[^=!<>]=[^=]|\+\+|--|;.`)
})

// isBoolExpr reports whether expression source e can be a condition
// (its names, Selenium variables, may hold anything).
func isBoolExpr(e string) bool {
	_, err := expr.Compile(e, expr.AllowUndefinedVariables(), expr.AsBool())
	return err == nil
}

// reRender writes expression source e again token by token, each string
// literal through quote (so "{{" in it stays text) and nothing of the
// input's own layout (line breaks, comments) kept; false when e holds
// anything but names, numbers, strings, operators and brackets.
func reRender(e string) (string, bool) {
	toks, err := lexer.Lex(file.NewSource(e))
	if err != nil {
		return "", false
	}
	var b strings.Builder
	prev := lexer.Token{Kind: lexer.Bracket, Value: "("} // as at the start: no space
	prevUnary := false
	for _, t := range toks {
		var text string
		switch t.Kind {
		case lexer.EOF:
			continue
		case lexer.String:
			text = quote(t.Value)
		case lexer.Identifier, lexer.Operator, lexer.Bracket, lexer.Number:
			text = t.Value
		default:
			return "", false
		}
		if spaceBetween(prev, prevUnary, t) {
			b.WriteByte(' ')
		}
		b.WriteString(text)
		// a sign or ! after an operator, an opening bracket or the start
		unary := t.Is(lexer.Operator, "!", "-", "+") && (prev.Kind == lexer.Operator || prev.Is(lexer.Bracket, "(", "[", "{"))
		prev, prevUnary = t, unary
	}
	return b.String(), b.Len() > 0
}

// spaceBetween says whether reRender writes a space between two tokens:
// none inside brackets' edges, before , : . or a call's (, nor after a
// member dot or a unary operator.
func spaceBetween(prev lexer.Token, prevUnary bool, t lexer.Token) bool {
	switch {
	case prev.Is(lexer.Bracket, "(", "[", "{"), prev.Is(lexer.Operator, ".", "?."), prevUnary:
		return false
	case t.Is(lexer.Bracket, ")", "]", "}"), t.Is(lexer.Operator, ",", ":", ".", "?."):
		return false
	case t.Is(lexer.Bracket, "(", "[") && (prev.Kind == lexer.Identifier || prev.Is(lexer.Bracket, ")", "]")):
		return false
	}
	return true
}

// jsExpr translates a JavaScript condition (cond: it must give a bool) or
// value of a Selenium command into expression source, when it is one:
// names, numbers, strings and operators only (no call of a method, no
// JavaScript global), Selenium ${var} references as the flow's names.
func (sd *side) jsExpr(js string, cond bool) (string, bool) {
	js = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(js), ";"))
	if js == "" {
		return "", false
	}
	var names []string
	out := varRefRe().ReplaceAllStringFunc(js, func(m string) string {
		n := sd.name(m[2 : len(m)-1])
		names = append(names, n)
		return n
	})
	if jsBad().MatchString(" " + out + " ") {
		return "", false
	}
	out = strings.ReplaceAll(out, "===", "==")
	out = strings.ReplaceAll(out, "!==", "!=")
	out, ok := reRender(out)
	if !ok || check.NestingError(out) != nil {
		return "", false
	}
	free, err := exprNames(out)
	if err != nil {
		return "", false
	}
	for _, f := range free {
		if !slices.Contains(names, f) {
			return "", false // a JavaScript global
		}
	}
	if cond && !isBoolExpr(out) {
		return "", false
	}
	for _, n := range names {
		sd.use(n, "string", "")
	}
	return out, true
}

// locator maps the command's target (with its recorded alternatives) to
// a selector list; nil with a diagnostic when nothing maps.
func (sd *side) locator(target string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(loc string) bool {
		sels, ok := seleniumLocator(loc)
		for _, s := range sels {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
		return ok
	}
	if !add(target) {
		sd.warn(sd.cmd, "command %d (%s): locator %q has no equivalent", sd.n, sd.cmd.getStr("command"), target)
	}
	// recorded alternatives, when they are about the same element
	for _, key := range []string{"targets", "fallbackTargets"} {
		alts := sd.cmd.get(key)
		if alts == nil || alts.kind != jArray {
			continue
		}
		var locs []string
		mine := false
		for _, a := range alts.elems {
			if a.kind == jArray && len(a.elems) > 0 && a.elems[0].kind == jString {
				locs = append(locs, a.elems[0].str)
				if a.elems[0].str == target {
					mine = true
				}
			}
		}
		if !mine {
			continue
		}
		for _, l := range locs {
			if len(out) >= 4 {
				break
			}
			if strings.Contains(l, "${") {
				continue
			}
			add(l)
		}
		break
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// url is an `open` target: relative ones (and absolute ones under the
// project URL) become "{{ base_url }}/path".
func (sd *side) url(u string) ast.Expr {
	base := sd.proj.base
	rel := ""
	switch {
	case base != "" && strings.HasPrefix(u, "/"):
		rel = u
	case base != "" && strings.HasPrefix(u, base) && (len(u) == len(base) || strings.ContainsAny(u[len(base):len(base)+1], "/?#")):
		rel = u[len(base):]
	default:
		if base == "" && strings.HasPrefix(u, "/") {
			sd.warn(sd.cmd, "command %d (open): relative URL %q and the project has no url; the flow opens it as written", sd.n, u)
		}
		return sd.tmpl(u)
	}
	sd.ensureBase()
	out := &ast.StringLit{Parts: []ast.StringPart{{Expr: src("base_url")}}}
	if rel != "" {
		if t, ok := sd.tmpl(rel).(*ast.StringLit); ok {
			out.Parts = append(out.Parts, t.Parts...)
		} else {
			out.Parts = append(out.Parts, ast.StringPart{Expr: sd.tmpl(rel).(*ast.ExprSrc)})
		}
	}
	return out
}

// ensureBase declares the base_url param (the project's URL) once.
func (sd *side) ensureBase() {
	if !sd.baseOK {
		sd.baseOK = true
		sd.param("base_url", "string", lit(sd.proj.base), "Address of the site (the Selenium IDE project's URL)")
	}
}

func (sd *side) run(cmds []*jnode) {
	for i, c := range cmds {
		sd.n, sd.cmd = i+1, c
		if c.kind != jObject {
			sd.errorf(c, "test %q, command %d: expected an object, found %s", sd.test, i+1, c.describe())
			continue
		}
		if !sd.commandTyped(i+1, c) {
			continue
		}
		if cm := strings.TrimSpace(c.getStr("comment")); cm != "" {
			sd.comment(cm)
		}
		sd.command(c.getStr("command"), c.getStr("target"), c.getStr("value"))
	}
	for len(sd.blocks) > 0 {
		b := sd.blocks[len(sd.blocks)-1]
		sd.errorf(b.at, "command %q has no matching end", b.kind)
		sd.endBlock()
	}
	sd.closeFrames(0)
}

// closeFrames leaves frame blocks until keep remain.
func (sd *side) closeFrames(keep int) {
	for sd.frames > keep {
		sd.pop()
		sd.frames--
	}
}

func (sd *side) frameFloor() int {
	if len(sd.blocks) == 0 {
		return 0
	}
	return sd.blocks[len(sd.blocks)-1].frames
}

func (sd *side) openBlock(kind string, body *[]ast.Stmt, ifs *ast.IfStmt) {
	sd.blocks = append(sd.blocks, &sblock{kind: kind, at: sd.cmd, ifs: ifs, frames: sd.frames})
	sd.push(body)
}

func (sd *side) endBlock() *sblock {
	b := sd.blocks[len(sd.blocks)-1]
	sd.closeFrames(b.frames)
	sd.pop()
	sd.blocks = sd.blocks[:len(sd.blocks)-1]
	return b
}

func (sd *side) top(kind string) *sblock {
	if len(sd.blocks) == 0 || (kind != "" && sd.blocks[len(sd.blocks)-1].kind != kind) {
		return nil
	}
	return sd.blocks[len(sd.blocks)-1]
}

// cond translates a condition; an untranslatable one becomes false with a
// comment and a warning.
func (sd *side) cond(cmd, js string) ast.Expr {
	if e, ok := sd.jsExpr(js, true); ok {
		return src(e)
	}
	sd.comment(fmt.Sprintf("not imported: JavaScript condition of %s: %s", cmd, js))
	sd.warn(sd.cmd, "command %d (%s): JavaScript condition %q cannot be expressed; the flow uses false", sd.n, cmd, js)
	return &ast.BoolLit{Value: false}
}

// assertion emits `assert COND, MSG` (assert*) or a logged check
// (verify*: the test goes on).
func (sd *side) assertion(cmd, cond, msg string) {
	if strings.HasPrefix(cmd, "verify") {
		ifs := &ast.IfStmt{Cond: src("!(" + cond + ")")}
		sd.emit(ifs)
		sd.push(&ifs.Then)
		sd.emit(&ast.LogStmt{Value: lit("verify failed: " + msg)})
		sd.pop()
		return
	}
	sd.emit(&ast.AssertStmt{Cond: src(cond), Message: lit(msg)})
}

// read binds `actual = ACTION ...` for an assertion and returns the name.
func (sd *side) read(a *ast.ActionStmt) string {
	if sd.actual == "" {
		sd.actual = sd.uniq("actual")
	}
	a.Target = sd.actual
	sd.bind(sd.actual)
	sd.emit(a)
	return sd.actual
}

// strCmp compares a value with a Selenium value (a string; ${x} allowed).
func (sd *side) strCmp(lhs, op, want string) string {
	if strings.Contains(want, "${") {
		e := sd.tmpl(want)
		if x, ok := e.(*ast.ExprSrc); ok {
			return fmt.Sprintf("string(%s) %s string(%s)", lhs, op, x.Source)
		}
		// an interpolating string literal inside the expression: the
		// ${x} references interpolate, the rest stays text (format.Literal
		// quotes it as Quote does)
		return fmt.Sprintf("string(%s) %s %s", lhs, op, format.Literal(e))
	}
	return fmt.Sprintf("%s %s %s", lhs, op, quote(want))
}

var keyNames = map[string]string{
	"ENTER": "Enter", "RETURN": "Enter", "TAB": "Tab", "ESC": "Escape", "ESCAPE": "Escape",
	"BACKSPACE": "Backspace", "BKSP": "Backspace", "DELETE": "Delete", "DEL": "Delete",
	"UP": "ArrowUp", "DOWN": "ArrowDown", "LEFT": "ArrowLeft", "RIGHT": "ArrowRight",
	"HOME": "Home", "END": "End", "PAGE_UP": "PageUp", "PGUP": "PageUp", "PAGE_DOWN": "PageDown",
	"PGDN": "PageDown", "SPACE": "Space", "INSERT": "Insert", "INS": "Insert",
	"F1": "F1", "F2": "F2", "F3": "F3", "F4": "F4", "F5": "F5", "F6": "F6", "F7": "F7", "F8": "F8",
	"F9": "F9", "F10": "F10", "F11": "F11", "F12": "F12",
}

var keyRefRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{KEY_([A-Z0-9_]+)\}`) })

// fieldValue is the value typed into a field: a secret param when the field
// or the value's variable says password.
func (sd *side) fieldValue(cmd string, sels []string, target, value string) ast.Expr {
	if selectorsSayPassword(append([]string{target}, sels...)) {
		if m := varRefRe().FindStringSubmatch(value); m != nil && m[0] == value {
			n := sd.name(m[1])
			sd.use(n, "secret", "Password for "+target)
			return src(n)
		}
		field := fieldName(sels)
		if _, v, ok := strings.Cut(target, "="); ok && (strings.HasPrefix(target, "id=") || strings.HasPrefix(target, "name=")) {
			field = v
		}
		return src(sd.secretParam(sd.cmd, field, value, fmt.Sprintf("command %d (%s)", sd.n, cmd)))
	}
	return sd.tmpl(value)
}

func (sd *side) unsupported(cmd, why string) {
	sd.comment(fmt.Sprintf("not imported: %s %s %s", cmd, sd.cmd.getStr("target"), sd.cmd.getStr("value")))
	sd.warn(sd.cmd, "command %d (%s): %s; not imported", sd.n, cmd, why)
}

func (sd *side) timeoutOpt(a *ast.ActionStmt, ms string) {
	if v, err := strconv.ParseFloat(strings.TrimSpace(ms), 64); err == nil && v > 0 {
		opt(a, "timeout", dur(v))
	}
}

func (sd *side) command(cmd, target, value string) {
	if strings.HasPrefix(cmd, "//") {
		sd.comment(strings.TrimSpace(fmt.Sprintf("%s %s %s", cmd, target, value)))
		return
	}
	withSel := func(f func(sels []string)) {
		sels := sd.locator(target)
		if sels != nil {
			f(sels)
		}
	}
	base := strings.TrimPrefix(strings.TrimPrefix(cmd, "assert"), "verify")
	isCheck := base != cmd
	switch {
	case cmd == "":
		return
	case cmd == "open":
		sd.closeFrames(sd.frameFloor())
		u := sd.url(target)
		if why := badURL(u); why != "" {
			sd.errorf(sd.cmd, "command %d (open): %s", sd.n, why)
			return
		}
		sd.emit(act("open", u))
	case cmd == "click" || cmd == "clickAt" || cmd == "doubleClick" || cmd == "doubleClickAt":
		withSel(func(sels []string) {
			a := act("click", selExpr(sels))
			if strings.HasPrefix(cmd, "double") {
				opt(a, "count", num(2))
			}
			if strings.HasSuffix(cmd, "At") && value != "" {
				sd.warn(sd.cmd, "command %d (%s): click offset %q dropped; rpa clicks the element's centre", sd.n, cmd, value)
			}
			sd.emit(a)
			if sd.cmd.getBool("opensWindow", false) {
				if h := sd.cmd.getStr("windowHandleName"); h != "" {
					sd.newWindows[sd.name(h)] = true
				}
			}
		})
	case cmd == "check" || cmd == "uncheck":
		withSel(func(sels []string) { sd.emit(act(cmd, selExpr(sels))) })
	case cmd == "mouseOver":
		withSel(func(sels []string) { sd.emit(act("hover", selExpr(sels))) })
	case cmd == "editContent":
		withSel(func(sels []string) { sd.emit(act("fill", selExpr(sels), sd.tmpl(value))) })
	case cmd == "setSpeed" || cmd == "debugger":
		sd.comment(fmt.Sprintf("%s %s: replay pacing, not part of the flow", cmd, target))
	case cmd == "type":
		withSel(func(sels []string) {
			if loc := keyRefRe().FindStringIndex(value); loc != nil {
				// keys inside a typed value: fill the text, then send the rest
				sd.emit(act("fill", selExpr(sels), sd.fieldValue(cmd, sels, target, value[:loc[0]])))
				sd.sendKeys(sels, target, value[loc[0]:])
				return
			}
			sd.emit(act("fill", selExpr(sels), sd.fieldValue(cmd, sels, target, value)))
		})
	case cmd == "sendKeys":
		withSel(func(sels []string) { sd.sendKeys(sels, target, value) })
	case cmd == "select":
		withSel(func(sels []string) {
			by, v, _ := strings.Cut(value, "=")
			switch by {
			case "label", "value", "index":
			default:
				by, v = "label", value
				if strings.Contains(value, "=") && strings.HasPrefix(value, "id=") {
					sd.warn(sd.cmd, "command %d (select): option locator %q has no equivalent; matched as a label", sd.n, value)
				}
			}
			a := act("select", selExpr(sels), sd.tmpl(v))
			opt(a, "by", lit(by))
			sd.emit(a)
		})
	case cmd == "pause":
		if v, err := strconv.ParseFloat(target, 64); err == nil {
			sd.emit(act("sleep", dur(v)))
		} else if v, err := strconv.ParseFloat(value, 64); err == nil {
			sd.emit(act("sleep", dur(v)))
		} else {
			sd.unsupported(cmd, "no duration")
		}
	case strings.HasPrefix(cmd, "waitForElement"):
		state := map[string]string{"Present": "attached", "NotPresent": "detached", "Visible": "visible", "NotVisible": "hidden"}[strings.TrimPrefix(cmd, "waitForElement")]
		switch strings.TrimPrefix(cmd, "waitForElement") {
		case "Editable", "NotEditable":
			css, ok := sd.cssOnly(target)
			if !ok {
				return
			}
			c := fmt.Sprintf("page.exists(%s)", quote(css+":not([disabled]):not([readonly])"))
			if cmd == "waitForElementNotEditable" {
				c = "!" + c
			}
			a := act("wait")
			opt(a, "until", src(c))
			sd.timeoutOpt(a, value)
			sd.emit(a)
			return
		}
		if state == "" {
			sd.unsupported(cmd, "unknown wait")
			return
		}
		withSel(func(sels []string) {
			a := act("wait", selExpr(sels))
			opt(a, "state", lit(state))
			sd.timeoutOpt(a, value)
			sd.emit(a)
		})
	case cmd == "waitForText":
		withSel(func(sels []string) {
			a := act("wait", selExpr(sels))
			opt(a, "text", sd.tmpl(value))
			sd.emit(a)
		})
	case cmd == "store":
		n := sd.name(value)
		if looksPassword(n) && !strings.Contains(target, "${") {
			sd.secretParamNamed(n)
			return
		}
		// Selenium pastes ${n} into scripts as text, so a stored number
		// acts as a number (`${n} < 2`, `return ${n} + 1`).
		if v, err := strconv.ParseInt(target, 10, 64); err == nil {
			sd.assign(n, num(v))
		} else if _, err := strconv.ParseFloat(target, 64); err == nil && !strings.ContainsAny(target, "xXnN") {
			f := mustFloat(target)
			sd.assign(n, &ast.NumberLit{Raw: strconv.FormatFloat(f, 'g', -1, 64), Value: f})
		} else {
			sd.assign(n, sd.tmpl(target))
		}
	case cmd == "storeText" || cmd == "storeValue" || cmd == "storeTitle" || cmd == "storeAttribute" || cmd == "storeXpathCount" || cmd == "storeJson" || cmd == "storeElementCount":
		sd.store(cmd, target, value)
	case cmd == "storeWindowHandle":
		// a window is found again by its URL
		n := sd.name(target)
		sd.bind(n)
		a := act("url")
		a.Target = n
		sd.emit(a)
	case cmd == "selectWindow":
		sd.selectWindow(target)
	case cmd == "close":
		sd.closeFrames(sd.frameFloor())
		sd.emit(act("close"))
	case cmd == "selectFrame":
		sd.selectFrame(target)
	case cmd == "echo":
		sd.emit(&ast.LogStmt{Value: sd.tmpl(target)})
	case cmd == "run":
		sd.call(target)
	case cmd == "executeScript" || cmd == "runScript" || cmd == "executeAsyncScript":
		sd.script(cmd, target, value)
	case cmd == "if":
		ifs := &ast.IfStmt{Cond: sd.cond(cmd, target)}
		sd.emit(ifs)
		sd.openBlock("if", &ifs.Then, ifs)
	case cmd == "elseIf" || cmd == "else":
		b := sd.top("if")
		if b == nil {
			sd.errorf(sd.cmd, "command %d (%s): no matching if", sd.n, cmd)
			return
		}
		sd.closeFrames(b.frames)
		sd.pop()
		if cmd == "else" {
			sd.push(&b.ifs.Else)
			b.kind = "else"
			return
		}
		ei := &ast.IfStmt{Cond: sd.cond(cmd, target)}
		b.ifs.Else = []ast.Stmt{ei}
		b.ifs = ei
		sd.push(&ei.Then)
	case cmd == "while":
		w := &ast.WhileStmt{Cond: sd.cond(cmd, target)}
		sd.emit(w)
		sd.openBlock("while", &w.Body, nil)
	case cmd == "times":
		var it ast.Expr
		if n, err := strconv.ParseInt(strings.TrimSpace(target), 10, 64); err == nil {
			it = num(n)
		} else if e, ok := sd.tmpl(target).(*ast.ExprSrc); ok {
			sd.use(e.Source, "int", "")
			it = e
		} else {
			sd.errorf(sd.cmd, "command %d (times): %q is not a number", sd.n, target)
			it = num(0)
		}
		v := sd.uniq("i")
		sd.loopVars[v] = true
		f := &ast.ForStmt{Var: v, Iter: it}
		sd.emit(f)
		sd.openBlock("times", &f.Body, nil)
	case cmd == "do":
		w := &ast.WhileStmt{Cond: &ast.BoolLit{Value: true}}
		sd.comment("do ... repeatIf")
		sd.emit(w)
		sd.openBlock("do", &w.Body, nil)
	case cmd == "repeatIf":
		if sd.top("do") == nil {
			sd.errorf(sd.cmd, "command %d (repeatIf): no matching do", sd.n)
			return
		}
		c := sd.cond(cmd, target)
		var neg ast.Expr = &ast.BoolLit{Value: true}
		if e, ok := c.(*ast.ExprSrc); ok {
			neg = src("!(" + e.Source + ")")
		}
		ifs := &ast.IfStmt{Cond: neg}
		ifs.Then = []ast.Stmt{&ast.BreakStmt{}}
		sd.closeFrames(sd.frameFloor())
		sd.emit(ifs)
		sd.endBlock()
	case cmd == "forEach":
		arr := sd.name(target)
		sd.use(arr, "list", "")
		v := sd.name(value)
		sd.loopVars[v] = true
		sd.used[v] = true
		f := &ast.ForStmt{Var: v, Iter: src(arr)}
		sd.emit(f)
		sd.openBlock("forEach", &f.Body, nil)
	case cmd == "end":
		if len(sd.blocks) == 0 || sd.top("do") != nil {
			sd.errorf(sd.cmd, "command %d (end): no open if, while, times or forEach", sd.n)
			return
		}
		sd.endBlock()
	case cmd == "chooseOkOnNextConfirmation" || cmd == "webdriverChooseOkOnVisibleConfirmation":
		sd.emit(sd.accept())
	case cmd == "chooseCancelOnNextPrompt" || cmd == "webdriverChooseCancelOnVisiblePrompt":
		sd.prompt = nil
		sd.emit(act("dialog", lit("dismiss")))
	case cmd == "chooseCancelOnNextConfirmation" || cmd == "webdriverChooseCancelOnVisibleConfirmation":
		sd.dismissWarn(cmd)
		sd.emit(act("dialog", lit("dismiss")))
	case cmd == "answerOnNextPrompt" || cmd == "webdriverAnswerOnVisiblePrompt":
		sd.prompt = sd.tmpl(target)
		sd.emit(sd.accept())
	case cmd == "acceptAlert" || cmd == "acceptConfirmation" || cmd == "dismissConfirmation" || cmd == "dismissPrompt" || cmd == "answerPrompt":
		sd.lateDialog(cmd, target)
	case isCheck:
		sd.check(cmd, base, target, value)
	case cmd == "setWindowSize":
		sd.unsupported(cmd, "window sizes have no equivalent (the flow runs in the browser's own window)")
	case cmd == "submit":
		sd.unsupported(cmd, "submitting a form without a click has no equivalent (click its submit button instead)")
	default:
		sd.unsupported(cmd, "this Selenium IDE command has no equivalent")
	}
}

// secretParamNamed turns `store | VALUE | password` into a secret param.
func (sd *side) secretParamNamed(n string) {
	name := secretName(n)
	sd.secrets = append(sd.secrets, secretValue{value: sd.cmd.getStr("target"), param: name})
	sd.src.dropped = append(sd.src.dropped, sd.cmd.getStr("target"))
	if sd.byParam[name] == nil {
		name = sd.uniq(name)
		sd.param(name, "secret", nil, "Password (a recorded value was dropped)")
	}
	sd.note(sd.cmd, "command %d (store): recorded password value dropped; the flow takes the secret param %q", sd.n, name)
	if name != n {
		sd.bind(n)
		sd.emit(&ast.AssignStmt{Name: n, Value: src(name)})
	}
}

func (sd *side) assign(n string, v ast.Expr) {
	sd.bind(n)
	sd.emit(&ast.AssignStmt{Name: n, Value: v})
}

// cssOnly returns the CSS of a locator when it has one (id=, name=, css=).
func (sd *side) cssOnly(target string) (string, bool) {
	sels, ok := seleniumLocator(target)
	if ok && len(sels) >= 1 && isCSS(sels[0]) && !strings.HasPrefix(sels[0], "xpath=") && !strings.HasPrefix(sels[0], "text=") {
		return sels[0], true
	}
	sd.unsupported(sd.cmd.getStr("command"), fmt.Sprintf("needs a CSS locator (id=, name= or css=), not %q", target))
	return "", false
}

func (sd *side) sendKeys(sels []string, target, value string) {
	locs := keyRefRe().FindAllStringSubmatchIndex(value, -1)
	if len(locs) == 0 {
		sd.emit(act("type", selExpr(sels), sd.fieldValue("sendKeys", sels, target, value)))
		return
	}
	last := 0
	for _, l := range locs {
		if l[0] > last {
			sd.emit(act("type", selExpr(sels), sd.fieldValue("sendKeys", sels, target, value[last:l[0]])))
		}
		k := keyNames[value[l[2]:l[3]]]
		if k == "" {
			sd.warn(sd.cmd, "command %d (sendKeys): key %s has no equivalent; not sent", sd.n, value[l[0]:l[1]])
		} else {
			sd.emit(opt(act("press", lit(k)), "on", selExpr(sels)))
		}
		last = l[1]
	}
	if last < len(value) {
		sd.emit(act("type", selExpr(sels), sd.fieldValue("sendKeys", sels, target, value[last:])))
	}
}

func (sd *side) store(cmd, target, value string) {
	n := sd.name(value)
	var a *ast.ActionStmt
	switch cmd {
	case "storeTitle":
		n = sd.name(firstNonEmpty(value, target))
		a = act("title")
	case "storeJson":
		sd.assign(n, src("fromJSON("+quote(target)+")"))
		return
	case "storeXpathCount", "storeElementCount":
		sels, ok := seleniumLocator(target)
		if cmd == "storeXpathCount" {
			sels, ok = []string{"xpath=" + strings.TrimPrefix(target, "xpath=")}, true
		}
		if !ok {
			sd.unsupported(cmd, "locator has no equivalent")
			return
		}
		sd.assign(n, src("page.count("+quote(sels[0])+")"))
		return
	case "storeAttribute":
		i := strings.LastIndex(target, "@")
		if i < 0 {
			sd.unsupported(cmd, "target has no @attribute")
			return
		}
		sels := sd.locator(target[:i])
		if sels == nil {
			return
		}
		a = act("attr", selExpr(sels), lit(target[i+1:]))
	default:
		sels := sd.locator(target)
		if sels == nil {
			return
		}
		a = act(map[string]string{"storeText": "text", "storeValue": "value"}[cmd], selExpr(sels))
	}
	a.Target = n
	sd.bind(n)
	sd.emit(a)
}

func (sd *side) selectWindow(target string) {
	sd.closeFrames(sd.frameFloor())
	switch {
	case strings.HasPrefix(target, "handle="):
		ref := strings.TrimPrefix(target, "handle=")
		if m := varRefRe().FindStringSubmatch(ref); m != nil && m[0] == ref {
			n := sd.name(m[1])
			if sd.newWindows[n] {
				// the window a click opened: switch to it, then keep its URL
				delete(sd.newWindows, n)
				sd.comment("the window opened above")
				sd.emit(act("tab", lit("last")))
				a := act("url")
				a.Target = n
				sd.bind(n)
				sd.emit(a)
				return
			}
			sd.use(n, "string", "")
			sd.emit(act("tab", src(n)))
			return
		}
		sd.unsupported("selectWindow", "window handles other than a stored ${name} have no equivalent")
	default:
		sd.unsupported("selectWindow", "only windows named by handle=${name} can be selected")
	}
}

func (sd *side) selectFrame(target string) {
	switch {
	case target == "relative=parent":
		if sd.frames <= sd.frameFloor() {
			if sd.frames == 0 {
				sd.warn(sd.cmd, "command %d (selectFrame): already in the top document", sd.n)
			} else {
				sd.warn(sd.cmd, "command %d (selectFrame): leaving a frame entered outside this block has no equivalent", sd.n)
			}
			return
		}
		sd.pop()
		sd.frames--
	case target == "relative=top":
		if sd.frames > sd.frameFloor() || sd.frames == 0 {
			sd.closeFrames(sd.frameFloor())
		}
		if sd.frames > 0 {
			sd.warn(sd.cmd, "command %d (selectFrame): leaving frames entered outside this block has no equivalent", sd.n)
		}
	case strings.HasPrefix(target, "index="):
		i, err := strconv.Atoi(strings.TrimPrefix(target, "index="))
		if err != nil || i < 0 {
			sd.unsupported("selectFrame", "bad frame index")
			return
		}
		sd.enterFrame(lit(fmt.Sprintf("xpath=(//iframe|//frame)[%d]", i+1)))
	default:
		sels := sd.locator(target)
		if sels == nil {
			return
		}
		sd.enterFrame(selExpr(sels))
	}
}

func (sd *side) enterFrame(sel ast.Expr) {
	fs := &ast.FrameStmt{Selector: sel}
	sd.emit(fs)
	sd.push(&fs.Body)
	sd.frames++
}

// call is `run TEST`: `call` of that test's flow with the names it takes.
func (sd *side) call(test string) {
	i, ok := sd.proj.byName[test]
	if !ok {
		sd.errorf(sd.cmd, "command %d (run): no test named %q in this project", sd.n, test)
		return
	}
	if sd.proj.building[i] {
		sd.unsupported("run", "recursive test runs have no equivalent")
		return
	}
	callee := sd.proj.build(i)
	a := act("call", lit(callee.Name))
	m := &ast.MapLit{}
	for _, p := range callee.File.Params {
		if p.Name == "base_url" && sd.proj.base != "" {
			sd.ensureBase() // the caller's site is the callee's
		}
		if p.Default != nil {
			if !sd.isBound(p.Name) {
				continue
			}
		} else {
			sd.use(p.Name, p.Type.Name, p.Description)
		}
		m.Entries = append(m.Entries, &ast.MapEntry{Key: lit(p.Name), Value: src(p.Name)})
	}
	if len(m.Entries) > 0 {
		opt(a, "with", m)
	}
	sd.emit(a)
}

var returnRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)^\s*return\s+(.*?)\s*;?\s*$`) })

func (sd *side) script(cmd, script, variable string) {
	body := script
	if m := returnRe().FindStringSubmatch(script); m != nil {
		body = m[1]
	}
	if e, ok := sd.jsExpr(body, false); ok {
		if variable == "" {
			sd.comment(fmt.Sprintf("%s %q: an expression with no effect", cmd, script))
			return
		}
		sd.assign(sd.name(variable), src(e))
		return
	}
	sd.unsupported(cmd, "page JavaScript cannot be expressed")
}

// lateDialog handles webdriver-style dialog commands recorded after the
// action that opened the dialog: the policy is set before that action.
func (sd *side) lateDialog(cmd, answer string) {
	var d *ast.ActionStmt
	switch cmd {
	case "acceptAlert", "acceptConfirmation":
		d = sd.accept()
	case "answerPrompt":
		sd.prompt = sd.tmpl(answer)
		d = sd.accept()
	case "dismissPrompt":
		sd.prompt = nil
		d = act("dialog", lit("dismiss"))
	default:
		sd.dismissWarn(cmd)
		d = act("dialog", lit("dismiss"))
	}
	// find the last page action of the current block (skipping dialog
	// assertions) and put the policy before it
	body := *sd.cur
	for i := len(body) - 1; i >= 0; i-- {
		if a, ok := body[i].(*ast.ActionStmt); ok && a.Action != "dialog" && !isDialogWait(a) {
			if c := sd.comments[a]; len(c) > 0 {
				sd.comments[d] = c
				delete(sd.comments, a)
			}
			*sd.cur = append(body[:i], append([]ast.Stmt{d}, body[i:]...)...)
			return
		}
	}
	sd.warn(sd.cmd, "command %d (%s): no action opened the dialog in this block; the policy applies to the next dialogs", sd.n, cmd)
	sd.emit(d)
}

// accept is `dialog "accept"`, with text: the pending prompt answer while
// one is pending (the policy holds for every later dialog, so an accept
// without it would answer that prompt with its default).
func (sd *side) accept() *ast.ActionStmt {
	d := act("dialog", lit("accept"))
	switch p := sd.prompt.(type) {
	case *ast.ExprSrc: // a fresh node per statement: layout positions each
		opt(d, "text", src(p.Source))
	case *ast.StringLit:
		c := &ast.StringLit{}
		for _, part := range p.Parts {
			if part.Expr != nil {
				part.Expr = src(part.Expr.Source)
			}
			c.Parts = append(c.Parts, part)
		}
		opt(d, "text", c)
	}
	return d
}

// dismissWarn warns when a dismiss policy for confirmations replaces a
// prompt answer no prompt has taken yet: the one policy dismisses that
// prompt too.
func (sd *side) dismissWarn(cmd string) {
	if sd.prompt != nil {
		sd.warn(sd.cmd, "command %d (%s): the dismiss policy also dismisses the prompt answered earlier (one policy holds for every dialog); assertPrompt after the prompt ends its answer", sd.n, cmd)
	}
}

// dialogCheck maps assertAlert/assertConfirmation/assertPrompt (and
// verify*): the dialog may have been any of the dialogs seen so far (a
// chain after one click) and may come late (a timer), so it waits for a
// dialog of that type with that message, then asserts over all dialogs
// seen (the k-th identical check in straight-line code wants k such
// dialogs). An assertPrompt ends the pending prompt answer.
func (sd *side) dialogCheck(cmd, what, target, msg string) {
	typ := map[string]string{"Alert": "alert", "Confirmation": "confirm", "Prompt": "prompt"}[what]
	pred := ".type == " + quote(typ)
	if target != "" {
		pred += " && " + sd.strCmp(".message", "==", target)
	}
	c := "any(dialogs(), {" + pred + "})"
	// the same check again in straight-line code (outside control flow,
	// no ${var}) needs one more such dialog: two identical confirms each
	// assert their own
	if len(sd.blocks) == 0 && !strings.Contains(target, "${") {
		if sd.dialogChecks == nil {
			sd.dialogChecks = map[string]int{}
		}
		sd.dialogChecks[pred]++
		if k := sd.dialogChecks[pred]; k > 1 {
			c = fmt.Sprintf("count(dialogs(), {%s}) >= %d", pred, k)
		}
	}
	w := act("wait")
	opt(w, "until", src(c))
	opt(w, "optional", &ast.BoolLit{Value: true})
	sd.emit(w)
	sd.assertion(cmd, c, msg)
	if what == "Prompt" {
		sd.prompt = nil
	}
}

// isDialogWait reports whether a is the wait of a dialog check.
func isDialogWait(a *ast.ActionStmt) bool {
	if a.Action != "wait" {
		return false
	}
	for _, o := range a.Options {
		if e, ok := o.Value.(*ast.ExprSrc); ok && o.Name == "until" && strings.Contains(e.Source, "dialogs()") {
			return true
		}
	}
	return false
}

// check maps assert*/verify* commands.
func (sd *side) check(cmd, what, target, value string) {
	msg := strings.TrimSpace(cmd + " " + target + " " + value)
	switch what {
	case "":
		n := sd.name(target)
		sd.use(n, "string", "")
		if _, err := strconv.ParseFloat(value, 64); err == nil || value == "true" || value == "false" {
			sd.assertion(cmd, fmt.Sprintf("string(%s) == %s", n, quote(value)), msg)
			return
		}
		sd.assertion(cmd, sd.strCmp(n, "==", value), msg)
	case "Text", "NotText", "Value", "SelectedValue", "NotSelectedValue":
		sels := sd.locator(target)
		if sels == nil {
			return
		}
		action := map[string]string{"Text": "text", "NotText": "text"}[what]
		if action == "" {
			action = "value"
		}
		n := sd.read(act(action, selExpr(sels)))
		op := "=="
		if strings.HasPrefix(what, "Not") {
			op = "!="
		}
		sd.assertion(cmd, sd.strCmp(n, op, value), msg)
	case "SelectedLabel":
		css, ok := sd.cssOnly(target)
		if !ok {
			return
		}
		n := sd.read(act("text", lit(css+" option:checked")))
		sd.assertion(cmd, sd.strCmp(n, "==", value), msg)
	case "Title":
		sd.assertion(cmd, sd.strCmp("page.title()", "==", target), msg)
	case "ElementPresent", "ElementNotPresent":
		sels := sd.locator(target)
		if sels == nil {
			return
		}
		var parts []string
		for _, s := range sels {
			parts = append(parts, "page.exists("+quote(s)+")")
		}
		c := strings.Join(parts, " || ")
		if what == "ElementNotPresent" {
			c = "!(" + c + ")"
		}
		sd.assertion(cmd, c, msg)
	case "Checked", "NotChecked", "Editable", "NotEditable":
		css, ok := sd.cssOnly(target)
		if !ok {
			return
		}
		suffix := ":checked"
		if strings.HasSuffix(what, "Editable") {
			suffix = ":not([disabled]):not([readonly])"
		}
		c := "page.exists(" + quote(css+suffix) + ")"
		if strings.HasPrefix(what, "Not") {
			c = "!" + c
		}
		sd.assertion(cmd, c, msg)
	case "Alert", "Confirmation", "Prompt":
		sd.dialogCheck(cmd, what, target, msg)
	default:
		sd.unsupported(cmd, "this check has no equivalent")
	}
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}
