// Package ast is the closed syntax tree of a flow, shared by both front ends
// (the .flow grammar and the YAML form) and by everything downstream
// (checker, formatter, interpreter, MCP schemas).
//
// Every node carries a Range. Node sets are sealed with unexported marker
// methods (as starlark-go's syntax.Stmt has stmt()), so a type switch over
// Stmt or Expr is exhaustive.
//
// Equality of two trees "up to positions" (what the .flow → YAML → .flow
// round trip promises) is Equal.
package ast

import (
	"fmt"
	"time"
)

// Pos is a position in a source file. Line and Col are 1-based (Col counts
// bytes of the line, like gc and participle); Offset is the 0-based byte
// offset. The zero Pos means "unknown".
type Pos struct {
	Line, Col, Offset int
}

// String renders "line:col".
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Range is a half-open span [Start, End) of one file (HCL's hcl.Range shape).
type Range struct {
	File       string
	Start, End Pos
}

// String renders "file:line:col" (the start).
func (r Range) String() string {
	if r.File == "" {
		return r.Start.String()
	}
	return r.File + ":" + r.Start.String()
}

// Rng returns the range itself; it makes every node that embeds Range a Node.
func (r Range) Rng() Range { return r }

// Node is any syntax node.
type Node interface {
	Rng() Range
}

// File is one flow: header, params, defaults and body.
type File struct {
	Range
	// Name is the flow's NAME ([a-z][a-z0-9_]*); the MCP tool is workflow_NAME.
	Name      string
	NameRange Range
	// Description is the header's optional description ("" if none).
	Description string
	Params      []*Param
	// Defaults holds every `defaults KEY: VALUE` option in source order
	// (flow-wide action options plus profile and max_loops).
	Defaults []*Option
	Body     []Stmt
	// Comments are the `#` comments of a .flow file in source order, kept for
	// the formatter. Not part of Equal. YAML files have none.
	Comments []*Comment
}

// Comment is one `# ...` comment; Text includes the leading '#'.
type Comment struct {
	Range
	Text string
	// Trailing is true when code precedes the comment on its line.
	Trailing bool
}

// Param is `param NAME: TYPE [= LITERAL] ["description"]`.
type Param struct {
	Range
	Name      string
	NameRange Range
	Type      *Type
	// Default is the literal default (StringLit, NumberLit, BoolLit, NullLit,
	// ListLit or MapLit of literals), nil when the param is required.
	Default     Expr
	Description string
}

// Type is a param type: string, secret, int, number, bool, list, map, or
// enum with its Values.
type Type struct {
	Range
	Name   string
	Values []string // enum values, in order; nil for other types
}

// Option is `KEY: VALUE` after an action's arguments, in `defaults`, or a
// step option in YAML.
type Option struct {
	Range
	Name      string
	NameRange Range
	Value     Expr
}

// ---- statements ----

// Stmt is a statement of a flow body.
type Stmt interface {
	Node
	stmtNode()
}

// ActionStmt is `[NAME =] ACTION ARGS [KEY: VALUE ...]`.
type ActionStmt struct {
	Range
	// Target is the bound name, "" when the result is not bound.
	Target      string
	TargetRange Range
	// Action is the action name as written (may be an alias such as
	// "navigate"); resolve it with the actions registry.
	Action      string
	ActionRange Range
	// Args are the positional arguments. For `call`, Args[0] is a StringLit
	// holding the bare flow name.
	Args    []Expr
	Options []*Option
}

// AssignStmt is `NAME = EXPR` (YAML `set: {NAME: EXPR}`).
type AssignStmt struct {
	Range
	Name      string
	NameRange Range
	Value     Expr
}

// IfStmt is `if C { } else if C { } else { }`. An `else if` is an Else
// holding exactly one *IfStmt.
type IfStmt struct {
	Range
	Cond Expr
	Then []Stmt
	Else []Stmt
}

// ForStmt is `for NAME in EXPR { }`.
type ForStmt struct {
	Range
	Var      string
	VarRange Range
	Iter     Expr
	Body     []Stmt
}

// WhileStmt is `while EXPR { }`, bounded by `defaults max_loops`.
type WhileStmt struct {
	Range
	Cond Expr
	Body []Stmt
}

// BreakStmt is `break`.
type BreakStmt struct{ Range }

// ContinueStmt is `continue`.
type ContinueStmt struct{ Range }

// TryStmt is `try { } catch NAME { }`.
type TryStmt struct {
	Range
	Body          []Stmt
	CatchVar      string
	CatchVarRange Range
	Catch         []Stmt
}

// RetryStmt is `retry N [every: DURATION] { }`.
type RetryStmt struct {
	Range
	Count Expr // an ARG (usually a NumberLit)
	Every Expr // DurationLit or nil
	Body  []Stmt
}

// FrameStmt is `frame SELECTOR { }`.
type FrameStmt struct {
	Range
	Selector Expr
	Body     []Stmt
}

// ReturnStmt is `return [EXPR]`; Value is nil for a bare return.
type ReturnStmt struct {
	Range
	Value Expr
}

// FailStmt is `fail EXPR`.
type FailStmt struct {
	Range
	Message Expr
}

// AssertStmt is `assert EXPR [, EXPR]`; Message is nil when absent.
type AssertStmt struct {
	Range
	Cond    Expr
	Message Expr
}

// LogStmt is `log EXPR`.
type LogStmt struct {
	Range
	Value Expr
}

func (*ActionStmt) stmtNode()   {}
func (*AssignStmt) stmtNode()   {}
func (*IfStmt) stmtNode()       {}
func (*ForStmt) stmtNode()      {}
func (*WhileStmt) stmtNode()    {}
func (*BreakStmt) stmtNode()    {}
func (*ContinueStmt) stmtNode() {}
func (*TryStmt) stmtNode()      {}
func (*RetryStmt) stmtNode()    {}
func (*FrameStmt) stmtNode()    {}
func (*ReturnStmt) stmtNode()   {}
func (*FailStmt) stmtNode()     {}
func (*AssertStmt) stmtNode()   {}
func (*LogStmt) stmtNode()      {}

// ---- expressions ----

// Expr is a value position: an argument, an option value, a condition or a
// full expression. Literals are their own nodes; anything else is ExprSrc
// (expr-lang source compiled by the checker).
//
// Normalisation rule shared by both front ends: a full expression that is
// exactly one literal token (string, number, bool, null) is lowered to that
// literal node, and a DSL value that is exactly "{{ E }}" is lowered to E
// itself, so .flow and YAML give equal trees.
type Expr interface {
	Node
	exprNode()
}

// StringLit is a string literal, possibly interpolating `{{ EXPR }}` parts.
type StringLit struct {
	Range
	Parts []StringPart
}

// StringPart is either literal Text (Expr == nil) or one `{{ }}`
// interpolation (Expr != nil, Text unused).
type StringPart struct {
	Text string
	Expr *ExprSrc
}

// Value returns the string when it has no interpolation, and ok=false
// otherwise.
func (s *StringLit) Value() (v string, ok bool) {
	for _, p := range s.Parts {
		if p.Expr != nil {
			return "", false
		}
		v += p.Text
	}
	return v, true
}

// NumberLit is an integer or a float literal. Raw is the source spelling.
type NumberLit struct {
	Range
	Raw   string
	Value any // int64 or float64
}

// BoolLit is true or false.
type BoolLit struct {
	Range
	Value bool
}

// NullLit is null or nil.
type NullLit struct{ Range }

// DurationLit is a duration literal such as 500ms or 1m30s.
type DurationLit struct {
	Range
	Raw   string
	Value time.Duration
}

// ListLit is `[e, e, ...]` in an argument position.
type ListLit struct {
	Range
	Elems []Expr
}

// MapLit is `{"k": e, ...}` in an argument position. Keys are kept in
// source order.
type MapLit struct {
	Range
	Entries []*MapEntry
}

// MapEntry is one `KEY: VALUE` of a MapLit; Key is usually a StringLit.
type MapEntry struct {
	Range
	Key   Expr
	Value Expr
}

// ExprSrc is expr-lang source text: a name path (`row.kWh`), a parenthesised
// expression in argument position, or a full expression (conditions,
// assignments, return, fail, log, assert, `{{ }}` parts). Source is exactly
// the text between the delimiters (parentheses of `( EXPR )` and `{{ }}`
// excluded), untouched, so expr's rune offsets map back to the file by
// advancing from Range.Start. String literals inside Source may themselves
// interpolate `{{ }}`; the checker rewrites them before compiling.
type ExprSrc struct {
	Range
	Source string
}

func (*StringLit) exprNode()   {}
func (*NumberLit) exprNode()   {}
func (*BoolLit) exprNode()     {}
func (*NullLit) exprNode()     {}
func (*DurationLit) exprNode() {}
func (*ListLit) exprNode()     {}
func (*MapLit) exprNode()      {}
func (*ExprSrc) exprNode()     {}
