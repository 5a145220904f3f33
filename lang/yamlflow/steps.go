package yamlflow

import (
	"slices"

	"gopkg.in/yaml.v3"

	"github.com/rpa-dev/rpa/lang/actions"
	"github.com/rpa-dev/rpa/lang/ast"
)

// controlKeys are the step keys that are not actions, with the other keys
// each accepts.
var controlKeys = map[string][]string{
	"set":      nil,
	"if":       {"then", "else"},
	"for":      {"in", "do"},
	"while":    {"do"},
	"try":      {"catch"},
	"retry":    {"every", "do"},
	"frame":    {"do"},
	"return":   nil,
	"fail":     nil,
	"assert":   {"message"},
	"log":      nil,
	"break":    nil,
	"continue": nil,
}

func (p *parser) steps(n *yaml.Node) []ast.Stmt {
	if n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, "steps must be a list, got %s", kindName(n))
		return nil
	}
	out := []ast.Stmt{}
	for _, sn := range n.Content {
		out = append(out, p.step(sn)...)
	}
	return out
}

func (p *parser) step(n *yaml.Node) []ast.Stmt {
	r := p.rng(n)
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag != "!!str" {
			p.errorf(n, "a step is an action name or a map, got %s", n.Value)
			return nil
		}
		switch n.Value {
		case "break":
			return []ast.Stmt{&ast.BreakStmt{Range: r}}
		case "continue":
			return []ast.Stmt{&ast.ContinueStmt{Range: r}}
		case "return":
			return []ast.Stmt{&ast.ReturnStmt{Range: r}}
		}
		if _, ok := controlKeys[n.Value]; ok {
			p.errorf(n, "%s needs a value", n.Value)
			return nil
		}
		return []ast.Stmt{&ast.ActionStmt{Range: r, Action: n.Value, ActionRange: r}}
	case yaml.MappingNode:
	default:
		p.errorf(n, "a step is a map with one action or control key, got %s", kindName(n))
		return nil
	}
	if len(n.Content) == 0 {
		p.errorf(n, "empty step")
		return nil
	}
	main := -1
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := n.Content[i].Value; k != "as" && k != "args" {
			main = i
			break
		}
	}
	if main < 0 {
		p.errorf(n, "step has no action or control key")
		return nil
	}
	key, val := n.Content[main], n.Content[main+1]
	// rest are the other keys, in order.
	var rest [][2]*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if i != main {
			rest = append(rest, [2]*yaml.Node{n.Content[i], n.Content[i+1]})
		}
	}
	if allowed, ok := controlKeys[key.Value]; ok {
		return p.control(n, key, val, rest, allowed)
	}
	return []ast.Stmt{p.action(n, key, val, rest)}
}

func (p *parser) control(n, key, val *yaml.Node, rest [][2]*yaml.Node, allowed []string) []ast.Stmt {
	r := p.rng(n)
	aux := map[string]*yaml.Node{}
	for _, kv := range rest {
		k := kv[0].Value
		if !slices.Contains(allowed, k) {
			d := p.errorf(kv[0], "%s does not take key %q", key.Value, k)
			if len(allowed) > 0 {
				suggestKey(d, k, allowed)
			}
			continue
		}
		aux[k] = kv[1]
	}
	body := func(k string) []ast.Stmt {
		if b := aux[k]; b != nil {
			return p.steps(b)
		}
		return nil
	}
	switch key.Value {
	case "set":
		if val.Kind != yaml.MappingNode || len(val.Content) == 0 {
			p.errorf(val, "set takes a map of NAME: EXPRESSION")
			return nil
		}
		var out []ast.Stmt
		for i := 0; i+1 < len(val.Content); i += 2 {
			k, v := val.Content[i], val.Content[i+1]
			out = append(out, &ast.AssignStmt{Range: p.rng(k), Name: k.Value, NameRange: p.rng(k), Value: p.expr(v, "set")})
		}
		return out
	case "if":
		s := &ast.IfStmt{Range: r, Cond: p.expr(val, "if"), Then: body("then"), Else: body("else")}
		if aux["then"] == nil {
			p.errorf(key, "if needs then:")
		}
		return []ast.Stmt{s}
	case "for":
		s := &ast.ForStmt{Range: r, Body: body("do")}
		if v, ok := p.str(val, "for variable"); ok {
			s.Var, s.VarRange = v, p.rng(val)
		}
		if in := aux["in"]; in != nil {
			s.Iter = p.expr(in, "in")
		} else {
			p.errorf(key, "for needs in: EXPRESSION")
			s.Iter = &ast.NullLit{Range: p.rng(key)}
		}
		return []ast.Stmt{s}
	case "while":
		return []ast.Stmt{&ast.WhileStmt{Range: r, Cond: p.expr(val, "while"), Body: body("do")}}
	case "try":
		s := &ast.TryStmt{Range: r, Body: p.steps(val)}
		c := aux["catch"]
		if c == nil {
			p.errorf(key, "try needs catch: {as: NAME, do: [...]}")
			return []ast.Stmt{s}
		}
		if c.Kind != yaml.MappingNode {
			p.errorf(c, "catch takes {as: NAME, do: [...]}")
			return []ast.Stmt{s}
		}
		for i := 0; i+1 < len(c.Content); i += 2 {
			k, v := c.Content[i], c.Content[i+1]
			switch k.Value {
			case "as":
				if name, ok := p.str(v, "catch as"); ok {
					s.CatchVar, s.CatchVarRange = name, p.rng(v)
				}
			case "do":
				s.Catch = p.steps(v)
			default:
				suggestKey(p.errorf(k, "catch does not take key %q", k.Value), k.Value, []string{"as", "do"})
			}
		}
		if s.CatchVar == "" {
			p.errorf(c, "catch needs as: NAME")
		}
		return []ast.Stmt{s}
	case "retry":
		s := &ast.RetryStmt{Range: r, Count: p.dsl(val, actions.KindInt, true), Body: body("do")}
		if e := aux["every"]; e != nil {
			s.Every = p.dsl(e, actions.KindDuration, true)
		}
		return []ast.Stmt{s}
	case "frame":
		return []ast.Stmt{&ast.FrameStmt{Range: r, Selector: p.dsl(val, actions.KindSelector, true), Body: body("do")}}
	case "return":
		s := &ast.ReturnStmt{Range: r}
		if !(val.Tag == "!!null" && val.Value != "null") {
			s.Value = p.expr(val, "return")
		}
		return []ast.Stmt{s}
	case "fail":
		return []ast.Stmt{&ast.FailStmt{Range: r, Message: p.dsl(val, actions.KindAny, false)}}
	case "log":
		return []ast.Stmt{&ast.LogStmt{Range: r, Value: p.dsl(val, actions.KindAny, false)}}
	case "assert":
		s := &ast.AssertStmt{Range: r, Cond: p.expr(val, "assert")}
		if m := aux["message"]; m != nil {
			s.Message = p.dsl(m, actions.KindAny, false)
		}
		return []ast.Stmt{s}
	case "break", "continue":
		if val.Tag != "!!null" {
			p.errorf(val, "%s takes no value", key.Value)
		}
		if key.Value == "break" {
			return []ast.Stmt{&ast.BreakStmt{Range: r}}
		}
		return []ast.Stmt{&ast.ContinueStmt{Range: r}}
	}
	return nil
}

func (p *parser) action(n, key, val *yaml.Node, rest [][2]*yaml.Node) *ast.ActionStmt {
	s := &ast.ActionStmt{Range: p.rng(n), Action: key.Value, ActionRange: p.rng(key)}
	a := actions.Lookup(key.Value)
	argKind := func(i int) actions.Kind {
		if a != nil && i < len(a.Params) {
			return a.Params[i].Kind
		}
		return actions.KindAny
	}
	addArgs := func(v *yaml.Node) {
		switch v.Kind {
		case yaml.SequenceNode:
			for i, e := range v.Content {
				s.Args = append(s.Args, p.arg(e, argKind(i)))
			}
		default:
			if v.Tag == "!!null" && v.Kind == yaml.ScalarNode {
				return
			}
			s.Args = append(s.Args, p.arg(v, argKind(0)))
		}
	}
	var opts [][2]*yaml.Node
	if val.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(val.Content); i += 2 {
			k, v := val.Content[i], val.Content[i+1]
			if k.Value == "args" {
				addArgs(v)
				continue
			}
			opts = append(opts, [2]*yaml.Node{k, v})
		}
	} else {
		addArgs(val)
	}
	for _, kv := range rest {
		k, v := kv[0], kv[1]
		switch k.Value {
		case "as":
			if name, ok := p.str(v, "as"); ok {
				s.Target, s.TargetRange = name, p.rng(v)
			}
		case "args":
			addArgs(v)
		default:
			opts = append(opts, kv)
		}
	}
	for _, kv := range opts {
		k, v := kv[0], kv[1]
		o := &ast.Option{Range: p.rng(k), Name: k.Value, NameRange: p.rng(k)}
		kind := actions.KindAny
		if a != nil {
			if spec := a.Option(k.Value); spec != nil {
				kind = spec.Kind
			}
		}
		if kind == actions.KindExpr {
			o.Value = p.expr(v, k.Value)
		} else {
			o.Value = p.dslElems(v, kind)
		}
		s.Options = append(s.Options, o)
	}
	return s
}

// arg reads one positional argument: a nested list is a ListLit (fallback
// selectors), a map a MapLit, a scalar a DSL value. For call the flow name
// stays a bare StringLit.
func (p *parser) arg(n *yaml.Node, kind actions.Kind) ast.Expr {
	if kind == actions.KindFlowName && n.Kind == yaml.ScalarNode {
		return &ast.StringLit{Range: p.rng(n), Parts: []ast.StringPart{{Text: n.Value}}}
	}
	return p.dslElems(n, kind)
}
