package interp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/vm"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/stdlib"
)

// stringify is how a value shows inside "{{ }}" (lang.Stringify).
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
		for _, p := range x.Parts {
			if p.Expr == nil {
				b.WriteString(p.Text)
				continue
			}
			v, err := r.run(fr, p.Expr, sc)
			if err != nil {
				return nil, err
			}
			s := stringify(v)
			if quote != nil {
				s = quote(s)
			}
			b.WriteString(s)
		}
		return b.String(), nil
	case *ast.ListLit:
		out := make([]any, len(x.Elems))
		for i, el := range x.Elems {
			v, err := r.eval(fr, el, sc)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *ast.MapLit:
		out := make(map[string]any, len(x.Entries))
		for _, en := range x.Entries {
			k, err := r.eval(fr, en.Key, sc)
			if err != nil {
				return nil, err
			}
			ks, ok := k.(string)
			if !ok {
				ks = stringify(k)
			}
			v, err := r.eval(fr, en.Value, sc)
			if err != nil {
				return nil, err
			}
			out[ks] = v
		}
		return out, nil
	}
	return literal(e)
}

// literal evaluates a literal without an environment (param defaults,
// `defaults` values). Integers are int, as in the expression env.
func literal(e ast.Expr) (any, error) {
	switch x := e.(type) {
	case nil:
		return nil, nil
	case *ast.StringLit:
		if v, ok := x.Value(); ok {
			return v, nil
		}
		return nil, fmt.Errorf("not a literal: string with {{ }}")
	case *ast.NumberLit:
		switch n := x.Value.(type) {
		case int64:
			return int(n), nil
		case int:
			return n, nil
		case float64:
			return n, nil
		}
		return x.Value, nil
	case *ast.BoolLit:
		return x.Value, nil
	case *ast.NullLit:
		return nil, nil
	case *ast.DurationLit:
		return x.Value, nil
	case *ast.ListLit:
		out := make([]any, len(x.Elems))
		for i, el := range x.Elems {
			v, err := literal(el)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case *ast.MapLit:
		out := make(map[string]any, len(x.Entries))
		for _, en := range x.Entries {
			k, err := literal(en.Key)
			if err != nil {
				return nil, err
			}
			v, err := literal(en.Value)
			if err != nil {
				return nil, err
			}
			out[stringify(k)] = v
		}
		return out, nil
	}
	return nil, fmt.Errorf("not a literal: %T", e)
}

// run evaluates one compiled expression.
func (r *runner) run(fr *frame, x *ast.ExprSrc, sc *Scope) (any, error) {
	var prog *vm.Program
	if fr.flow.prog != nil {
		prog = fr.flow.prog(x)
	}
	if prog == nil {
		var err error
		if prog, err = r.compileFallback(x); err != nil {
			return nil, errAt(x, stdlib.KindExpression, "", err, "%s", err)
		}
	}
	env := sc.flatten(r.addBuiltins)
	v, err := r.vm.Run(prog, env)
	if err != nil {
		if ctxErr := r.ctx.Err(); ctxErr != nil {
			return nil, r.cancelled(x, ctxErr)
		}
		msg := firstLine(err.Error())
		var fe *file.Error
		if errors.As(err, &fe) {
			msg = fe.Message
			if fe.Prev != nil {
				msg = fe.Prev.Error()
			}
		}
		return nil, errAt(x, stdlib.KindExpression, "", err, "%s: %s", strings.TrimSpace(x.Source), msg)
	}
	// A string computed from a secret that does not show it verbatim
	// (upper(password), a hash ...) is a secret itself.
	if str, ok := v.(string); ok && str != "" && !r.mask.Empty() && !r.hasSecret(str) && r.derivesSecret(x, sc) {
		r.mask.Add(str)
	}
	return v, nil
}

// derivesSecret reports whether x reads a name whose value holds a secret:
// its string result is then a secret too (taint through expressions; a
// value computed from a secret and returned as a number or inside a list is
// not followed).
func (r *runner) derivesSecret(x *ast.ExprSrc, sc *Scope) bool {
	names, ok := r.idents[x]
	if !ok {
		names = identifiers(x.Source)
		if r.idents == nil {
			r.idents = map[*ast.ExprSrc][]string{}
		}
		r.idents[x] = names
	}
	for _, n := range names {
		if v, ok := sc.Lookup(n); ok {
			if s, isStr := v.(string); isStr && r.hasSecret(s) {
				return true
			}
		}
	}
	return false
}

// hasSecret reports whether s holds a registered secret.
func (r *runner) hasSecret(s string) bool {
	return s != "" && !r.mask.Empty() && r.mask.String(s) != s
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

// compileFallback compiles an expression the loaded flow has no program for
// (only flows built without lang.Load); cached per node.
func (r *runner) compileFallback(x *ast.ExprSrc) (*vm.Program, error) {
	if p, ok := r.compiled[x]; ok {
		return p, nil
	}
	p, err := expr.Compile(x.Source)
	if err != nil {
		return nil, err
	}
	if r.compiled == nil {
		r.compiled = map[*ast.ExprSrc]*vm.Program{}
	}
	r.compiled[x] = p
	return p, nil
}

// kindOf is the result error kind of any error.
func kindOf(err error) string {
	var re *RunError
	if errors.As(err, &re) {
		return re.Kind
	}
	if errors.Is(err, context.Canceled) {
		return KindCancelled
	}
	var se *stdlib.Error
	if errors.As(err, &se) {
		return se.Kind
	}
	return string(drivers.KindOf(err))
}

// asRunError turns any error into the positioned *RunError of the run.
func (r *runner) asRunError(err error, fl flowInfo) *RunError {
	var re *RunError
	if errors.As(err, &re) {
		if re.File == "" {
			re.File = fl.path
		}
		return re
	}
	return &RunError{Message: err.Error(), Line: fl.file.Range.Start.Line, File: fl.path, Code: FlowFailedCode, Kind: kindOf(err), cause: err}
}
