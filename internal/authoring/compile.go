package authoring

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/rpa-dev/rpa/drivers/selectorgen"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
)

// Param is one flow param flow_save declares (its `params` argument):
// Name, Description and Type (a LANGUAGE.md type: string, secret, int,
// number, bool, list, map; "" keeps the type the log gives, string), an
// optional Default (never for a secret), and optionally the Step (1-based)
// whose value it becomes when the agent did not name it at the action.
type Param struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Type        string `json:"type,omitempty"`
	Default     any    `json:"default,omitempty"`
	HasDefault  bool   `json:"-"`
	Step        int    `json:"step,omitempty"`
}

// Meta is what flow_save adds to the log: the flow's NAME and
// description, params, and Returns (output key → the step of a read).
type Meta struct {
	Name        string
	Description string
	Params      []Param
	Returns     map[string]int
}

// Output is a compiled flow.
type Output struct {
	// Text is the .flow source.
	Text []byte
	// Diagnostics are lang's findings on Text (errors first); Flow is the
	// checked flow when there are no errors.
	Diagnostics diag.Diagnostics
	Flow        *lang.Flow
	// Dropped lists the steps left out as dead ends or superseded values.
	Dropped []int
	// Params names the flow's params in order; Secrets the secret ones.
	Params, Secrets []string
}

// MetaError is a bad flow_save argument; Field names it
// ("name", "params[1].step", "returns.rows").
type MetaError struct {
	Field string
	Msg   string
}

// Error names the field and what is wrong with it.
func (e *MetaError) Error() string { return e.Field + ": " + e.Msg }

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// step is an entry with its step number.
type step struct {
	n int
	e Entry
}

// Compile turns the log into flow text and checks it with lang. A bad
// Meta is a *MetaError; problems of the flow itself are Diagnostics.
func Compile(l *Log, m Meta) (*Output, error) {
	if why := ast.FlowNameTooLong(m.Name); why != "" {
		return nil, &MetaError{"name", why}
	}
	if !ast.IsFlowName(m.Name) {
		return nil, &MetaError{"name", fmt.Sprintf("%q is not a flow name ([a-z][a-z0-9_]*)", m.Name)}
	}
	if strings.Contains(m.Description, "{{") {
		return nil, &MetaError{"description", "a description cannot hold {{ (it is not interpolated)"}
	}
	steps := make([]step, len(l.Entries))
	for i, e := range l.Entries {
		steps[i] = step{i + 1, e}
	}
	// flow_save's params[].step and returns name steps after the fact.
	var urlValues []paramValue // parts of addresses that are params
	for i, p := range m.Params {
		f := fmt.Sprintf("params[%d]", i)
		if !identRE.MatchString(p.Name) {
			return nil, &MetaError{f + ".name", fmt.Sprintf("%q is not a param name", p.Name)}
		}
		if strings.Contains(p.Description, "{{") {
			return nil, &MetaError{f + ".description", "a description cannot hold {{ (it is not interpolated)"}
		}
		if p.Type == "secret" && p.HasDefault {
			return nil, &MetaError{f + ".default", "a secret param takes no default (it would be written in the file)"}
		}
		if p.Step == 0 {
			continue
		}
		if p.Step < 1 || p.Step > len(steps) {
			return nil, &MetaError{f + ".step", fmt.Sprintf("no step %d (the log has %d)", p.Step, len(steps))}
		}
		e := &steps[p.Step-1].e
		if e.Kind == KindOpen {
			// a part of the address: the default says which
			part := ""
			if p.HasDefault && p.Default != nil {
				part = fmt.Sprint(p.Default)
			}
			if !p.HasDefault || part == "" {
				return nil, &MetaError{f + ".default", fmt.Sprintf("step %d is an open: give the part of its address %s stands for as the default", p.Step, p.Name)}
			}
			if p.Type == "secret" {
				return nil, &MetaError{f + ".type", "a part of an address cannot be a secret (addresses are written in the flow and in logs)"}
			}
			if !slices.ContainsFunc(urlForms(part), func(v string) bool { return strings.Contains(e.URL, v) }) {
				return nil, &MetaError{f + ".default", fmt.Sprintf("%q is not part of step %d's address %s", part, p.Step, e.URL)}
			}
			urlValues = append(urlValues, paramValue{p.Name, part})
			continue
		}
		if e.Kind != KindFill && e.Kind != KindSelect {
			return nil, &MetaError{f + ".step", fmt.Sprintf("step %d is a %s; only fill and select values, and parts of an open's address, become params", p.Step, e.Kind)}
		}
		e.Param = p.Name
		if p.Type == "secret" {
			e.Secret, e.Value = true, ""
		}
	}
	keys := make([]string, 0, len(m.Returns))
	for k := range m.Returns {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := m.Returns[k]
		if !identRE.MatchString(k) {
			return nil, &MetaError{"returns." + k, "an output key must be a name"}
		}
		if n < 1 || n > len(steps) || steps[n-1].e.Kind != KindRead {
			return nil, &MetaError{"returns." + k, fmt.Sprintf("step %d is not a read", n)}
		}
		steps[n-1].e.As = k
	}

	kept, dropped := prune(steps)
	c := &compiler{out: &strings.Builder{}, urlValues: urlValues}
	sort.SliceStable(c.urlValues, func(i, j int) bool { return len(c.urlValues[i].value) > len(c.urlValues[j].value) })
	c.base = baseOrigin(kept)
	if err := c.params(kept, m.Params); err != nil {
		return nil, err
	}
	c.header(m)
	c.body(kept)

	o := &Output{Text: []byte(c.out.String()), Dropped: dropped, Params: c.order, Secrets: c.secrets}
	f, ds := lang.Load(m.Name+".flow", o.Text)
	o.Diagnostics = ds
	if !ds.HasErrors() {
		o.Flow = f
	}
	return o, nil
}

// prune drops dead ends: a back undoes the actions since the navigation it
// returns from (that navigation included; a back with nothing to undo
// stays), unnamed reads (they change nothing), and a fill or select
// repeated on the same element while editing the same form keeps only
// the last (the earlier one's param name carries over).
func prune(in []step) (kept []step, dropped []int) {
	drop := func(ss ...step) {
		for _, s := range ss {
			dropped = append(dropped, s.n)
		}
	}
	for _, s := range in {
		switch {
		case s.e.Kind == KindBack:
			i := len(kept) - 1
			for ; i > 0; i-- { // never the first entry: the start page
				if kept[i].e.NavURL != "" || kept[i].e.Kind == KindOpen {
					break
				}
			}
			if i <= 0 {
				kept = append(kept, s)
				continue
			}
			drop(kept[i:]...)
			drop(s)
			kept = kept[:i]
		case s.e.Kind == KindRead && s.e.As == "":
			drop(s)
		case (s.e.Kind == KindFill || s.e.Kind == KindSelect) && s.e.Target != nil:
			for i := len(kept) - 1; i >= 0; i-- {
				k := kept[i].e
				if k.Kind != KindFill && k.Kind != KindSelect && k.Kind != KindCheck {
					break
				}
				if k.Kind == s.e.Kind && sameElement(k.Target, s.e.Target) {
					if s.e.Param == "" {
						s.e.Param, s.e.Secret = k.Param, k.Secret
						if s.e.Secret {
							s.e.Value = ""
						}
					}
					drop(kept[i])
					kept = append(kept[:i], kept[i+1:]...)
					break
				}
			}
			kept = append(kept, s)
		default:
			kept = append(kept, s)
		}
	}
	sort.Ints(dropped)
	return kept, dropped
}

func sameElement(a, b *Element) bool {
	if a == nil || b == nil || len(a.Selectors) == 0 || len(b.Selectors) == 0 {
		return false
	}
	return a.Selectors[0] == b.Selectors[0] && framesKey(a.Frames) == framesKey(b.Frames)
}

func framesKey(fs [][]string) string {
	raw, _ := json.Marshal(fs)
	if len(fs) == 0 {
		return ""
	}
	return string(raw)
}

// baseOrigin is the origin of the first page opened ("" when none).
func baseOrigin(ss []step) string {
	for _, s := range ss {
		if s.e.Kind == KindOpen {
			if u, err := url.Parse(s.e.URL); err == nil && u.Scheme != "" && u.Host != "" {
				return u.Scheme + "://" + u.Host
			}
			return ""
		}
	}
	return ""
}

type paramDecl struct {
	name, typ, desc string
	def             string // literal; "" = required
}

type compiler struct {
	out    *strings.Builder
	base   string
	values []paramValue // values seen for params, longest first
	// urlValues are the parts of addresses flow_save made params (a param
	// whose step is an open), longest first: every address the flow opens
	// or waits for has them interpolated.
	urlValues []paramValue
	decls     []*paramDecl
	order     []string
	secrets   []string
	indent    int
}

// params collects the params: base_url, then the ones the log names in
// order of first use, then those only flow_save lists; flow_save's
// description, type and default win.
func (c *compiler) params(ss []step, ps []Param) error {
	byName := map[string]*paramDecl{}
	add := func(d *paramDecl) {
		byName[d.name] = d
		c.decls = append(c.decls, d)
		c.order = append(c.order, d.name)
	}
	if c.base != "" {
		add(&paramDecl{name: "base_url", typ: "string", def: quote(c.base), desc: "Address of the site (origin of the first page opened)"})
	}
	for _, s := range ss {
		e := s.e
		if e.Param == BaseURLParam && c.base != "" {
			return &MetaError{"param", fmt.Sprintf("a %s step names param %s, the site's address: name its value otherwise", e.Kind, BaseURLParam)}
		}
		if e.Param == "" || byName[e.Param] != nil {
			continue
		}
		d := &paramDecl{name: e.Param, typ: "string"}
		what := "Value"
		if e.Kind == KindSelect {
			what = "Option"
		}
		desc := ""
		if e.Target != nil {
			desc = strings.ToValidUTF8(strings.ReplaceAll(e.Target.Desc, "{{", "{ {"), "\uFFFD") // page text: never interpolated
		}
		if e.Secret {
			d.typ = "secret"
			d.desc = strings.TrimSpace("Secret for " + desc)
		} else {
			if !strings.Contains(e.Value, "{{") { // a default is not interpolated: leave it required
				d.def = quote(e.Value)
			}
			d.desc = strings.TrimSpace(what + " for " + desc)
		}
		add(d)
	}
	for i, p := range ps {
		d := byName[p.Name]
		if d == nil {
			d = &paramDecl{name: p.Name, typ: "string"}
			add(d)
		}
		if p.Description != "" {
			d.desc = p.Description
		}
		if p.Type != "" {
			if p.Type == "secret" && d.typ != "secret" {
				return &MetaError{fmt.Sprintf("params[%d].type", i), fmt.Sprintf("%s was seen with a value; mark the step secret at the action (secret: true) so its value is never kept", p.Name)}
			}
			if d.typ == "secret" && p.Type != "secret" {
				return &MetaError{fmt.Sprintf("params[%d].type", i), fmt.Sprintf("%s is a secret: it cannot become a %s", p.Name, p.Type)}
			}
			d.typ = p.Type
		}
		if p.HasDefault {
			lit, err := literal(p.Default)
			if err != nil {
				return &MetaError{fmt.Sprintf("params[%d].default", i), err.Error()}
			}
			d.def = lit
		} else if d.typ != "string" && d.typ != "secret" && d.def != "" {
			// a value seen as text, declared as another type: convert it
			if lit, ok := convertDefault(d.def, d.typ); ok {
				d.def = lit
			} else {
				d.def = ""
			}
		}
	}
	for _, s := range ss {
		if s.e.Param != "" && !s.e.Secret && len([]rune(s.e.Value)) >= 3 && !strings.Contains(s.e.Value, "{{") {
			c.values = append(c.values, paramValue{s.e.Param, s.e.Value})
		}
	}
	sort.SliceStable(c.values, func(i, j int) bool { return len(c.values[i].value) > len(c.values[j].value) })
	for _, d := range c.decls {
		if d.typ == "secret" {
			c.secrets = append(c.secrets, d.name)
			d.def = ""
		}
	}
	return nil
}

// paramValue is a value the log saw for a param.
type paramValue struct{ name, value string }

// withParams writes s (a text or address the agent waited for) as a
// string literal in which the values seen for params are interpolated:
// waiting for "applied:SAVE-2024" after filling the param code with
// SAVE-2024 becomes "applied:{{ code }}", so the flow waits for what it
// was given.
func (c *compiler) withParams(s string) string {
	return strconv.Quote(interpolate(s, append(append([]paramValue(nil), c.urlValues...), c.values...)))
}

// interpolate writes s as the text of a string literal in which each
// occurrence of a value of values (tried in order at each place; earliest
// place first) is `{{ name }}`, and a literal "{{" is escaped.
func interpolate(s string, values []paramValue) string {
	return interpolateFunc(s, values, func(name, _ string) string { return "{{ " + name + " }}" })
}

// interpolateFunc is interpolate writing each occurrence as expr(name,
// the value found) gives it.
func interpolateFunc(s string, values []paramValue, expr func(name, value string) string) string {
	var b strings.Builder
	for s != "" {
		best, at := -1, len(s)
		for i, pv := range values {
			if k := strings.Index(s, pv.value); k >= 0 && k < at {
				best, at = i, k
			}
		}
		if best < 0 {
			b.WriteString(strings.ReplaceAll(s, "{{", "{{ '{{' }}"))
			break
		}
		b.WriteString(strings.ReplaceAll(s[:at], "{{", "{{ '{{' }}"))
		b.WriteString(expr(values[best].name, values[best].value))
		s = s[at+len(values[best].value):]
	}
	return b.String()
}

// convertDefault turns a quoted string default into a literal of typ
// (int, number, bool), false when it does not convert.
func convertDefault(q, typ string) (string, bool) {
	s, err := strconv.Unquote(q)
	if err != nil {
		return "", false
	}
	switch typ {
	case "int":
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return s, true
		}
	case "number":
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return s, true
		}
	case "bool":
		if s == "true" || s == "false" {
			return s, true
		}
	}
	return "", false
}

// literal renders a JSON value as a .flow literal.
func literal(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case string:
		if strings.Contains(x, "{{") {
			return "", fmt.Errorf("a default may not contain {{")
		}
		return quote(x), nil
	case bool, float64, int, int64, json.Number:
		raw, _ := json.Marshal(x)
		return string(raw), nil
	case []any, map[string]any:
		raw, err := json.Marshal(x) // JSON lists and maps are .flow literals
		if err != nil {
			return "", err
		}
		if strings.Contains(string(raw), "{{") {
			return "", fmt.Errorf("a default may not contain {{")
		}
		return string(raw), nil
	}
	return "", fmt.Errorf("unsupported default %T", v)
}

// quote writes s as a .flow string literal whose value is exactly s: `{{`
// is escaped as `{{ '{{' }}` so nothing is interpolated.
func quote(s string) string {
	return strconv.Quote(strings.ReplaceAll(s, "{{", "{{ '{{' }}"))
}

func (c *compiler) line(format string, args ...any) {
	c.out.WriteString(strings.Repeat("    ", c.indent))
	fmt.Fprintf(c.out, format, args...)
	c.out.WriteByte('\n')
}

func (c *compiler) header(m Meta) {
	if m.Description != "" {
		c.line("flow %s %s", m.Name, strconv.Quote(m.Description))
	} else {
		c.line("flow %s", m.Name)
	}
	if len(c.decls) > 0 {
		c.out.WriteByte('\n')
	}
	for _, d := range c.decls {
		s := "param " + d.name + ": " + d.typ
		if d.def != "" {
			s += " = " + d.def
		}
		if d.desc != "" {
			s += " " + strconv.Quote(d.desc)
		}
		c.line("%s", s)
	}
	c.out.WriteByte('\n')
}

// urlExpr writes u, with its origin as {{ base_url }} when it is the
// base's, and the values of address params through the escaping helpers
// (urlExpr of a URL, LANGUAGE.md "Lexical rules").
func (c *compiler) urlExpr(u string) string {
	if c.base != "" && (u == c.base || strings.HasPrefix(u, c.base+"/") || strings.HasPrefix(u, c.base+"?") || strings.HasPrefix(u, c.base+"#")) {
		return strconv.Quote("{{ base_url }}" + c.urlText(strings.TrimPrefix(u, c.base)))
	}
	return strconv.Quote(c.urlText(u))
}

// urlText is the text of a URL literal for u: in its path a param's value
// becomes {{ urlpath(p) }} (a bare {{ p }} when the value spans
// segments), in its query {{ urlquery(p) }}, so that whatever the value
// holds cannot change what the URL asks for; the fragment is left as it
// is. A value is found as written or in its escaped forms.
func (c *compiler) urlText(u string) string {
	var b strings.Builder
	path, rest := u, ""
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		path, rest = u[:i], u[i:]
	}
	query, frag := rest, ""
	if i := strings.IndexByte(rest, '#'); i >= 0 {
		query, frag = rest[:i], rest[i:]
	}
	b.WriteString(interpolateFunc(path, urlAlternatives(c.urlValues), func(name, v string) string {
		if strings.Contains(v, "/") {
			return "{{ " + name + " }}"
		}
		return "{{ urlpath(" + name + ") }}"
	}))
	b.WriteString(interpolateFunc(query, urlAlternatives(c.urlValues), func(name, _ string) string { return "{{ urlquery(" + name + ") }}" }))
	b.WriteString(interpolate(frag, c.urlValues))
	return b.String()
}

// urlForms are the spellings of v an address may hold: as written, and
// escaped for a query or a path.
func urlForms(v string) []string {
	out := []string{v}
	for _, e := range []string{url.QueryEscape(v), url.PathEscape(v), strings.ReplaceAll(url.QueryEscape(v), "+", "%20")} {
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// urlAlternatives is values with each value's escaped spellings after it
// (found as the same param; the callback sees the param's own value).
func urlAlternatives(values []paramValue) []paramValue {
	var out []paramValue
	for _, pv := range values {
		for _, f := range urlForms(pv.value) {
			out = append(out, paramValue{pv.name, f})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].value) > len(out[j].value) })
	return out
}

// urlSafe reports whether v reads the same escaped and not: interpolated
// into a URL pattern it matches the address the browser shows.
func urlSafe(v string) bool { return url.QueryEscape(v) == v && url.PathEscape(v) == v }

// navWait is the wait that makes the step after e, an action that
// navigated from e.From to e.NavURL, safe on a slow server: the
// navigation's completion. A `wait url:` pattern must not match the page
// before, or it passes before the navigation happened (a form posted from
// ?id=P&do=edit that lands on ?id=P). In order: the URL's path when the
// page before had another; an element that appeared (a content wait); the
// path and query, else the same anchored as a regexp, when no part of
// them comes from a param (a server may rewrite a value: DokuWiki's
// "ns:my page" comes back as ns:my_page, so a pattern with the value seen
// would miss on the next value); else the network going idle.
func (c *compiler) navWait(e Entry) []string {
	if p := c.urlPattern(e.NavURL, e.From, false); p != "" {
		return []string{"wait url: " + p}
	}
	if w := c.contentWait(e, nil); w != nil {
		return w
	}
	if p := c.urlPattern(e.NavURL, e.From, true); p != "" {
		return []string{"wait url: " + p}
	}
	return []string{"wait idle: true"}
}

// urlPattern is a `wait url:` pattern literal that matches u and not from
// ("" when none does; from "" matches nothing): its path (on another
// origin than the base's, after that origin), or with query its path and
// query, else those anchored at the end as a regexp. A param's value in
// it is interpolated when it reads the same escaped; a pattern with a
// value that reads otherwise, or with a part that only resembles a
// param's value, is not made.
func (c *compiler) urlPattern(u, from string, query bool) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		if query || (from != "" && strings.Contains(from, u)) {
			return ""
		}
		return quote(u)
	}
	origin := pu.Scheme + "://" + pu.Host
	prefix := ""
	if origin != c.base {
		prefix = origin
	}
	tail := pu.EscapedPath()
	if pu.RawQuery != "" {
		tail += "?" + pu.RawQuery
	}
	var cands []string
	switch {
	case !query && (len(pu.Path) > 1 || prefix != ""):
		cands = append(cands, prefix+pu.EscapedPath())
	case query && pu.RawQuery != "":
		cands = append(cands, prefix+tail)
	}
	values := append(append([]paramValue(nil), c.urlValues...), c.values...)
	for _, p := range cands {
		if from != "" && strings.Contains(from, p) || c.paramLike(p, values) {
			continue
		}
		return strconv.Quote(interpolate(p, values))
	}
	if !query || c.paramLike(tail, values) {
		return ""
	}
	for _, pv := range values {
		if strings.Contains(tail, pv.value) {
			return "" // no regexp with a param in it: no helper quotes one
		}
	}
	re := regexp.QuoteMeta(tail) + "$"
	if ok, _ := regexp.MatchString(re, from); ok {
		return ""
	}
	return quote("re:" + re)
}

// paramLike reports whether the URL part p holds a param's value that
// would not read the same escaped, or a value (a path segment, a query
// value) that resembles a param's value without being it: the same
// letters and digits once case, spaces, "_", "-" and "+" are set aside,
// or one holding the other.
func (c *compiler) paramLike(p string, values []paramValue) bool {
	for _, pv := range values {
		if strings.Contains(p, pv.value) && !urlSafe(pv.value) {
			return true
		}
	}
	var parts []string
	path, q, _ := strings.Cut(p, "?")
	parts = append(parts, strings.Split(path, "/")...)
	for _, kv := range strings.Split(q, "&") {
		_, v, _ := strings.Cut(kv, "=")
		parts = append(parts, v)
	}
	for _, part := range parts {
		if dec, err := url.QueryUnescape(part); err == nil {
			part = dec
		}
		a := loose(part)
		if len([]rune(a)) < 3 {
			continue
		}
		for _, pv := range values {
			b := loose(pv.value)
			if len([]rune(b)) < 3 || part == pv.value {
				continue
			}
			if strings.Contains(a, b) || strings.Contains(b, a) {
				return true
			}
		}
	}
	return false
}

// loose is s lower-cased without spaces, "_", "-" and "+".
func loose(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '_', '-', '+', '\t':
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

// contentWait waits for an element the action e made appear: the first
// of e.Appeared (each named by a selector that matched nothing before the
// action) whose selector does not lean on a param's text, with a comment
// naming it; nil when there is none, or when next's own target appeared
// (its action waits for it anyway).
func (c *compiler) contentWait(e Entry, next *Entry) []string {
	if next != nil && next.Target != nil && sameElementIn(e.Appeared, next.Target) {
		return nil
	}
	for i := range e.Appeared {
		a := &e.Appeared[i]
		sels := a.Selectors
		if len(sels) == 0 || len(c.stable(sels)) < len(sels) || selectorgen.Positional(sels[0]) {
			continue // named by a param's text: not there on the next value
		}
		return []string{"# " + oneLine(a.Desc) + " appeared", "wait " + selText(sels)}
	}
	return nil
}

// sel writes an element's selector list, without the selectors that name
// it by text a param supplies (see stable).
func (c *compiler) sel(el *Element) string {
	if el == nil || len(el.Selectors) == 0 {
		return `"body"`
	}
	sels := c.stable(el.Selectors)
	if len(sels) == 0 {
		sels = el.Selectors
	}
	return selText(sels)
}

// stable is sels without those that name the element by text a param
// supplies: on a replay with another value they would name nothing, or
// another element (a heading whose text the flow typed). What is left
// names it by structure, role or attributes.
func (c *compiler) stable(sels []string) []string {
	var out []string
	for _, s := range sels {
		if !c.fromParam(s) {
			out = append(out, s)
		}
	}
	return out
}

// quotedRE finds the quoted texts of a selector (CSS attribute values,
// XPath strings); cssNameRE its CSS ids and classes.
var (
	quotedRE  = regexp.MustCompile(`"((?:[^"\\]|\\.)*)"|'([^']*)'`)
	cssNameRE = regexp.MustCompile(`[#.]((?:[A-Za-z0-9_-]|\\.)+)`)
)

// fromParam reports whether selector s holds a param's value (of at least
// 3 characters), or names by text (aria/NAME, text=, a quoted value) or
// by an id or class (a page may make an id of a heading's text: DokuWiki's
// #written_by_an_agent) a part of one, compared loosely (case, spaces, "_",
// "-" and "+" aside): a text of 4 characters or more, an id or class of 8
// or more (shorter ones such as .page are a page's own words) or the
// whole value.
func (c *compiler) fromParam(s string) bool {
	values := append(append([]paramValue(nil), c.values...), c.urlValues...)
	if len(values) == 0 {
		return false
	}
	low := strings.ToLower(s)
	var texts, names []string
	if name, ok := strings.CutPrefix(s, "aria/"); ok {
		if i := strings.LastIndex(name, "[role="); i >= 0 {
			name = name[:i]
		}
		texts = append(texts, name)
	} else if t, ok := strings.CutPrefix(s, "text="); ok {
		texts = append(texts, strings.Trim(t, `"`))
	} else {
		for _, m := range cssNameRE.FindAllStringSubmatch(strings.TrimPrefix(s, "pierce/"), -1) {
			names = append(names, loose(strings.ReplaceAll(m[1], `\`, "")))
		}
	}
	for _, m := range quotedRE.FindAllStringSubmatch(s, -1) {
		texts = append(texts, m[1]+m[2])
	}
	for _, pv := range values {
		if len([]rune(pv.value)) >= 3 && strings.Contains(low, strings.ToLower(pv.value)) {
			return true
		}
		v := loose(pv.value)
		for _, t := range texts {
			if t = loose(t); len([]rune(t)) >= 4 && strings.Contains(v, t) {
				return true
			}
		}
		for _, n := range names {
			if (len([]rune(n)) >= 8 || n == v) && n != "" && strings.Contains(v, n) {
				return true
			}
		}
	}
	return false
}

func selText(sels []string) string {
	if len(sels) == 1 {
		return quote(sels[0])
	}
	parts := make([]string, len(sels))
	for i, s := range sels {
		parts[i] = quote(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// value is a fill/select value: the param's name, else the literal.
func value(e Entry) string {
	if e.Param != "" {
		return e.Param
	}
	return quote(e.Value)
}

func (c *compiler) body(ss []step) {
	var frames [][]string // the frame blocks open now
	var outputs []string
	// a name bound inside a frame block lives in that block: bind the
	// outputs read inside frames at the top first
	declared := map[string]bool{}
	for _, s := range ss {
		if s.e.Kind == KindRead && s.e.Target != nil && len(s.e.Target.Frames) > 0 && !declared[s.e.As] {
			declared[s.e.As] = true
			c.line("%s = null", s.e.As)
		}
	}
	// an agent's `wait url:` right after a navigation stands for the
	// navigation's wait when the page before did not match it already;
	// one that did would pass at once: it is replaced by the compiler's
	explicit := map[int]bool{}
	drop := map[int]bool{}
	for i := 0; i+1 < len(ss); i++ {
		e, n := ss[i].e, ss[i+1].e
		if !navigates(e) || n.Kind != KindWait || n.URL == "" || n.Target != nil || n.Text != "" {
			continue
		}
		if e.From != "" && matchURL(n.URL, e.From) {
			drop[i+1] = true
		} else {
			explicit[i] = true
		}
	}
	for i, s := range ss {
		if drop[i] {
			continue
		}
		e := s.e
		var want [][]string
		if e.Target != nil {
			want = e.Target.Frames
		}
		if e.Kind == KindOpen || e.Kind == KindTab || e.Kind == KindBack || (e.Kind == KindWait && e.Target == nil) {
			want = nil // page-level actions leave every frame
		}
		if e.Kind == KindRead && e.Target == nil {
			want = frames // a page read stays where it is
		}
		// close the frames that differ, open the new ones
		common := 0
		for common < len(frames) && common < len(want) && strings.Join(frames[common], "\x00") == strings.Join(want[common], "\x00") {
			common++
		}
		for len(frames) > common {
			c.indent--
			c.line("}")
			frames = frames[:len(frames)-1]
		}
		for _, f := range want[common:] {
			c.line("frame %s {", selText(f))
			c.indent++
			frames = append(frames, f)
		}
		if e.Target != nil && e.Target.Desc != "" && e.Kind != KindRead {
			c.line("# %s %s", e.Kind, oneLine(e.Target.Desc))
		}
		switch e.Kind {
		case KindOpen:
			c.line("open %s", c.urlExpr(e.URL))
		case KindClick:
			c.line("click %s", c.sel(e.Target))
		case KindFill:
			c.line("fill %s %s", c.sel(e.Target), value(e))
		case KindSelect:
			c.line("select %s %s", c.sel(e.Target), value(e))
		case KindCheck:
			if e.Checked {
				c.line("check %s", c.sel(e.Target))
			} else {
				c.line("uncheck %s", c.sel(e.Target))
			}
		case KindPress:
			if e.Target != nil {
				c.line("press %s on: %s", quote(e.Key), c.sel(e.Target))
			} else {
				c.line("press %s", quote(e.Key))
			}
		case KindHover:
			c.line("hover %s", c.sel(e.Target))
		case KindWait:
			switch {
			case e.Target != nil:
				c.line("wait %s", c.sel(e.Target))
			case e.Text != "":
				c.line("wait text: %s", c.withParams(e.Text))
			case strings.HasPrefix(e.URL, "http://") || strings.HasPrefix(e.URL, "https://"):
				c.line("wait url: %s", c.urlExpr(e.URL))
			default:
				c.line("wait url: %s", c.withParams(e.URL))
			}
		case KindTab:
			if e.URL != "" {
				c.line("tab %s", quote(e.URL))
			} else {
				c.line("tab %d", e.TabIndex)
			}
		case KindBack:
			c.line("back")
		case KindRead:
			c.line("%s = %s", e.As, c.readAction(e))
			outputs = append(outputs, e.As)
		}
		var next *Entry
		if i+1 < len(ss) {
			next = &ss[i+1].e
		}
		var waits []string
		if navigates(e) && !explicit[i] {
			waits = c.navWait(e)
		}
		if e.Requests > 0 && next != nil && next.Kind == KindRead && next.Target != nil && (len(waits) == 0 || strings.HasPrefix(waits[0], "wait url:")) {
			// the read's element may be there before the data is
			if w := c.contentWait(e, next); w != nil {
				waits = append(waits, w...)
			} else if len(waits) == 0 && !sameElementIn(e.Appeared, next.Target) {
				waits = append(waits, "wait idle: true")
			}
		}
		if len(waits) > 0 && e.NavURL != "" && !e.SameDoc {
			// the navigation replaced the document: leave the frames first
			for len(frames) > 0 {
				c.indent--
				c.line("}")
				frames = frames[:len(frames)-1]
			}
		}
		for _, w := range waits {
			c.line("%s", w)
		}
	}
	for len(frames) > 0 {
		c.indent--
		c.line("}")
		frames = frames[:len(frames)-1]
	}
	if len(outputs) > 0 {
		parts := make([]string, 0, len(outputs))
		seen := map[string]bool{}
		for _, o := range outputs {
			if !seen[o] {
				seen[o] = true
				parts = append(parts, strconv.Quote(o)+": "+o)
			}
		}
		c.line("return { %s }", strings.Join(parts, ", "))
	}
}

// navigates reports whether e is an action that navigated the tab (open,
// back and tab wait for their own documents).
func navigates(e Entry) bool {
	return e.NavURL != "" && e.Kind != KindOpen && e.Kind != KindBack && e.Kind != KindTab
}

// sameElementIn reports whether el is one of els.
func sameElementIn(els []Element, el *Element) bool {
	for i := range els {
		if sameElement(&els[i], el) {
			return true
		}
	}
	return false
}

// matchURL is `wait url:` matching (LANGUAGE.md): a substring, or a
// regexp after "re:" (a bad one matches nothing).
func matchURL(pattern, u string) bool {
	if rest, ok := strings.CutPrefix(pattern, "re:"); ok {
		ok, _ := regexp.MatchString(rest, u)
		return ok
	}
	return strings.Contains(u, pattern)
}

// readAction is the action a named read compiles to.
func (c *compiler) readAction(e Entry) string {
	switch e.Read {
	case "url", "title":
		return e.Read
	case "html", "form":
		if e.Target == nil {
			return e.Read
		}
		return e.Read + " " + c.sel(e.Target)
	case "table":
		if e.Target == nil {
			return `table "table"`
		}
		return "table " + c.sel(e.Target)
	default: // text
		return "text " + c.sel(e.Target)
	}
}

// oneLine is s on one line, valid UTF-8 (for comments).
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ")
}

// ParamFromJSON reads one item of flow_save's params argument
// ({name, description?, type?, default?, step?}); a present "default"
// (null included) sets HasDefault.
func ParamFromJSON(m map[string]any) (Param, error) {
	var p Param
	for k, v := range m {
		switch k {
		case "name", "description", "type":
			s, ok := v.(string)
			if !ok {
				return p, &MetaError{k, "want a string"}
			}
			switch k {
			case "name":
				p.Name = s
			case "description":
				p.Description = s
			default:
				p.Type = s
			}
		case "default":
			p.Default, p.HasDefault = v, true
		case "step":
			n, ok := v.(float64)
			if !ok || n != float64(int(n)) {
				return p, &MetaError{k, "want an integer"}
			}
			p.Step = int(n)
		default:
			return p, &MetaError{k, "unknown field (name, description, type, default, step)"}
		}
	}
	if p.Name == "" {
		return p, &MetaError{"name", "required"}
	}
	return p, nil
}
