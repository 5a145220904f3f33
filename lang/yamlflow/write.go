package yamlflow

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
)

// Write renders f as canonical YAML (LANGUAGE.md "YAML form"): header keys
// in the order flow, description, params, defaults, steps; params and
// defaults in flow style; each step a map led by its action or control key.
// Non-literal arguments are written as "{{ E }}"; expression positions
// (set, if, while, in, assert, return, until) as expression text. Comments
// are not kept. Parsing the output gives an ast.Equal tree.
func Write(f *ast.File) []byte {
	root := mapping(false)
	add(root, "flow", str(f.Name))
	if f.Description != "" {
		add(root, "description", str(f.Description))
	}
	if len(f.Params) > 0 {
		ps := seq(false)
		for _, p := range f.Params {
			if p == nil {
				continue
			}
			m := mapping(true)
			add(m, "name", str(p.Name))
			if p.Type != nil {
				add(m, "type", str(p.Type.Name))
				if p.Type.Values != nil {
					vs := seq(true)
					for _, v := range p.Type.Values {
						vs.Content = append(vs.Content, str(v))
					}
					add(m, "values", vs)
				}
			}
			if p.Default != nil {
				add(m, "default", dsl(p.Default))
			}
			if p.Description != "" {
				add(m, "description", str(p.Description))
			}
			ps.Content = append(ps.Content, m)
		}
		add(root, "params", ps)
	}
	if len(f.Defaults) > 0 {
		m := mapping(true)
		for _, o := range f.Defaults {
			if o != nil {
				add(m, o.Name, dsl(o.Value))
			}
		}
		add(root, "defaults", m)
	}
	add(root, "steps", steps(f.Body))
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(root); err != nil {
		// Only invalid UTF-8 can get here; say so in the output rather
		// than lose the flow silently.
		return []byte(fmt.Sprintf("# rpa: cannot write YAML: %v\n", err))
	}
	enc.Close()
	return buf.Bytes()
}

func mapping(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func seq(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func add(m *yaml.Node, key string, v *yaml.Node) {
	m.Content = append(m.Content, str(key), v)
}

func str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.ContainsAny(s, "\n\r\t") || strings.TrimSpace(s) != s {
		// yaml.v3 loses a leading blank line in literal blocks; double
		// quotes keep every character.
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func scalar(tag, v string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: v}
}

// dsl renders a value as a DSL value.
func dsl(e ast.Expr) *yaml.Node {
	switch x := e.(type) {
	case nil:
		return scalar("!!null", "null")
	case *ast.StringLit:
		var b strings.Builder
		for i, p := range x.Parts {
			if p.Expr != nil {
				b.WriteString("{{" + p.Expr.Source + "}}")
				continue
			}
			t := escapeBraces(p.Text)
			if i+1 < len(x.Parts) && x.Parts[i+1].Expr != nil && strings.HasSuffix(t, "{") {
				// "{" right before "{{" would merge with it.
				t = t[:len(t)-1] + "{{ '{' }}"
			}
			b.WriteString(t)
		}
		n := str(b.String())
		if _, err := check.ParseDuration(n.Value); err == nil || yaml11Bool[strings.ToLower(n.Value)] {
			// Keep it a string: not a duration here, and not a bool for
			// YAML 1.1 readers.
			n.Style = yaml.DoubleQuotedStyle
		}
		return n
	case *ast.NumberLit:
		if _, ok := x.Value.(float64); ok {
			return scalar("!!float", x.Raw)
		}
		return scalar("!!int", x.Raw)
	case *ast.BoolLit:
		return scalar("!!bool", strconv.FormatBool(x.Value))
	case *ast.NullLit:
		return scalar("!!null", "null")
	case *ast.DurationLit:
		return str(x.Raw)
	case *ast.ListLit:
		n := seq(true)
		for _, el := range x.Elems {
			n.Content = append(n.Content, dsl(el))
		}
		return n
	case *ast.MapLit:
		n := mapping(true)
		for _, en := range x.Entries {
			if en != nil {
				n.Content = append(n.Content, dsl(en.Key), dsl(en.Value))
			}
		}
		return n
	case *ast.ExprSrc:
		return str("{{ " + strings.TrimSpace(x.Source) + " }}")
	}
	return scalar("!!null", "null")
}

// exprNode renders a value in an expression-source position.
func exprNode(e ast.Expr) *yaml.Node {
	switch x := e.(type) {
	case *ast.NumberLit, *ast.BoolLit, *ast.NullLit:
		return dsl(x)
	}
	return str(ExprText(e))
}

// ExprText renders a value as expr source text: literals in expr syntax
// (strings double-quoted with their {{ }} parts kept), lists and maps
// bracketed, a duration as duration("..."), ExprSrc trimmed.
func ExprText(e ast.Expr) string {
	switch x := e.(type) {
	case nil:
		return "nil"
	case *ast.ExprSrc:
		return strings.TrimSpace(x.Source)
	case *ast.StringLit:
		var b strings.Builder
		b.WriteByte('"')
		for i, p := range x.Parts {
			if p.Expr != nil {
				b.WriteString("{{" + p.Expr.Source + "}}")
				continue
			}
			q := strconv.Quote(p.Text)
			t := escapeBraces(q[1 : len(q)-1])
			if i+1 < len(x.Parts) && x.Parts[i+1].Expr != nil && strings.HasSuffix(t, "{") {
				t = t[:len(t)-1] + `\x7b` // as .flow writes it
			}
			b.WriteString(t)
		}
		b.WriteByte('"')
		return b.String()
	case *ast.NumberLit:
		return x.Raw
	case *ast.BoolLit:
		return strconv.FormatBool(x.Value)
	case *ast.NullLit:
		return "null"
	case *ast.DurationLit:
		return `duration("` + x.Raw + `")`
	case *ast.ListLit:
		var parts []string
		for _, el := range x.Elems {
			parts = append(parts, ExprText(el))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case *ast.MapLit:
		var parts []string
		for _, en := range x.Entries {
			if en != nil {
				parts = append(parts, ExprText(en.Key)+": "+ExprText(en.Value))
			}
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return "nil"
}

func steps(body []ast.Stmt) *yaml.Node {
	n := seq(false)
	if len(body) == 0 {
		n.Style = yaml.FlowStyle
	}
	for _, s := range body {
		if s != nil {
			n.Content = append(n.Content, step(s))
		}
	}
	return n
}

func step(s ast.Stmt) *yaml.Node {
	m := mapping(false)
	switch s := s.(type) {
	case *ast.ActionStmt:
		return actionStep(s)
	case *ast.AssignStmt:
		set := mapping(true)
		add(set, s.Name, exprNode(s.Value))
		add(m, "set", set)
	case *ast.IfStmt:
		add(m, "if", exprNode(s.Cond))
		add(m, "then", steps(s.Then))
		if len(s.Else) > 0 {
			add(m, "else", steps(s.Else))
		}
	case *ast.ForStmt:
		add(m, "for", str(s.Var))
		add(m, "in", exprNode(s.Iter))
		add(m, "do", steps(s.Body))
	case *ast.WhileStmt:
		add(m, "while", exprNode(s.Cond))
		add(m, "do", steps(s.Body))
	case *ast.BreakStmt:
		return str("break")
	case *ast.ContinueStmt:
		return str("continue")
	case *ast.TryStmt:
		add(m, "try", steps(s.Body))
		c := mapping(false)
		add(c, "as", str(s.CatchVar))
		add(c, "do", steps(s.Catch))
		add(m, "catch", c)
	case *ast.RetryStmt:
		add(m, "retry", dsl(s.Count))
		if s.Every != nil {
			add(m, "every", dsl(s.Every))
		}
		add(m, "do", steps(s.Body))
	case *ast.FrameStmt:
		add(m, "frame", dsl(s.Selector))
		add(m, "do", steps(s.Body))
	case *ast.ReturnStmt:
		if s.Value == nil {
			return str("return")
		}
		add(m, "return", exprNode(s.Value))
	case *ast.FailStmt:
		add(m, "fail", dsl(s.Message))
	case *ast.AssertStmt:
		add(m, "assert", exprNode(s.Cond))
		if s.Message != nil {
			add(m, "message", dsl(s.Message))
		}
	case *ast.LogStmt:
		add(m, "log", dsl(s.Value))
	}
	return m
}

func actionStep(s *ast.ActionStmt) *yaml.Node {
	a := actions.Lookup(s.Action)
	optNode := func(o *ast.Option) *yaml.Node {
		if a != nil {
			if spec := a.Option(o.Name); spec != nil && spec.Kind == actions.KindExpr {
				return exprNode(o.Value)
			}
		}
		return dsl(o.Value)
	}
	if len(s.Args) == 0 && len(s.Options) == 0 && s.Target == "" {
		return str(s.Action)
	}
	m := mapping(false)
	asOption := false
	for _, o := range s.Options {
		if o != nil && o.Name == "as" {
			asOption = true // at step level it would read back as the target
		}
	}
	switch {
	case asOption:
		opts := mapping(true)
		if len(s.Args) > 0 {
			l := seq(true)
			for i := range s.Args {
				l.Content = append(l.Content, argNode(s, i))
			}
			add(opts, "args", l)
		}
		for _, o := range s.Options {
			if o != nil {
				add(opts, o.Name, optNode(o))
			}
		}
		add(m, s.Action, opts)
		if s.Target != "" {
			add(m, "as", str(s.Target))
		}
		return m
	case len(s.Args) == 0 && len(s.Options) > 0:
		opts := mapping(true)
		for _, o := range s.Options {
			if o != nil {
				add(opts, o.Name, optNode(o))
			}
		}
		add(m, s.Action, opts)
		if s.Target != "" {
			add(m, "as", str(s.Target))
		}
		return m
	case len(s.Args) == 0:
		add(m, s.Action, scalar("!!null", ""))
	case len(s.Args) == 1 && !isCompound(s.Args[0]) && !isNull(s.Args[0]):
		add(m, s.Action, argNode(s, 0))
	default:
		l := seq(true)
		for i := range s.Args {
			l.Content = append(l.Content, argNode(s, i))
		}
		add(m, s.Action, l)
	}
	if s.Target != "" {
		add(m, "as", str(s.Target))
	}
	for _, o := range s.Options {
		if o != nil {
			add(m, o.Name, optNode(o))
		}
	}
	return m
}

// isNull: a lone null argument must be written as [null]; `ACTION: null`
// means no arguments.
func isNull(e ast.Expr) bool {
	_, ok := e.(*ast.NullLit)
	return ok
}

func isCompound(e ast.Expr) bool {
	switch e.(type) {
	case *ast.ListLit, *ast.MapLit:
		return true
	}
	return false
}

func argNode(s *ast.ActionStmt, i int) *yaml.Node {
	if actions.IsFlowArg(s.Action, i) {
		if lit, ok := s.Args[0].(*ast.StringLit); ok {
			if v, ok := lit.Value(); ok {
				return str(v)
			}
		}
	}
	return dsl(s.Args[i])
}

// yaml11Bool are the plain scalars YAML 1.1 reads as booleans (yaml.v3
// reads them as strings); Write quotes them.
var yaml11Bool = map[string]bool{"y": true, "n": true, "yes": true, "no": true, "on": true, "off": true}

// escapeBraces writes a literal "{{" of a text part as {{ '{{' }}, which
// both front ends read back as the text "{{".
func escapeBraces(s string) string {
	return strings.ReplaceAll(s, "{{", "{{ '{{' }}")
}
