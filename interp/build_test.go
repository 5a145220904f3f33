package interp

import (
	"fmt"
	"time"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
)

// Small AST builders for tests that must not depend on the parser.

// e converts a Go value to an argument expression: string → StringLit
// (with "{{ x }}" parts split out), int/float → NumberLit, bool,
// time.Duration, nil → NullLit, []any → ListLit, ast.Expr as is.
func e(v any) ast.Expr {
	switch x := v.(type) {
	case ast.Expr:
		return x
	case string:
		return interp(x)
	case int:
		return &ast.NumberLit{Raw: fmt.Sprint(x), Value: int64(x)}
	case float64:
		return &ast.NumberLit{Raw: fmt.Sprint(x), Value: x}
	case bool:
		return &ast.BoolLit{Value: x}
	case time.Duration:
		return &ast.DurationLit{Raw: x.String(), Value: x}
	case nil:
		return &ast.NullLit{}
	case []any:
		l := &ast.ListLit{}
		for _, el := range x {
			l.Elems = append(l.Elems, e(el))
		}
		return l
	}
	panic(fmt.Sprintf("e: %T", v))
}

// interp splits "a {{ x }} b" into parts.
func interp(s string) *ast.StringLit {
	sl := &ast.StringLit{}
	for {
		i := indexOf(s, "{{")
		if i < 0 {
			if s != "" || len(sl.Parts) == 0 {
				sl.Parts = append(sl.Parts, ast.StringPart{Text: s})
			}
			return sl
		}
		j := indexOf(s[i:], "}}") + i
		if i > 0 {
			sl.Parts = append(sl.Parts, ast.StringPart{Text: s[:i]})
		}
		sl.Parts = append(sl.Parts, ast.StringPart{Expr: src(trim(s[i+2 : j]))})
		s = s[j+2:]
	}
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

func trim(s string) string {
	for len(s) > 0 && s[0] == ' ' {
		s = s[1:]
	}
	for len(s) > 0 && s[len(s)-1] == ' ' {
		s = s[:len(s)-1]
	}
	return s
}

// opt is an option KEY: VALUE.
type opt struct {
	k string
	v any
}

// act builds `[target =] action args... opts...`.
func act(target, action string, args ...any) *ast.ActionStmt {
	s := &ast.ActionStmt{Target: target, Action: action}
	for _, a := range args {
		if o, ok := a.(opt); ok {
			s.Options = append(s.Options, &ast.Option{Name: o.k, Value: e(o.v)})
			continue
		}
		s.Args = append(s.Args, e(a))
	}
	return s
}

// flow builds a lang.Flow from params ("name:type" or "name:type=default")
// and a body, checked by lang.Check (a flow that does not check panics);
// statements get line numbers 1, 2, ... in walk order.
func flow(params []string, defaults []opt, body ...ast.Stmt) *lang.Flow {
	f := &ast.File{Name: "t", Body: body}
	for _, p := range params {
		var name, typ, def string
		if i := indexOf(p, "="); i >= 0 {
			p, def = p[:i], p[i+1:]
		}
		i := indexOf(p, ":")
		name, typ = p[:i], p[i+1:]
		pa := &ast.Param{Name: name, Type: &ast.Type{Name: typ}}
		if def != "" {
			pa.Default = e(def)
		}
		f.Params = append(f.Params, pa)
	}
	for _, d := range defaults {
		f.Defaults = append(f.Defaults, &ast.Option{Name: d.k, Value: e(d.v)})
	}
	line := 0
	var number func([]ast.Stmt)
	number = func(ss []ast.Stmt) {
		for _, s := range ss {
			line++
			setLine(s, line)
			switch x := s.(type) {
			case *ast.IfStmt:
				number(x.Then)
				number(x.Else)
			case *ast.ForStmt:
				number(x.Body)
			case *ast.WhileStmt:
				number(x.Body)
			case *ast.TryStmt:
				number(x.Body)
				number(x.Catch)
			case *ast.RetryStmt:
				number(x.Body)
			case *ast.FrameStmt:
				number(x.Body)
			}
		}
	}
	number(body)
	fl, ds := lang.Check("t.flow", f)
	if fl == nil {
		panic("hand-built flow does not check: " + ds.Error())
	}
	return fl
}

func setLine(s ast.Stmt, line int) {
	r := ast.Range{Start: ast.Pos{Line: line, Col: 1}}
	switch x := s.(type) {
	case *ast.ActionStmt:
		x.Range = r
	case *ast.AssignStmt:
		x.Range = r
	case *ast.IfStmt:
		x.Range = r
	case *ast.ForStmt:
		x.Range = r
	case *ast.WhileStmt:
		x.Range = r
	case *ast.BreakStmt:
		x.Range = r
	case *ast.ContinueStmt:
		x.Range = r
	case *ast.TryStmt:
		x.Range = r
	case *ast.RetryStmt:
		x.Range = r
	case *ast.FrameStmt:
		x.Range = r
	case *ast.ReturnStmt:
		x.Range = r
	case *ast.FailStmt:
		x.Range = r
	case *ast.AssertStmt:
		x.Range = r
	case *ast.LogStmt:
		x.Range = r
	}
}

func set(name, expr string) *ast.AssignStmt { return &ast.AssignStmt{Name: name, Value: src(expr)} }
func logs(v any) *ast.LogStmt               { return &ast.LogStmt{Value: e(v)} }
func ret(expr string) *ast.ReturnStmt       { return &ast.ReturnStmt{Value: src(expr)} }
