package authoring

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/lang"
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

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// step is an entry with its step number.
type step struct {
	n int
	e Entry
}

// Compile turns the log into flow text and checks it with lang. A bad
// Meta is a *MetaError; problems of the flow itself are Diagnostics.
func Compile(l *Log, m Meta) (*Output, error) {
	if !nameRE.MatchString(m.Name) {
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
			if !strings.Contains(e.URL, part) {
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
		b.WriteString("{{ " + values[best].name + " }}")
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
// base's.
func (c *compiler) urlExpr(u string) string {
	if c.base != "" && (u == c.base || strings.HasPrefix(u, c.base+"/") || strings.HasPrefix(u, c.base+"?") || strings.HasPrefix(u, c.base+"#")) {
		return strconv.Quote("{{ base_url }}" + interpolate(strings.TrimPrefix(u, c.base), c.urlValues))
	}
	return strconv.Quote(interpolate(u, c.urlValues))
}

// waitPattern is what `wait url:` waits for after a navigation to u: its
// path when that says something (substring match), else the address
// without its query.
func (c *compiler) waitPattern(u string) string {
	pu, err := url.Parse(u)
	if err != nil || pu.Host == "" {
		return quote(u)
	}
	origin := pu.Scheme + "://" + pu.Host
	if origin == c.base && len(pu.Path) > 1 {
		return strconv.Quote(interpolate(pu.Path, c.urlValues))
	}
	pu.RawQuery, pu.Fragment = "", ""
	return c.urlExpr(pu.String())
}

func sel(el *Element) string {
	if el == nil || len(el.Selectors) == 0 {
		return `"body"`
	}
	if len(el.Selectors) == 1 {
		return quote(el.Selectors[0])
	}
	parts := make([]string, len(el.Selectors))
	for i, s := range el.Selectors {
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
	for i, s := range ss {
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
			c.line("frame %s {", sel(&Element{Selectors: f}))
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
			c.line("click %s", sel(e.Target))
		case KindFill:
			c.line("fill %s %s", sel(e.Target), value(e))
		case KindSelect:
			c.line("select %s %s", sel(e.Target), value(e))
		case KindCheck:
			if e.Checked {
				c.line("check %s", sel(e.Target))
			} else {
				c.line("uncheck %s", sel(e.Target))
			}
		case KindPress:
			if e.Target != nil {
				c.line("press %s on: %s", quote(e.Key), sel(e.Target))
			} else {
				c.line("press %s", quote(e.Key))
			}
		case KindHover:
			c.line("hover %s", sel(e.Target))
		case KindWait:
			switch {
			case e.Target != nil:
				c.line("wait %s", sel(e.Target))
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
			c.line("%s = %s", e.As, readAction(e))
			outputs = append(outputs, e.As)
		}
		if e.NavURL != "" && e.Kind != KindOpen && e.Kind != KindBack {
			next := i + 1
			explicit := next < len(ss) && (ss[next].e.Kind == KindOpen || (ss[next].e.Kind == KindWait && ss[next].e.URL != ""))
			if !explicit {
				// the navigation replaces the document: leave the frames first
				for len(frames) > 0 {
					c.indent--
					c.line("}")
					frames = frames[:len(frames)-1]
				}
				c.line("wait url: %s", c.waitPattern(e.NavURL))
			}
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

// readAction is the action a named read compiles to.
func readAction(e Entry) string {
	switch e.Read {
	case "url", "title":
		return e.Read
	case "html", "form":
		if e.Target == nil {
			return e.Read
		}
		return e.Read + " " + sel(e.Target)
	case "table":
		if e.Target == nil {
			return `table "table"`
		}
		return "table " + sel(e.Target)
	default: // text
		return "text " + sel(e.Target)
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
