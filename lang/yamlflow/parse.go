// Package yamlflow is the YAML front end of the flow language: Parse reads
// the YAML form of LANGUAGE.md ("YAML form") into the same closed AST the
// .flow parser produces, with positions taken from yaml.v3 nodes, and Write
// renders an AST back as canonical YAML. `.flow` → YAML → `.flow` gives an
// ast.Equal tree (comments aside).
package yamlflow

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/parse"
)

type parser struct {
	file  string
	src   []byte
	lines []int // byte offset of each line start
	diags diag.Diagnostics
}

// Parse reads a flow in YAML form. It collects every problem it can find
// (unknown keys, wrong shapes) with the line:col of the offending node, and
// returns the AST even when some steps were bad (nil only when the document
// itself is unusable). It never panics.
func Parse(filename string, src []byte) (f *ast.File, ds diag.Diagnostics) {
	p := &parser{file: filename, src: src}
	p.lines = append(p.lines, 0)
	for i, b := range src {
		if b == '\n' {
			p.lines = append(p.lines, i+1)
		}
	}
	defer func() {
		if r := recover(); r != nil {
			p.diags.Errorf(ast.Range{File: filename}, "internal error: %v", r)
			f, ds = nil, p.diags
		}
	}()
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		p.yamlError(err)
		return nil, p.diags
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(&extra, "a flow file holds one YAML document")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		p.diags.Errorf(p.rangeAt(1, 1, 0), "empty flow")
		return nil, p.diags
	}
	p.duplicateKeys(&doc, 0)
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		p.errorf(root, "a flow is a YAML map with flow:, params:, defaults: and steps:")
		return nil, p.diags
	}
	f = p.file_(root)
	return f, p.diags
}

// duplicateKeys reports a key given twice in one YAML map (yaml.v3 only
// does so when decoding into Go values), non-scalar keys and invalid UTF-8.
func (p *parser) duplicateKeys(n *yaml.Node, depth int) {
	if depth > 200 {
		p.errorf(n, "YAML nested too deeply")
		return
	}
	if n.Kind == yaml.ScalarNode && !utf8.ValidString(n.Value) {
		p.errorf(n, "invalid UTF-8 in a value")
	}
	if n.Kind == yaml.MappingNode {
		seen := map[string]*yaml.Node{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				p.errorf(k, "a map key must be a plain string")
				continue
			}
			if prev := seen[k.Value]; prev != nil {
				p.errorf(k, "key %q given twice", k.Value).Detail = fmt.Sprintf("first at line %d", prev.Line)
				continue
			}
			seen[k.Value] = k
		}
	}
	for _, c := range n.Content {
		p.duplicateKeys(c, depth+1)
	}
}

var yamlLineRE = regexp.MustCompile(`line (\d+)`)

func (p *parser) yamlError(err error) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 1
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = strings.TrimPrefix(strings.Replace(msg, m[0]+": ", "", 1), "unmarshal errors:\n  ")
	}
	if msg == "EOF" {
		msg = "empty flow"
	}
	p.diags.Errorf(p.rangeAt(line, 1, 0), "%s", msg)
}

// rangeAt turns a yaml line and rune column into a Range spanning n bytes
// (clamped to the line).
func (p *parser) rangeAt(line, col, n int) ast.Range {
	if line < 1 {
		line = 1
	}
	if line > len(p.lines) {
		line = len(p.lines)
	}
	ls := p.lines[line-1]
	le := len(p.src)
	if line < len(p.lines) {
		le = p.lines[line] - 1
	}
	off := ls
	for c := 1; c < col && off < le; c++ {
		_, w := utf8.DecodeRune(p.src[off:le])
		off += w
	}
	end := off + n
	if end > le {
		end = le
	}
	if end < off {
		end = off
	}
	start := ast.Pos{Line: line, Col: off - ls + 1, Offset: off}
	return ast.Range{File: p.file, Start: start, End: ast.Pos{Line: line, Col: end - ls + 1, Offset: end}}
}

// rng is the range of a node: a scalar spans its text on its first line.
func (p *parser) rng(n *yaml.Node) ast.Range {
	w := 1
	if n.Kind == yaml.ScalarNode {
		w = len(n.Value)
		if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
			w += 2
		}
		if w == 0 {
			w = 1
		}
	}
	return p.rangeAt(n.Line, n.Column, w)
}

// valueStart is where a scalar's Value text begins in the file (after the
// opening quote); exact for plain and quoted scalars on one line.
func (p *parser) valueStart(n *yaml.Node) ast.Pos {
	r := p.rangeAt(n.Line, n.Column, 0)
	if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 {
		r = p.rangeAt(n.Line, n.Column+1, 0)
	}
	return r.Start
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) *diag.Diagnostic {
	return p.diags.Errorf(p.rng(n), format, args...)
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "null"
	}
	return "a scalar"
}

func suggestKey(d *diag.Diagnostic, key string, keys []string) {
	if s := diag.Suggest(key, keys); s != "" {
		d.Detail = fmt.Sprintf("did you mean %q?", s)
	} else {
		d.Detail = "known keys: " + strings.Join(keys, ", ")
	}
}

var fileKeys = []string{"flow", "description", "params", "defaults", "steps"}

func (p *parser) file_(root *yaml.Node) *ast.File {
	f := &ast.File{Range: p.rng(root)}
	f.Range.End = p.rangeAt(len(p.lines), 1<<30, 0).End
	seen := false
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		switch k.Value {
		case "flow":
			seen = true
			if s, ok := p.str(v, "flow"); ok {
				f.Name, f.NameRange = s, p.rng(v)
			}
		case "description":
			if v.Tag != "!!null" {
				if s, ok := p.str(v, "description"); ok {
					f.Description = s
				}
			}
		case "params":
			f.Params = p.params(v)
		case "defaults":
			f.Defaults = p.defaults(v)
		case "steps":
			f.Body = p.steps(v)
		default:
			suggestKey(p.errorf(k, "unknown key %q", k.Value), k.Value, fileKeys)
		}
	}
	if !seen {
		p.errorf(root, "missing flow: NAME")
	}
	return f
}

// str reads a scalar as a plain string.
func (p *parser) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		p.errorf(n, "%s must be a string, got %s", what, kindName(n))
		return "", false
	}
	return n.Value, true
}

var paramKeys = []string{"name", "type", "default", "description", "values"}

func (p *parser) params(n *yaml.Node) []*ast.Param {
	if n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "params must be a list of {name, type, default, description}, got %s", kindName(n))
		return nil
	}
	var out []*ast.Param
	for _, pn := range n.Content {
		if pn.Kind != yaml.MappingNode {
			p.errorf(pn, "a param is a map {name, type, default, description}, got %s", kindName(pn))
			continue
		}
		prm := &ast.Param{Range: p.rng(pn)}
		var values *yaml.Node
		for i := 0; i+1 < len(pn.Content); i += 2 {
			k, v := pn.Content[i], pn.Content[i+1]
			switch k.Value {
			case "name":
				if s, ok := p.str(v, "param name"); ok {
					prm.Name, prm.NameRange = s, p.rng(v)
				}
			case "type":
				if s, ok := p.str(v, "param type"); ok {
					prm.Type = &ast.Type{Range: p.rng(v), Name: s}
				}
			case "default":
				prm.Default = p.dsl(v, actions.KindAny, false)
			case "description":
				if v.Tag != "!!null" {
					if s, ok := p.str(v, "param description"); ok {
						prm.Description = s
					}
				}
			case "values":
				values = v
			default:
				suggestKey(p.errorf(k, "unknown param key %q", k.Value), k.Value, paramKeys)
			}
		}
		if prm.Name == "" && prm.NameRange == (ast.Range{}) {
			p.errorf(pn, "param needs a name")
			prm.NameRange = p.rng(pn)
		}
		if prm.Type == nil {
			p.errorf(pn, "param %q needs a type", prm.Name)
		} else if values != nil {
			if values.Kind != yaml.SequenceNode {
				p.errorf(values, "values must be a list of strings")
			} else {
				prm.Type.Values = []string{}
				for _, vn := range values.Content {
					if s, ok := p.str(vn, "enum value"); ok {
						prm.Type.Values = append(prm.Type.Values, s)
					}
				}
			}
		}
		out = append(out, prm)
	}
	return out
}

func defaultsKind(name string) actions.Kind {
	for _, k := range actions.DefaultsKeys {
		if k.Name == name {
			return k.Kind
		}
	}
	return actions.KindAny
}

func (p *parser) defaults(n *yaml.Node) []*ast.Option {
	if n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		p.errorf(n, "defaults must be a map of KEY: VALUE, got %s", kindName(n))
		return nil
	}
	var out []*ast.Option
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		out = append(out, &ast.Option{Range: p.rng(k), Name: k.Value, NameRange: p.rng(k),
			Value: p.dsl(v, defaultsKind(k.Value), true)})
	}
	return out
}

// ---- values ----

// dsl reads a DSL value: a string (with {{ }} interpolation; exactly
// "{{ E }}" lowers to E), a number, bool, null, a duration (plain scalars in
// argument positions, or any string where kind is KindDuration), a list or a
// map of DSL values.
func (p *parser) dsl(n *yaml.Node, kind actions.Kind, argPos bool) ast.Expr {
	return p.dslValue(n, kind, argPos, false)
}

// dslElems reads an argument value whose list elements and map values are
// full expressions, as in .flow: a nested YAML list or map there is
// expression source (`[1, "two"]`), not a ListLit.
func (p *parser) dslElems(n *yaml.Node, kind actions.Kind) ast.Expr {
	return p.dslValue(n, kind, true, true)
}

func (p *parser) dslValue(n *yaml.Node, kind actions.Kind, argPos, elemsAreExprs bool) ast.Expr {
	elem := func(e *yaml.Node) ast.Expr {
		v := p.dslValue(e, actions.KindAny, false, elemsAreExprs)
		if elemsAreExprs && (e.Kind == yaml.SequenceNode || e.Kind == yaml.MappingNode) {
			start := p.rangeAt(e.Line, e.Column, 0).Start
			text := ExprText(v)
			if back, ok := wholeInterp("{{ " + text + " }}"); !ok || back != " "+text+" " {
				// An interpolation holding '"' inside a nested value has
				// no expression spelling.
				p.errorf(e, "this nested value cannot be read as an expression; write it as \"{{ EXPR }}\"")
			}
			return &ast.ExprSrc{Range: ast.Range{File: p.file, Start: start, End: start}, Source: text}
		}
		return v
	}
	switch n.Kind {
	case yaml.AliasNode:
		p.errorf(n, "YAML aliases are not supported in flows")
		return &ast.NullLit{Range: p.rng(n)}
	case yaml.SequenceNode:
		l := &ast.ListLit{Range: p.rng(n), Elems: []ast.Expr{}}
		for _, e := range n.Content {
			l.Elems = append(l.Elems, elem(e))
		}
		return l
	case yaml.MappingNode:
		m := &ast.MapLit{Range: p.rng(n), Entries: []*ast.MapEntry{}}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			m.Entries = append(m.Entries, &ast.MapEntry{Range: p.rng(k), Key: p.dsl(k, actions.KindAny, false),
				Value: elem(v)})
		}
		return m
	case yaml.ScalarNode:
	default:
		p.errorf(n, "unexpected YAML node")
		return &ast.NullLit{Range: p.rng(n)}
	}
	r := p.rng(n)
	switch n.Tag {
	case "!!null":
		return &ast.NullLit{Range: r}
	case "!!bool":
		if b, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			return &ast.BoolLit{Range: r, Value: b}
		}
	case "!!int", "!!float":
		if num := number(n.Value, r, n.Tag == "!!float"); num != nil {
			return num
		}
	}
	v := n.Value
	if (argPos && n.Style == 0) || kind == actions.KindDuration {
		if d, err := check.ParseDuration(v); err == nil {
			return &ast.DurationLit{Range: r, Raw: v, Value: d}
		}
	}
	return p.interp(n, v, r)
}

// interp splits a string value into a StringLit with parse.Template (the
// .flow parser's own splitter, so both front ends agree), lowering
// "{{ E }}" to E.
func (p *parser) interp(n *yaml.Node, v string, r ast.Range) ast.Expr {
	if src, ok := wholeInterp(v); ok {
		// The whole value is one {{ E }}: E may hold any quotes (a YAML
		// value is not bounded by '"' as a .flow string is), so scan it
		// with all of expr's string forms skipped.
		start := check.Advance(p.valueStart(n), v, 2)
		return &ast.ExprSrc{Range: ast.Range{File: p.file, Start: start,
			End: check.Advance(start, src, utf8.RuneCountInString(src))}, Source: src}
	}
	e, d := parse.Template(p.file, v, p.valueStart(n), false)
	if d != nil {
		if n.Line > 0 && (d.Subject.Start.Line != n.Line || strings.Contains(v, "\n")) {
			d.Subject = r
		}
		p.diags = append(p.diags, d)
		return &ast.StringLit{Range: r}
	}
	if s, ok := e.(*ast.StringLit); ok {
		s.Range = r
		s.Parts = openBraceParts(s.Parts)
	}
	return e
}

// openBraceParts turns `{{ '{' }}` parts of a multi-part string into the
// text "{" (merged with its neighbours). Write uses that spelling for a
// "{" just before an interpolation, which a YAML value cannot otherwise
// hold ("{{{ a }}" does not split); .flow writes it as "\x7b".
func openBraceParts(parts []ast.StringPart) []ast.StringPart {
	found := false
	for _, pt := range parts {
		if pt.Expr != nil && strings.TrimSpace(pt.Expr.Source) == "'{'" {
			found = true
		}
	}
	if !found {
		return parts
	}
	var out []ast.StringPart
	for _, pt := range parts {
		if pt.Expr != nil && strings.TrimSpace(pt.Expr.Source) == "'{'" {
			pt = ast.StringPart{Text: "{"}
		}
		if n := len(out); n > 0 && pt.Expr == nil && out[n-1].Expr == nil {
			out[n-1].Text += pt.Text
			continue
		}
		out = append(out, pt)
	}
	return out
}

// wholeInterp reports whether v is exactly one `{{ E }}` and returns E:
// the `}}` closing the first `{{` (nested braces and '...', "...", `...`
// strings skipped) is the end of v. `{{ '{{' }}` and an empty E are left
// to parse.Template (literal text and an error).
func wholeInterp(v string) (string, bool) {
	if !strings.HasPrefix(v, "{{") || !strings.HasSuffix(v, "}}") || len(v) < 4 {
		return "", false
	}
	depth := 0
	for i := 2; i < len(v); i++ {
		switch c := v[i]; c {
		case '"', '\'', '`':
			j := i + 1
			for j < len(v) && v[j] != c {
				if v[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j >= len(v) {
				return "", false
			}
			i = j
		case '{':
			depth++
		case '}':
			if depth > 0 {
				depth--
				continue
			}
			if i+1 < len(v) && v[i+1] == '}' && i+2 == len(v) {
				src := v[2:i]
				switch strings.TrimSpace(src) {
				case "", "'{{'":
					return "", false
				}
				return src, true
			}
			return "", false
		}
	}
	return "", false
}

// flowNumberRE is a number token of the .flow lexer, with an optional
// leading minus (which the .flow parser folds into the literal).
var flowNumberRE = regexp.MustCompile(`^-?(0[xX][0-9a-fA-F_]+|[0-9][0-9_]*(\.[0-9][0-9_]*)?([eE][-+]?[0-9]+)?)$`)

// flowNumber parses s the way the .flow parser does: hex or without
// '.', 'e', 'E' is an int64, else a float64; nil when s is not a .flow
// number or out of range.
func flowNumber(s string, r ast.Range) *ast.NumberLit {
	if !flowNumberRE.MatchString(s) {
		return nil
	}
	hex := strings.Contains(s, "x") || strings.Contains(s, "X")
	if hex || !strings.ContainsAny(s, ".eE") {
		i, err := strconv.ParseInt(s, 0, 64)
		if err != nil {
			return nil
		}
		return &ast.NumberLit{Range: r, Raw: s, Value: i}
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	if err != nil {
		return nil
	}
	return &ast.NumberLit{Range: r, Raw: s, Value: f}
}

// number reads a YAML !!int or !!float scalar. Spellings the .flow lexer
// does not know (0o17, +5, .5, 1_0.5e3 ...) get a canonical Raw, so the
// literal survives a trip through .flow; nil when s is not a finite number.
func number(s string, r ast.Range, float bool) *ast.NumberLit {
	if n := flowNumber(s, r); n != nil {
		if _, isF := n.Value.(float64); isF == float {
			return n
		}
	}
	clean := strings.ReplaceAll(s, "_", "")
	if !float {
		if i, err := strconv.ParseInt(clean, 0, 64); err == nil {
			return &ast.NumberLit{Range: r, Raw: strconv.FormatInt(i, 10), Value: i}
		}
		return nil
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	raw := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(raw, ".eE") {
		raw += ".0"
	}
	return &ast.NumberLit{Range: r, Raw: raw, Value: f}
}

// Lower applies the front ends' normalisation to a full expression: when
// its trimmed source is exactly one literal token (a number, true, false,
// null, nil, or one double-quoted string) it becomes that literal node;
// otherwise e itself is returned.
func Lower(e *ast.ExprSrc) ast.Expr {
	s := strings.TrimSpace(e.Source)
	lead := len(e.Source) - len(strings.TrimLeft(e.Source, " \t\r\n"))
	r := e.Range
	if lead > 0 {
		r.Start = check.Advance(r.Start, e.Source, utf8.RuneCountInString(e.Source[:lead]))
	}
	switch s {
	case "true", "false":
		return &ast.BoolLit{Range: r, Value: s == "true"}
	case "null", "nil":
		return &ast.NullLit{Range: r}
	}
	if num := flowNumber(s, r); num != nil {
		return num
	}
	if len(s) >= 2 && s[0] == '"' {
		if lit := quoted(s, r); lit != nil {
			return lit
		}
	}
	return e
}

// quoted turns an expr double-quoted string token (the whole of s) into
// what the .flow parser makes of it (parse.Template with Go unescaping);
// nil when s is not exactly one such token or does not unescape.
func quoted(s string, r ast.Range) ast.Expr {
	if !strings.HasPrefix(s, `"`) {
		return nil
	}
	end := -1
	for j := 1; j < len(s); j++ {
		if s[j] == '\\' {
			j++
			continue
		}
		if s[j] == '"' {
			end = j
			break
		}
	}
	if end != len(s)-1 || !utf8.ValidString(s) {
		return nil
	}
	e, d := parse.Template(r.File, s[1:end], check.Advance(r.Start, s, 1), true)
	if d != nil {
		return nil
	}
	if sl, ok := e.(*ast.StringLit); ok {
		sl.Range = r
	}
	return e
}

// expr reads an expression-source position (set, if, while, in, assert,
// return, until): the scalar's text is expr source, lowered by Lower.
func (p *parser) expr(n *yaml.Node, what string) ast.Expr {
	if n.Kind != yaml.ScalarNode {
		p.errorf(n, "%s takes expression text, got %s", what, kindName(n))
		return &ast.NullLit{Range: p.rng(n)}
	}
	if n.Tag == "!!null" && n.Value != "null" {
		p.errorf(n, "%s needs an expression", what)
		return &ast.NullLit{Range: p.rng(n)}
	}
	start := p.valueStart(n)
	e := &ast.ExprSrc{Source: n.Value, Range: ast.Range{File: p.file, Start: start,
		End: check.Advance(start, n.Value, utf8.RuneCountInString(n.Value))}}
	return Lower(e)
}
