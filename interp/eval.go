package interp

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	exprast "github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/check"
)

func stringify(v any) string { return lang.Stringify(v) }

// eval evaluates an argument, option value or full expression in sc.
func (r *runner) eval(fr *frame, e ast.Expr, sc *Scope) (any, error) {
	return r.evalQ(fr, e, sc, nil)
}

// evalQ is eval with quote applied to every interpolated value of a
// string literal (exec's shell command).
func (r *runner) evalQ(fr *frame, e ast.Expr, sc *Scope, quote func(string) string) (any, error) {
	switch x := e.(type) {
	case *ast.ExprSrc:
		return r.run(fr, x, sc)
	case *ast.StringLit:
		if len(x.Parts) == 1 && x.Parts[0].Expr != nil && quote == nil {
			return r.run(fr, x.Parts[0].Expr, sc)
		}
		if len(x.Parts) == 1 {
			return x.Parts[0].Text, nil
		}
		var b strings.Builder
		short := false
		for _, p := range x.Parts {
			if p.Expr == nil {
				b.WriteString(p.Text)
				continue
			}
			v, d, err := r.runT(fr, p.Expr, sc)
			if err != nil {
				return nil, err
			}
			s := stringify(v)
			// A derived part too short to be masked inside longer
			// strings taints the whole string.
			short = short || d && utf8.RuneCountInString(s) < MinSubstring
			if quote != nil {
				s = quote(s)
			}
			b.WriteString(s)
		}
		if short { // "login?p={{ token }}" with a short token
			r.mask.Add(b.String())
		}
		return b.String(), nil
	case *ast.ListLit, *ast.MapLit:
		return lang.Collection(e, func(el ast.Expr) (any, error) { return r.eval(fr, el, sc) })
	}
	return lang.Literal(e)
}

// run evaluates one compiled expression.
func (r *runner) run(fr *frame, x *ast.ExprSrc, sc *Scope) (any, error) {
	v, _, err := r.runT(fr, x, sc)
	return v, err
}

// runT is run that also reports whether the value derives from a secret
// (the expression read a name holding one); such a value is registered
// with the masker as a whole (every string and number inside it), and an
// error of such an expression does not show the values it names.
func (r *runner) runT(fr *frame, x *ast.ExprSrc, sc *Scope) (any, bool, error) {
	prog := fr.flow.Program(x)
	if prog == nil {
		// Only a Flow not made by lang.Load or lang.Check lacks one.
		return nil, false, errAt(x, core.KindExpression, "", nil,
			"%s: the expression was never checked (a flow must come from lang.Load or lang.Check)", strings.TrimSpace(x.Source))
	}
	env := sc.flatten(r.addBuiltins)
	v, err := r.vm.Run(prog, env)
	if err != nil {
		if ctxErr := r.ctx.Err(); ctxErr != nil {
			return nil, false, r.cancelled(x, ctxErr)
		}
		if r.derivesSecret(x, sc) {
			// The message may spell a value computed from the secret
			// (int(DEMO-PASS-42)); keep only where it failed.
			return nil, true, errAt(x, core.KindExpression, "", nil,
				"%s: failed (details hidden: the expression reads a secret)", strings.TrimSpace(x.Source))
		}
		msg := firstLine(err.Error())
		var fe *file.Error
		if errors.As(err, &fe) {
			msg = fe.Message
			if fe.Prev != nil {
				msg = fe.Prev.Error()
			}
		}
		if h, ok := check.ListPlusHint(msg); ok {
			msg = h
		}
		return nil, false, errAt(x, core.KindExpression, "", err, "%s: %s", strings.TrimSpace(x.Source), msg)
	}
	// A value computed from a secret (upper(password), password[1:],
	// split(password, "-"), len(password)) is a secret itself.
	if r.derivesSecret(x, sc) {
		r.taint(prog.Node(), v, sc)
		return v, true, nil
	}
	return v, false, nil
}

// taint registers as secret what of v (the value of node) derives from a
// secret: the elements of a list literal and the values of a map literal
// one by one (return {"user": user, "pw": upper(pw)} keeps user shown),
// any other value as a whole when node reads a name holding a secret.
func (r *runner) taint(node exprast.Node, v any, sc *Scope) {
	switch n := node.(type) {
	case *exprast.IdentifierNode:
		return // a name's value, its secrets already registered
	case *exprast.MemberNode:
		if str, isStr := v.(string); !n.Method && plainPath(n) && (!isStr || utf8.RuneCountInString(str) > 1) {
			return // part of a name's value (res.k, rows[0]), not password[0]
		}
	case *exprast.ArrayNode:
		if l, ok := v.([]any); ok && len(l) == len(n.Nodes) {
			for i, e := range n.Nodes {
				r.taint(e, l[i], sc)
			}
			return
		}
	case *exprast.MapNode:
		if m, ok := v.(map[string]any); ok && len(m) == len(n.Pairs) {
			keyed := true
			for _, p := range n.Pairs {
				pn, ok := p.(*exprast.PairNode)
				if !ok {
					keyed = false
					break
				}
				if k, ok := pn.Key.(*exprast.StringNode); !ok {
					keyed = false
					break
				} else if _, ok := m[k.Value]; !ok {
					keyed = false
					break
				}
			}
			if keyed {
				for _, p := range n.Pairs {
					pn := p.(*exprast.PairNode)
					r.taint(pn.Value, m[pn.Key.(*exprast.StringNode).Value], sc)
				}
				return
			}
		}
	}
	if node == nil || r.readsSecret(node, sc) {
		r.mask.addDerived(v)
	}
}

// plainPath reports whether n is a chain of member accesses with
// constant keys on a name (a.b["c"][0]), which computes nothing new.
func plainPath(n exprast.Node) bool {
	for {
		switch x := n.(type) {
		case *exprast.IdentifierNode:
			return true
		case *exprast.MemberNode:
			switch x.Property.(type) {
			case *exprast.StringNode, *exprast.IntegerNode:
			default:
				return false
			}
			n = x.Node
		default:
			return false
		}
	}
}

// readsSecret reports whether the expression node reads a name whose
// value holds a secret.
func (r *runner) readsSecret(node exprast.Node, sc *Scope) bool {
	found := false
	exprast.Walk(&node, visitFunc(func(n *exprast.Node) {
		if id, ok := (*n).(*exprast.IdentifierNode); ok && !found {
			if v, ok := sc.Lookup(id.Value); ok && r.held.holds(r.mask, v) {
				found = true
			}
		}
	}))
	return found
}

// visitFunc adapts a function to expr's ast.Visitor.
type visitFunc func(*exprast.Node)

// Visit calls f.
func (f visitFunc) Visit(n *exprast.Node) { f(n) }

// derivesSecret reports whether x reads a name whose value holds a secret
// (a secret, or a value registered as derived from one: taint follows
// assignments through the values themselves).
func (r *runner) derivesSecret(x *ast.ExprSrc, sc *Scope) bool {
	if r.mask.Empty() {
		return false
	}
	names, ok := r.idents[x]
	if !ok {
		names = identifiers(x.Source)
		if r.idents == nil {
			r.idents = map[*ast.ExprSrc][]string{}
		}
		r.idents[x] = names
	}
	for _, n := range names {
		if v, ok := sc.Lookup(n); ok && r.held.holds(r.mask, v) {
			return true
		}
	}
	return false
}

// identifiers lists the names an expression source reads: identifiers
// outside string literals and not after a '.' (field names).
func identifiers(src string) []string {
	var out []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(src) && src[j] != c {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			i = j + 1
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= '0' && src[j] <= '9') {
				j++
			}
			k := i - 1
			for k >= 0 && (src[k] == ' ' || src[k] == '\t') {
				k--
			}
			if k < 0 || src[k] != '.' || (k > 0 && src[k-1] == '.') {
				out = append(out, src[i:j])
			}
			i = j
		case c >= '0' && c <= '9':
			for i < len(src) && (src[i] == '.' || src[i] == '_' || src[i] >= '0' && src[i] <= '9' || src[i] >= 'a' && src[i] <= 'z' || src[i] >= 'A' && src[i] <= 'Z') {
				i++
			}
		default:
			i++
		}
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// addBuiltins adds page, dialogs and ctx to an env being built.
func (r *runner) addBuiltins(m map[string]any) {
	m["page"] = r.pageFns
	m["dialogs"] = r.dialogFn
	m["ctx"] = r.ctx
}

// kindOf is the result error kind of any error: core.KindOf, but a
// *RunError keeps its kind and a cancelled context is KindCancelled.
func kindOf(err error) core.Kind {
	var re *RunError
	if errors.As(err, &re) {
		return re.Kind
	}
	if errors.Is(err, context.Canceled) {
		return core.KindCancelled
	}
	return core.KindOf(err)
}

// asRunError turns any error into the positioned *RunError of the run.
func (r *runner) asRunError(err error, fl *lang.Flow) *RunError {
	var re *RunError
	if errors.As(err, &re) {
		if re.File == "" {
			re.File = fl.Path
		}
		return re
	}
	return &RunError{Message: err.Error(), Line: fl.File.Range.Start.Line, File: fl.Path, Code: FlowFailedCode, Kind: kindOf(err), cause: err}
}
