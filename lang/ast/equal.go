package ast

import "strings"

// Equal reports whether a and b are the same flow up to positions: ranges
// and comments are ignored, ExprSrc compare by strings.TrimSpace(Source),
// numbers by value (int64 and float64 differ), durations by value, and a
// nil slice equals an empty one. This is the promise of the .flow ↔ YAML
// round trip and of the formatter.
func Equal(a, b *File) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Name != b.Name || a.Description != b.Description ||
		len(a.Params) != len(b.Params) || len(a.Defaults) != len(b.Defaults) {
		return false
	}
	for i := range a.Params {
		if !equalParam(a.Params[i], b.Params[i]) {
			return false
		}
	}
	return equalOptions(a.Defaults, b.Defaults) && equalStmts(a.Body, b.Body)
}

func equalParam(a, b *Param) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Name != b.Name || a.Description != b.Description || !equalType(a.Type, b.Type) {
		return false
	}
	return EqualExpr(a.Default, b.Default)
}

func equalType(a, b *Type) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Name != b.Name || len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if a.Values[i] != b.Values[i] {
			return false
		}
	}
	return true
}

func equalOptions(a, b []*Option) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !EqualExpr(a[i].Value, b[i].Value) {
			return false
		}
	}
	return true
}

func equalStmts(a, b []Stmt) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !EqualStmt(a[i], b[i]) {
			return false
		}
	}
	return true
}

func equalExprs(a, b []Expr) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !EqualExpr(a[i], b[i]) {
			return false
		}
	}
	return true
}

// EqualStmt is Equal for one statement (and everything below it).
func EqualStmt(a, b Stmt) bool {
	if isNil(a) || isNil(b) {
		return isNil(a) && isNil(b)
	}
	switch a := a.(type) {
	case *ActionStmt:
		b, ok := b.(*ActionStmt)
		return ok && a.Target == b.Target && a.Action == b.Action && equalExprs(a.Args, b.Args) && equalOptions(a.Options, b.Options)
	case *AssignStmt:
		b, ok := b.(*AssignStmt)
		return ok && a.Name == b.Name && EqualExpr(a.Value, b.Value)
	case *IfStmt:
		b, ok := b.(*IfStmt)
		return ok && EqualExpr(a.Cond, b.Cond) && equalStmts(a.Then, b.Then) && equalStmts(a.Else, b.Else)
	case *ForStmt:
		b, ok := b.(*ForStmt)
		return ok && a.Var == b.Var && EqualExpr(a.Iter, b.Iter) && equalStmts(a.Body, b.Body)
	case *WhileStmt:
		b, ok := b.(*WhileStmt)
		return ok && EqualExpr(a.Cond, b.Cond) && equalStmts(a.Body, b.Body)
	case *BreakStmt:
		_, ok := b.(*BreakStmt)
		return ok
	case *ContinueStmt:
		_, ok := b.(*ContinueStmt)
		return ok
	case *TryStmt:
		b, ok := b.(*TryStmt)
		return ok && a.CatchVar == b.CatchVar && equalStmts(a.Body, b.Body) && equalStmts(a.Catch, b.Catch)
	case *RetryStmt:
		b, ok := b.(*RetryStmt)
		return ok && EqualExpr(a.Count, b.Count) && EqualExpr(a.Every, b.Every) && equalStmts(a.Body, b.Body)
	case *FrameStmt:
		b, ok := b.(*FrameStmt)
		return ok && EqualExpr(a.Selector, b.Selector) && equalStmts(a.Body, b.Body)
	case *ReturnStmt:
		b, ok := b.(*ReturnStmt)
		return ok && EqualExpr(a.Value, b.Value)
	case *FailStmt:
		b, ok := b.(*FailStmt)
		return ok && EqualExpr(a.Message, b.Message)
	case *AssertStmt:
		b, ok := b.(*AssertStmt)
		return ok && EqualExpr(a.Cond, b.Cond) && EqualExpr(a.Message, b.Message)
	case *LogStmt:
		b, ok := b.(*LogStmt)
		return ok && EqualExpr(a.Value, b.Value)
	}
	return false
}

// EqualExpr is Equal for one expression; two nils are equal.
func EqualExpr(a, b Expr) bool {
	if isNil(a) || isNil(b) {
		return isNil(a) && isNil(b)
	}
	switch a := a.(type) {
	case *StringLit:
		b, ok := b.(*StringLit)
		if !ok || len(a.Parts) != len(b.Parts) {
			return false
		}
		for i := range a.Parts {
			pa, pb := a.Parts[i], b.Parts[i]
			if (pa.Expr == nil) != (pb.Expr == nil) {
				return false
			}
			if pa.Expr == nil && pa.Text != pb.Text {
				return false
			}
			if pa.Expr != nil && !EqualExpr(pa.Expr, pb.Expr) {
				return false
			}
		}
		return true
	case *NumberLit:
		b, ok := b.(*NumberLit)
		return ok && a.Value == b.Value
	case *BoolLit:
		b, ok := b.(*BoolLit)
		return ok && a.Value == b.Value
	case *NullLit:
		_, ok := b.(*NullLit)
		return ok
	case *DurationLit:
		b, ok := b.(*DurationLit)
		return ok && a.Value == b.Value
	case *ListLit:
		b, ok := b.(*ListLit)
		return ok && equalExprs(a.Elems, b.Elems)
	case *MapLit:
		b, ok := b.(*MapLit)
		if !ok || len(a.Entries) != len(b.Entries) {
			return false
		}
		for i := range a.Entries {
			if !EqualExpr(a.Entries[i].Key, b.Entries[i].Key) || !EqualExpr(a.Entries[i].Value, b.Entries[i].Value) {
				return false
			}
		}
		return true
	case *ExprSrc:
		b, ok := b.(*ExprSrc)
		return ok && strings.TrimSpace(a.Source) == strings.TrimSpace(b.Source)
	}
	return false
}
