package ast

import (
	"fmt"
	"strconv"
	"strings"
)

// Dump renders f as an indented, deterministic text tree with the range of
// every node ([line:col-line:col], End exclusive) and its fields, one node
// per line; the parser goldens (lang/testdata/parse/*.ast.golden) are Dumps.
// Strings are Go-quoted. Comments are listed last.
func Dump(f *File) string {
	if f == nil {
		return "<nil>\n"
	}
	d := &dumper{}
	d.line(0, "File %s %s name=%q%s desc=%q", rng(f.Range), f.File, f.Name, at(f.NameRange), f.Description)
	for _, p := range f.Params {
		d.line(1, "Param %s name=%q%s desc=%q", rng(p.Range), p.Name, at(p.NameRange), p.Description)
		if p.Type != nil {
			vals := ""
			if p.Type.Values != nil {
				q := make([]string, len(p.Type.Values))
				for i, v := range p.Type.Values {
					q[i] = strconv.Quote(v)
				}
				vals = " values=[" + strings.Join(q, ", ") + "]"
			}
			d.line(2, "Type %s %s%s", rng(p.Type.Range), p.Type.Name, vals)
		}
		if p.Default != nil {
			d.expr(2, "default: ", p.Default)
		}
	}
	for _, o := range f.Defaults {
		d.option(1, "Defaults ", o)
	}
	d.stmts(1, "", f.Body)
	for _, c := range f.Comments {
		d.line(1, "Comment %s %q trailing=%v", rng(c.Range), c.Text, c.Trailing)
	}
	return d.b.String()
}

type dumper struct{ b strings.Builder }

func (d *dumper) line(depth int, format string, args ...any) {
	for i := 0; i < depth; i++ {
		d.b.WriteString("  ")
	}
	fmt.Fprintf(&d.b, format, args...)
	d.b.WriteByte('\n')
}

func rng(r Range) string {
	return fmt.Sprintf("[%d:%d-%d:%d]", r.Start.Line, r.Start.Col, r.End.Line, r.End.Col)
}

func at(r Range) string { return "@" + rng(r) }

func (d *dumper) option(depth int, prefix string, o *Option) {
	d.line(depth, "%sOption %s %s%s", prefix, rng(o.Range), o.Name, at(o.NameRange))
	d.expr(depth+1, "", o.Value)
}

func (d *dumper) stmts(depth int, label string, ss []Stmt) {
	if label != "" {
		d.line(depth-1, "%s", label)
	}
	for _, s := range ss {
		d.stmt(depth, s)
	}
}

func (d *dumper) stmt(depth int, s Stmt) {
	switch s := s.(type) {
	case *ActionStmt:
		target := ""
		if s.Target != "" {
			target = fmt.Sprintf(" target=%q%s", s.Target, at(s.TargetRange))
		}
		d.line(depth, "Action %s%s action=%q%s", rng(s.Range), target, s.Action, at(s.ActionRange))
		for _, a := range s.Args {
			d.expr(depth+1, "arg: ", a)
		}
		for _, o := range s.Options {
			d.option(depth+1, "", o)
		}
	case *AssignStmt:
		d.line(depth, "Assign %s name=%q%s", rng(s.Range), s.Name, at(s.NameRange))
		d.expr(depth+1, "", s.Value)
	case *IfStmt:
		d.line(depth, "If %s", rng(s.Range))
		d.expr(depth+1, "cond: ", s.Cond)
		d.stmts(depth+2, "then:", s.Then)
		if s.Else != nil {
			d.stmts(depth+2, "else:", s.Else)
		}
	case *ForStmt:
		d.line(depth, "For %s var=%q%s", rng(s.Range), s.Var, at(s.VarRange))
		d.expr(depth+1, "in: ", s.Iter)
		d.stmts(depth+2, "do:", s.Body)
	case *WhileStmt:
		d.line(depth, "While %s", rng(s.Range))
		d.expr(depth+1, "cond: ", s.Cond)
		d.stmts(depth+2, "do:", s.Body)
	case *BreakStmt:
		d.line(depth, "Break %s", rng(s.Range))
	case *ContinueStmt:
		d.line(depth, "Continue %s", rng(s.Range))
	case *TryStmt:
		d.line(depth, "Try %s catch=%q%s", rng(s.Range), s.CatchVar, at(s.CatchVarRange))
		d.stmts(depth+2, "do:", s.Body)
		d.stmts(depth+2, "catch:", s.Catch)
	case *RetryStmt:
		d.line(depth, "Retry %s", rng(s.Range))
		d.expr(depth+1, "count: ", s.Count)
		if s.Every != nil {
			d.expr(depth+1, "every: ", s.Every)
		}
		d.stmts(depth+2, "do:", s.Body)
	case *FrameStmt:
		d.line(depth, "Frame %s", rng(s.Range))
		d.expr(depth+1, "selector: ", s.Selector)
		d.stmts(depth+2, "do:", s.Body)
	case *ReturnStmt:
		d.line(depth, "Return %s", rng(s.Range))
		if s.Value != nil {
			d.expr(depth+1, "", s.Value)
		}
	case *FailStmt:
		d.line(depth, "Fail %s", rng(s.Range))
		d.expr(depth+1, "", s.Message)
	case *AssertStmt:
		d.line(depth, "Assert %s", rng(s.Range))
		d.expr(depth+1, "cond: ", s.Cond)
		if s.Message != nil {
			d.expr(depth+1, "message: ", s.Message)
		}
	case *LogStmt:
		d.line(depth, "Log %s", rng(s.Range))
		d.expr(depth+1, "", s.Value)
	default:
		d.line(depth, "%T", s)
	}
}

func (d *dumper) expr(depth int, prefix string, e Expr) {
	switch e := e.(type) {
	case nil:
		d.line(depth, "%s<nil>", prefix)
	case *StringLit:
		if v, ok := e.Value(); ok {
			d.line(depth, "%sString %s %q", prefix, rng(e.Range), v)
			return
		}
		d.line(depth, "%sString %s", prefix, rng(e.Range))
		for _, p := range e.Parts {
			if p.Expr != nil {
				d.expr(depth+1, "", p.Expr)
			} else {
				d.line(depth+1, "Text %q", p.Text)
			}
		}
	case *NumberLit:
		d.line(depth, "%sNumber %s %s (%T)", prefix, rng(e.Range), e.Raw, e.Value)
	case *BoolLit:
		d.line(depth, "%sBool %s %v", prefix, rng(e.Range), e.Value)
	case *NullLit:
		d.line(depth, "%sNull %s", prefix, rng(e.Range))
	case *DurationLit:
		d.line(depth, "%sDuration %s %s (%v)", prefix, rng(e.Range), e.Raw, e.Value)
	case *ListLit:
		d.line(depth, "%sList %s", prefix, rng(e.Range))
		for _, x := range e.Elems {
			d.expr(depth+1, "", x)
		}
	case *MapLit:
		d.line(depth, "%sMap %s", prefix, rng(e.Range))
		for _, en := range e.Entries {
			d.line(depth+1, "Entry %s", rng(en.Range))
			d.expr(depth+2, "key: ", en.Key)
			d.expr(depth+2, "value: ", en.Value)
		}
	case *ExprSrc:
		d.line(depth, "%sExpr %s %q", prefix, rng(e.Range), e.Source)
	default:
		d.line(depth, "%s%T", prefix, e)
	}
}
