package ast

// Walk visits n and every node below it in source order (depth first,
// pre-order). When fn returns false the children of that node are skipped.
// It visits the File, its Params (and their Type and Default), Defaults
// options, statements, options, expressions, map entries and the ExprSrc
// parts of a StringLit; comments are not visited. A nil n is a no-op.
func Walk(n Node, fn func(Node) bool) {
	if isNil(n) || !fn(n) {
		return
	}
	switch n := n.(type) {
	case *File:
		for _, p := range n.Params {
			Walk(p, fn)
		}
		for _, o := range n.Defaults {
			Walk(o, fn)
		}
		walkStmts(n.Body, fn)
	case *Param:
		Walk(n.Type, fn)
		Walk(n.Default, fn)
	case *Option:
		Walk(n.Value, fn)
	case *ActionStmt:
		for _, a := range n.Args {
			Walk(a, fn)
		}
		for _, o := range n.Options {
			Walk(o, fn)
		}
	case *AssignStmt:
		Walk(n.Value, fn)
	case *IfStmt:
		Walk(n.Cond, fn)
		walkStmts(n.Then, fn)
		walkStmts(n.Else, fn)
	case *ForStmt:
		Walk(n.Iter, fn)
		walkStmts(n.Body, fn)
	case *WhileStmt:
		Walk(n.Cond, fn)
		walkStmts(n.Body, fn)
	case *TryStmt:
		walkStmts(n.Body, fn)
		walkStmts(n.Catch, fn)
	case *RetryStmt:
		Walk(n.Count, fn)
		Walk(n.Every, fn)
		walkStmts(n.Body, fn)
	case *FrameStmt:
		Walk(n.Selector, fn)
		walkStmts(n.Body, fn)
	case *ReturnStmt:
		Walk(n.Value, fn)
	case *FailStmt:
		Walk(n.Message, fn)
	case *AssertStmt:
		Walk(n.Cond, fn)
		Walk(n.Message, fn)
	case *LogStmt:
		Walk(n.Value, fn)
	case *StringLit:
		for _, p := range n.Parts {
			if p.Expr != nil {
				Walk(p.Expr, fn)
			}
		}
	case *ListLit:
		for _, e := range n.Elems {
			Walk(e, fn)
		}
	case *MapLit:
		for _, e := range n.Entries {
			Walk(e, fn)
		}
	case *MapEntry:
		Walk(n.Key, fn)
		Walk(n.Value, fn)
	}
}

func walkStmts(ss []Stmt, fn func(Node) bool) {
	for _, s := range ss {
		Walk(s, fn)
	}
}

// isNil reports whether n is nil or a typed nil pointer.
func isNil(n Node) bool {
	switch n := n.(type) {
	case nil:
		return true
	case *File:
		return n == nil
	case *Param:
		return n == nil
	case *Type:
		return n == nil
	case *Option:
		return n == nil
	case *MapEntry:
		return n == nil
	case *Comment:
		return n == nil
	case Stmt:
		return stmtNil(n)
	case Expr:
		return exprNil(n)
	}
	return false
}

func stmtNil(s Stmt) bool {
	switch s := s.(type) {
	case *ActionStmt:
		return s == nil
	case *AssignStmt:
		return s == nil
	case *IfStmt:
		return s == nil
	case *ForStmt:
		return s == nil
	case *WhileStmt:
		return s == nil
	case *BreakStmt:
		return s == nil
	case *ContinueStmt:
		return s == nil
	case *TryStmt:
		return s == nil
	case *RetryStmt:
		return s == nil
	case *FrameStmt:
		return s == nil
	case *ReturnStmt:
		return s == nil
	case *FailStmt:
		return s == nil
	case *AssertStmt:
		return s == nil
	case *LogStmt:
		return s == nil
	}
	return s == nil
}

func exprNil(e Expr) bool {
	switch e := e.(type) {
	case *StringLit:
		return e == nil
	case *NumberLit:
		return e == nil
	case *BoolLit:
		return e == nil
	case *NullLit:
		return e == nil
	case *DurationLit:
		return e == nil
	case *ListLit:
		return e == nil
	case *MapLit:
		return e == nil
	case *ExprSrc:
		return e == nil
	}
	return e == nil
}
