package importer

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/rpa-dev/rpa/lang/ast"
)

// chrome imports one Chrome DevTools Recorder JSON document (the format
// @puppeteer/replay reads: {"title", "timeout"?, "steps": [...]}).
type chrome struct {
	*builder
	origin string // the first navigation's origin, turned into the base_url param

	target  string // current target ("main" or a popup's URL)
	mainVar string // variable holding the main tab's URL while another is current
	seen    map[string]bool
	frames  int   // frame blocks open (all at depth frames)
	fpath   []int // frame path of the open frame blocks

	// key folding: keyDown/keyUp pairs become press
	mods     []string
	pending  string   // non-modifier key pressed and not yet released
	modAlone bool     // a modifier is down and no other key went down since
	keyNavs  []*jnode // key steps asserting a navigation, waited for once their press is out
}

var modifierKeys = map[string]bool{"Shift": true, "Control": true, "Alt": true, "Meta": true}

// chromeKinds are the kinds of the step members of Chrome DevTools
// Recorder's schema (@puppeteer/replay's Schema.ts) that have one kind
// ("selectors" may be a list or a string: see selectors). A step with a
// member of another kind is an error naming the step and the member, and
// is not imported: "width": "abc" never becomes a 0-pixel viewport.
var chromeKinds = map[string]jkind{
	"type": jString, "target": jString, "timeout": jNumber, "assertedEvents": jArray, "frame": jArray,
	"url": jString, "value": jString, "key": jString, "name": jString, "expression": jString,
	"button": jString, "deviceType": jString, "offsetX": jNumber, "offsetY": jNumber, "duration": jNumber,
	"width": jNumber, "height": jNumber, "deviceScaleFactor": jNumber,
	"isMobile": jBool, "hasTouch": jBool, "isLandscape": jBool,
	"x": jNumber, "y": jNumber,
	"operator": jString, "count": jNumber, "visible": jBool, "properties": jObject, "attributes": jObject,
	"download": jNumber, "upload": jNumber, "latency": jNumber,
}

// assertedKinds are the kinds of the members of an asserted event.
var assertedKinds = map[string]jkind{"type": jString, "url": jString, "title": jString}

// rootKinds are the kinds of a recording's own members.
var rootKinds = map[string]jkind{"title": jString, "timeout": jNumber, "steps": jArray, "selectorAttribute": jString}

// wellTyped reports, as errors at the member, every member of obj whose
// kind is not the one kinds gives it (what says whose member it is:
// "step 3 (scroll)"); false when there is one.
func (b *builder) wellTyped(what string, obj *jnode, kinds map[string]jkind) bool {
	ok := true
	for _, m := range obj.mems {
		k := m.key
		want, typed := kinds[k]
		if !typed {
			continue
		}
		if msg := mistyped(obj, k, want); msg != "" {
			// at the member itself, not at the step's "type"
			b.diags.Errorf(b.src.rng(&jnode{kind: jString, off: m.koff, end: m.val.end}), "%s: %s", what, msg)
			ok = false
		}
	}
	return ok
}

// chromeTyped checks the kinds of a step's members and of its asserted
// events (what the importer reads).
func (c *chrome) chromeTyped(n int, st *jnode) bool {
	what := fmt.Sprintf("step %d", n)
	if t := st.get("type"); t != nil && t.kind == jString && t.str != "" {
		what += " (" + t.str + ")"
	}
	ok := c.wellTyped(what, st, chromeKinds)
	if ev := st.get("assertedEvents"); ev != nil && ev.kind == jArray {
		for i, e := range ev.elems {
			w := fmt.Sprintf("%s, asserted event %d", what, i+1)
			if e.kind != jObject {
				c.errorf(e, "%s: expected an object, found %s", w, e.describe())
				ok = false
				continue
			}
			ok = c.wellTyped(w, e, assertedKinds) && ok
		}
	}
	if f := st.get("frame"); f != nil && f.kind == jArray {
		for i, e := range f.elems {
			if v, err := strconv.Atoi(e.str); e.kind != jNumber || err != nil || v < 0 {
				c.errorf(e, "%s: frame index %d must be a whole number of 0 or more, found %s", what, i+1, e.describe())
				ok = false
			}
		}
	}
	return ok
}

func (c *chrome) run(root *jnode) {
	c.target, c.seen = "main", map[string]bool{"main": true}
	if !c.wellTyped("recording", root, rootKinds) {
		return
	}
	steps := root.get("steps")
	if steps == nil {
		c.errorf(root, `recording has no "steps" array`)
		return
	}
	if ms, ok := root.getNum("timeout"); ok && ms > 0 {
		c.file.Defaults = append(c.file.Defaults, &ast.Option{Name: "timeout", Value: dur(ms)})
	}
	for _, st := range steps.items() {
		if st.kind == jObject && st.getStr("type") == "navigate" {
			if u, err := url.Parse(st.getStr("url")); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
				c.origin = u.Scheme + "://" + u.Host
				c.param("base_url", "string", lit(c.origin), "Address of the site (origin of the recorded pages)")
			}
			break
		}
	}
	for i, st := range steps.items() {
		if st.kind != jObject {
			c.errorf(st, "step %d: expected an object, found %s", i+1, st.kind)
			continue
		}
		c.step(i+1, st)
	}
	c.flushKey()
	c.closeFrames(0)
}

// urlExpr writes a URL of the site of origin as "{{ base_url }}/path" (a
// URL elsewhere as it is); both importers of recordings write URLs so.
func urlExpr(origin, u string) *ast.StringLit {
	if origin != "" && strings.HasPrefix(u, origin) {
		rest := u[len(origin):]
		if rest == "" || strings.ContainsAny(rest[:1], "/?#") {
			s := &ast.StringLit{Parts: []ast.StringPart{{Expr: src("base_url")}}}
			if rest != "" {
				s.Parts = append(s.Parts, ast.StringPart{Text: rest})
			}
			return s
		}
	}
	return lit(u)
}

// selectors maps the step's "selectors" (or "selector") to a fallback list.
// Multi-part entries (a path through shadow roots, one query per part)
// have no equivalent: they are dropped with a warning when a single-part
// alternative exists, else approximated with pierce/ on the last part.
func (c *chrome) selectors(n int, typ string, st *jnode) []string {
	sn := st.get("selectors")
	if sn == nil {
		sn = st.get("selector")
	}
	if sn == nil {
		c.errorf(st, "step %d (%s): no selectors", n, typ)
		return nil
	}
	var alts []*jnode
	switch sn.kind {
	case jArray:
		alts = sn.elems
	case jString:
		alts = []*jnode{sn}
	default:
		c.errorf(sn, "step %d (%s): selectors must be a list", n, typ)
		return nil
	}
	var out, dropped []string
	var chains [][]string
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] && s != "" {
			seen[s] = true
			out = append(out, s)
		}
	}
	for i, a := range alts {
		var parts []string
		switch a.kind {
		case jString:
			parts = []string{a.str}
		case jArray:
			for j, p := range a.elems {
				if p.kind != jString {
					c.errorf(p, "step %d (%s): selector %d, part %d must be a string, found %s", n, typ, i+1, j+1, p.describe())
					return nil
				}
				parts = append(parts, p.str)
			}
		default:
			c.errorf(a, "step %d (%s): selector %d must be a string or a list of strings, found %s", n, typ, i+1, a.describe())
			return nil
		}
		switch len(parts) {
		case 0:
		case 1:
			add(chromeSelector(parts[0]))
		default:
			chains = append(chains, parts)
			dropped = append(dropped, strings.Join(parts, " >>> "))
		}
	}
	if len(out) == 0 && len(chains) > 0 {
		last := chains[0][len(chains[0])-1]
		s := chromeSelector(last)
		if isCSS(last) {
			s = "pierce/" + last
		}
		add(s)
		c.warn(st, "step %d (%s): selector %q queries shadow roots part by part, which has no equivalent; approximated as %q", n, typ, dropped[0], s)
		return out
	}
	if len(dropped) > 0 {
		c.warn(st, "step %d (%s): %d multi-part selector(s) dropped (shadow-root paths have no equivalent): %s", n, typ, len(dropped), strings.Join(dropped, ", "))
	}
	if len(out) == 0 {
		c.errorf(sn, "step %d (%s): no usable selector", n, typ)
	}
	return out
}

// switchContext moves to the step's target (tab) and frame path.
func (c *chrome) switchContext(n int, st *jnode) {
	target := "main"
	if t := st.get("target"); t != nil && t.kind == jString && t.str != "" {
		target = t.str
	}
	var path []int
	if f := st.get("frame"); f != nil && f.kind == jArray {
		for _, e := range f.elems {
			i, _ := strconv.Atoi(e.str) // checked by chromeTyped
			path = append(path, i)
		}
	}
	if target != c.target {
		c.flushKey()
		c.closeFrames(0)
		if c.target == "main" {
			// remember the main tab by its URL, to come back to it
			if c.mainVar == "" {
				c.mainVar = c.uniq("main_tab")
			}
			c.bind(c.mainVar)
			r := act("url")
			r.Target = c.mainVar
			c.emit(r)
		}
		var a *ast.ActionStmt
		switch {
		case target == "main":
			a = act("tab", src(c.mainVar))
			c.comment("back to the main tab")
		case !c.seen[target]:
			a = act("tab", lit("last"))
			c.comment("the popup opened by the previous step: " + target)
		default:
			a = act("tab", urlExpr(c.origin, target))
		}
		c.seen[target] = true
		c.target = target
		c.emit(a)
	}
	common := 0
	for common < len(path) && common < len(c.fpath) && path[common] == c.fpath[common] {
		common++
	}
	if common < len(c.fpath) || len(path) > len(c.fpath) {
		c.flushKey()
	}
	c.closeFrames(common)
	for _, idx := range path[common:] {
		fs := &ast.FrameStmt{Selector: lit(fmt.Sprintf("xpath=(//iframe|//frame)[%d]", idx+1))}
		c.emit(fs)
		c.push(&fs.Body)
		c.fpath = append(c.fpath, idx)
		c.frames++
	}
}

// closeFrames leaves frame blocks until keep remain.
func (c *chrome) closeFrames(keep int) {
	for c.frames > keep {
		c.pop()
		c.frames--
		c.fpath = c.fpath[:len(c.fpath)-1]
	}
}

// stepOpts are the options every step may carry: timeout (ms).
func (c *chrome) stepOpts(a *ast.ActionStmt, st *jnode) {
	if ms, ok := st.getNum("timeout"); ok && ms > 0 {
		opt(a, "timeout", dur(ms))
	}
}

// navWait emits `wait url:` for the navigations a step asserts.
func (c *chrome) navWait(st *jnode, except string) {
	ev := st.get("assertedEvents")
	if ev == nil || ev.kind != jArray {
		return
	}
	for _, e := range ev.elems {
		if e.getStr("type") != "navigation" {
			continue
		}
		u := e.getStr("url")
		if u == "" || u == except {
			continue
		}
		a := act("wait")
		opt(a, "url", urlExpr(c.origin, u))
		c.emit(a)
	}
}

func (c *chrome) step(n int, st *jnode) {
	if !c.chromeTyped(n, st) {
		return
	}
	typ := st.getStr("type")
	if typ != "keyUp" && typ != "keyDown" {
		c.flushKey()
	}
	if typ != "setViewport" && typ != "customStep" {
		c.switchContext(n, st)
	}
	switch typ {
	case "setViewport":
		w, _ := st.getNum("width")
		h, _ := st.getNum("height")
		c.comment(fmt.Sprintf("recorded with a %gx%g viewport", w, h))
		dpr, ok := st.getNum("deviceScaleFactor")
		if st.getBool("isMobile", false) || st.getBool("hasTouch", false) || (ok && dpr != 1) {
			c.warn(st, "step %d (setViewport): mobile, touch and device scale emulation have no equivalent; the flow runs in the browser's own viewport", n)
		}
	case "navigate":
		u := st.getStr("url")
		if u == "" {
			c.errorf(st, "step %d (navigate): no url", n)
			return
		}
		ue := urlExpr(c.origin, u)
		if why := badURL(ue); why != "" {
			c.errorf(st, "step %d (navigate): %s", n, why)
			return
		}
		a := act("open", ue)
		c.stepOpts(a, st)
		c.emit(a)
		c.navWait(st, u)
	case "click", "doubleClick":
		sels := c.selectors(n, typ, st)
		if sels == nil {
			return
		}
		a := act("click", selExpr(sels))
		switch st.getStr("button") {
		case "", "primary":
		case "secondary":
			opt(a, "button", lit("right"))
		case "auxiliary":
			opt(a, "button", lit("middle"))
		default:
			c.warn(st, "step %d (%s): button %q has no equivalent; clicking with the left button", n, typ, st.getStr("button"))
		}
		if typ == "doubleClick" {
			opt(a, "count", num(2))
		}
		if d, ok := st.getNum("duration"); ok && d > 0 {
			c.warn(st, "step %d (%s): a %gms press duration has no equivalent; a plain click is used", n, typ, d)
		}
		c.stepOpts(a, st)
		c.emit(a)
		c.navWait(st, "")
	case "hover":
		sels := c.selectors(n, typ, st)
		if sels == nil {
			return
		}
		a := act("hover", selExpr(sels))
		c.stepOpts(a, st)
		c.emit(a)
		c.navWait(st, "")
	case "change":
		c.change(n, st)
	case "keyDown", "keyUp":
		c.key(n, typ, st)
	case "scroll":
		c.scroll(n, st)
	case "waitForElement":
		c.waitForElement(n, st)
	case "waitForExpression":
		c.comment("not imported: waitForExpression " + st.getStr("expression"))
		c.warn(st, "step %d (waitForExpression): a page JavaScript expression cannot be expressed; not imported", n)
	case "close":
		c.closeFrames(0)
		c.emit(act("close"))
	case "customStep":
		c.comment("not imported: customStep " + st.getStr("name"))
		c.warn(st, "step %d (customStep %q): custom steps need the extension that recorded them; not imported", n, st.getStr("name"))
	case "emulateNetworkConditions":
		c.comment("not imported: emulateNetworkConditions")
		c.warn(st, "step %d (emulateNetworkConditions): network emulation has no equivalent; not imported", n)
	case "":
		c.errorf(st, "step %d: no type", n)
	default:
		c.comment("not imported: " + typ)
		c.warn(st, "step %d: unknown step type %q; not imported", n, typ)
	}
}

// change is a `change` step: fill for text fields, select for <select>,
// decided by the selectors' tag when they show it and at run time when a
// CSS alternative lets us ask (what @puppeteer/replay does).
func (c *chrome) change(n int, st *jnode) {
	sels := c.selectors(n, "change", st)
	if sels == nil {
		return
	}
	v := st.get("value")
	if v == nil {
		c.errorf(st, "step %d (change): no value", n)
		return
	}
	value := c.placeholders(v.text())
	if selectorsSayPassword(sels) {
		value = src(c.secretParam(st, fieldName(sels), v.text(), fmt.Sprintf("step %d (change)", n)))
	}
	emitFill := func() {
		a := act("fill", selExpr(sels), value)
		c.stepOpts(a, st)
		c.emit(a)
	}
	emitSelect := func() {
		a := act("select", selExpr(sels), value)
		c.stepOpts(a, st)
		c.emit(a)
	}
	tag := tagOf(sels)
	if selectorsSayPassword(sels) {
		tag = "input" // a password field is never a <select>
	}
	switch tag {
	case "select":
		emitSelect()
	case "input", "textarea":
		emitFill()
	default:
		probe := ""
		for _, s := range sels {
			if p, ok := withTag(s, "select"); ok {
				probe = p
				break
			}
		}
		if probe == "" {
			c.warn(st, "step %d (change): cannot tell whether the field is a <select>; imported as fill", n)
			emitFill()
			break
		}
		ifs := &ast.IfStmt{Cond: src("page.exists(" + quote(probe) + ")")}
		c.comment("a <select> or a text field: decided at run time, as @puppeteer/replay does")
		c.emit(ifs)
		c.push(&ifs.Then)
		emitSelect()
		c.pop()
		c.push(&ifs.Else)
		emitFill()
		c.pop()
	}
	c.navWait(st, "")
}

// waitOperators are the operators of a waitForElement step (Chrome
// DevTools Recorder's schema: '>=' | '==' | '<=').
var waitOperators = []string{">=", "==", "<="}

var placeholderRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\$([A-Za-z_][A-Za-z0-9_]*)\}`) })

// placeholders turns a recorded value into a string literal; `{$name}`
// placeholders (a common hand edit of recordings, read by replay
// extensions) become required string params.
func (c *chrome) placeholders(v string) ast.Expr {
	locs := placeholderRe().FindAllStringSubmatchIndex(v, -1)
	if len(locs) == 0 {
		return lit(v)
	}
	out := &ast.StringLit{}
	last := 0
	for _, l := range locs {
		if l[0] > last {
			out.Parts = append(out.Parts, ast.StringPart{Text: v[last:l[0]]})
		}
		n := varName(v[l[2]:l[3]])
		c.use(n, "string", "Value of the {$"+v[l[2]:l[3]]+"} placeholder")
		out.Parts = append(out.Parts, ast.StringPart{Expr: src(n)})
		last = l[1]
	}
	if last < len(v) {
		out.Parts = append(out.Parts, ast.StringPart{Text: v[last:]})
	}
	if len(out.Parts) == 1 && out.Parts[0].Expr != nil {
		return out.Parts[0].Expr
	}
	return out
}

// lastCompound splits a CSS selector into everything before its last
// compound selector and that compound ("" when it is not plain CSS).
func lastCompound(css string) (prefix, last string) {
	depth := 0
	cut := 0
	for i := 0; i < len(css); i++ {
		switch ch := css[i]; ch {
		case '[', '(':
			depth++
		case ']', ')':
			depth--
		case ' ', '>', '+', '~':
			if depth == 0 {
				cut = i + 1
			}
		case '"', '\'':
			j := strings.IndexByte(css[i+1:], ch)
			if j < 0 {
				return "", ""
			}
			i += j + 1
		}
	}
	return css[:cut], css[cut:]
}

// tagOf returns the element tag the selectors show ("select", "input",
// "textarea"), or "".
func tagOf(sels []string) string {
	for _, s := range sels {
		s = strings.TrimPrefix(s, "pierce/")
		if strings.HasPrefix(s, "aria/") {
			switch {
			case strings.Contains(s, `[role="listbox"]`):
				return "select"
			case strings.Contains(s, `[role="textbox"]`), strings.Contains(s, `[role="searchbox"]`):
				return "input"
			}
			continue
		}
		if strings.HasPrefix(s, "xpath=") {
			x := s[len("xpath="):]
			i := strings.LastIndex(x, "/")
			step := strings.ToLower(x[i+1:])
			for _, t := range []string{"select", "input", "textarea"} {
				if strings.HasPrefix(step, t) && (len(step) == len(t) || step[len(t)] == '[') {
					return t
				}
			}
			continue
		}
		if !isCSS(s) {
			continue
		}
		_, last := lastCompound(s)
		last = strings.ToLower(last)
		for _, t := range []string{"select", "input", "textarea"} {
			if strings.HasPrefix(last, t) && (len(last) == len(t) || strings.ContainsAny(last[len(t):len(t)+1], "#.[:")) {
				return t
			}
		}
	}
	return ""
}

// withTag puts tag in front of the last compound of a plain CSS selector
// that names no tag (`#connection` → `select#connection`).
func withTag(s, tag string) (string, bool) {
	if !isCSS(s) {
		return "", false
	}
	prefix, last := lastCompound(s)
	if last == "" || !strings.ContainsAny(last[:1], "#.[:") {
		return "", false
	}
	return prefix + tag + last, true
}

// key folds keyDown/keyUp pairs into press, with held modifiers as a chord
// ("Control+a"); a modifier pressed and released alone is pressed alone.
//
// A key step's asserted navigation (Enter in a form) becomes `wait url:` right
// after the press it belongs to, as on clicks: the next step must not race the
// page that is loading.
func (c *chrome) key(n int, typ string, st *jnode) {
	k := st.getStr("key")
	if k == "" {
		c.errorf(st, "step %d (%s): no key", n, typ)
		return
	}
	if ev := st.get("assertedEvents"); ev != nil && ev.kind == jArray && len(ev.elems) > 0 {
		c.keyNavs = append(c.keyNavs, st)
		defer func() {
			if c.pending == "" && !c.modAlone {
				c.flushKeyNavs() // the press is out (or there is none to wait for)
			}
		}()
	}
	switch {
	case typ == "keyDown" && modifierKeys[k]:
		c.flushKey()
		c.mods = append(c.mods, k)
		c.modAlone = true
	case typ == "keyDown":
		c.flushKey()
		c.pending = k
		c.modAlone = false
	case modifierKeys[k]:
		c.flushKey()
		if c.modAlone {
			c.emit(act("press", lit(strings.Join(c.mods, "+"))))
		}
		c.modAlone = false
		c.flushKeyNavs()
		for i, m := range c.mods {
			if m == k {
				c.mods = append(c.mods[:i], c.mods[i+1:]...)
				break
			}
		}
	case k == c.pending:
		c.flushKey()
	}
	// any other keyUp belongs to a key already pressed: press is down and up.
}

// flushKey emits the pending key press.
func (c *chrome) flushKey() {
	if c.pending == "" {
		return
	}
	chord := append(append([]string{}, c.mods...), c.pending)
	c.emit(act("press", lit(strings.Join(chord, "+"))))
	c.pending = ""
	c.flushKeyNavs()
}

// flushKeyNavs emits the waits for the navigations the key steps since the
// last press asserted.
func (c *chrome) flushKeyNavs() {
	navs := c.keyNavs
	c.keyNavs = nil
	for _, st := range navs {
		c.navWait(st, "")
	}
}

func (c *chrome) scroll(n int, st *jnode) {
	x, _ := st.getNum("x")
	y, _ := st.getNum("y")
	hasSel := st.has("selectors") || st.has("selector")
	if x == 0 && y == 0 {
		if hasSel {
			sels := c.selectors(n, "scroll", st)
			if sels == nil {
				return
			}
			a := act("scroll", selExpr(sels))
			opt(a, "to", lit("top"))
			c.emit(a)
			return
		}
		c.emit(act("scroll", lit("top")))
		return
	}
	c.comment(fmt.Sprintf("not imported: scroll to (%g, %g)", x, y))
	c.warn(st, "step %d (scroll): scrolling to a pixel offset has no equivalent (actions scroll their element into view); not imported", n)
}

func (c *chrome) waitForElement(n int, st *jnode) {
	sels := c.selectors(n, "waitForElement", st)
	if sels == nil {
		return
	}
	op := st.getStr("operator")
	if op == "" {
		op = ">="
	}
	if !slices.Contains(waitOperators, op) {
		// The recording's text would become code: only the documented set.
		c.errorf(st, "step %d (waitForElement): operator %q is not one of %s", n, op, strings.Join(waitOperators, ", "))
		return
	}
	count := 1.0
	if v, ok := st.getNum("count"); ok {
		count = v
	}
	if count < 0 || count != math.Trunc(count) || count > 1e9 {
		c.errorf(st, "step %d (waitForElement): count %v is not a whole number of elements", n, count)
		return
	}
	visible := st.getBool("visible", true)
	if st.has("properties") || st.has("attributes") {
		c.warn(st, "step %d (waitForElement): properties and attributes conditions have no equivalent; only the element is waited for", n)
	}
	var a *ast.ActionStmt
	switch {
	case op == ">=" && count == 1:
		a = act("wait", selExpr(sels))
		if !visible {
			opt(a, "state", lit("attached"))
		}
	case op == "==" && count == 0, op == "<=" && count == 0:
		a = act("wait", selExpr(sels))
		state := "detached"
		if visible {
			state = "hidden"
		}
		opt(a, "state", lit(state))
	default:
		if len(sels) > 1 {
			c.warn(st, "step %d (waitForElement): counting uses the first selector only (%q)", n, sels[0])
		}
		if visible {
			c.warn(st, "step %d (waitForElement): counting cannot require visibility; counting attached elements", n)
		}
		a = act("wait")
		opt(a, "until", src(fmt.Sprintf("page.count(%s) %s %d", quote(sels[0]), op, int64(count))))
	}
	c.stepOpts(a, st)
	c.emit(a)
}
