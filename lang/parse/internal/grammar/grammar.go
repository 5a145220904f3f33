// Package grammar holds the participle grammar of one logical line of a
// .flow file and its hand-written stateful lexer (Scanner). The line
// splitter in lang/parse cuts the token stream into logical lines (joining
// lines while a bracket is open), retypes context-dependent tokens (ActionKw,
// OptKey, BlockOpen) and hands each line to Parser; block structure ({ ... })
// is assembled by lang/parse, so nesting depth never recurses here.
//
// These structs are grammar-shaped and internal: lang/parse lowers them into
// the closed AST of lang/ast.
package grammar

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"
)

// Line is one logical line.
type Line struct {
	Flow     *FlowLine     `parser:"  @@"`
	Param    *ParamLine    `parser:"| @@"`
	Defaults *DefaultsLine `parser:"| @@"`
	If       *IfLine       `parser:"| @@"`
	For      *ForLine      `parser:"| @@"`
	While    *WhileLine    `parser:"| @@"`
	Try      *TryLine      `parser:"| @@"`
	Retry    *RetryLine    `parser:"| @@"`
	Frame    *FrameLine    `parser:"| @@"`
	Return   *ReturnLine   `parser:"| @@"`
	Fail     *FailLine     `parser:"| @@"`
	Assert   *AssertLine   `parser:"| @@"`
	Log      *LogLine      `parser:"| @@"`
	Break    *lexer.Token  `parser:"| @\"break\""`
	Continue *lexer.Token  `parser:"| @\"continue\""`
	Close    *CloseLine    `parser:"| @@"`
	Simple   *SimpleLine   `parser:"| @@"`
}

// FlowLine is `flow NAME ["description"]`.
type FlowLine struct {
	Name *lexer.Token `parser:"\"flow\" @(Ident | ActionKw)"`
	Desc *lexer.Token `parser:"@String?"`
}

// ParamLine is `param NAME: TYPE [= LITERAL] ["description"]`.
type ParamLine struct {
	Name    *lexer.Token `parser:"\"param\" @(OptKey | Ident) \":\""`
	Type    *TypeRef     `parser:"@@"`
	Default *Literal     `parser:"(\"=\" @@)?"`
	Desc    *lexer.Token `parser:"@String?"`
}

// TypeRef is a param type, `enum("a", "b")` included.
type TypeRef struct {
	Name   *lexer.Token `parser:"@Ident"`
	Open   *lexer.Token `parser:"( @\"(\""`
	Values []*StrTok    `parser:"  (@@ (\",\" @@)* \",\"?)?"`
	Close  *lexer.Token `parser:"  @\")\" )?"`
}

// StrTok is one string token.
type StrTok struct {
	Tok lexer.Token `parser:"@String"`
}

// Literal is a param default: a string, number, bool, null, or a list or
// map of literals.
type Literal struct {
	Str   *lexer.Token `parser:"  @String"`
	Minus *lexer.Token `parser:"| @\"-\"?"`
	Num   *lexer.Token `parser:"  @Number"`
	Bool  *lexer.Token `parser:"| @(\"true\" | \"false\")"`
	Null  *lexer.Token `parser:"| @(\"null\" | \"nil\")"`
	List  *LitList     `parser:"| @@"`
	Map   *LitMap      `parser:"| @@"`
}

// LitList is `[LITERAL, ...]`.
type LitList struct {
	Open  lexer.Token `parser:"@\"[\""`
	Elems []*Literal  `parser:"(@@ (\",\" @@)* \",\"?)?"`
	Close lexer.Token `parser:"@\"]\""`
}

// LitMap is `{KEY: LITERAL, ...}`.
type LitMap struct {
	Open    lexer.Token    `parser:"@\"{\""`
	Entries []*LitMapEntry `parser:"(@@ (\",\" @@)* \",\"?)?"`
	Close   lexer.Token    `parser:"@\"}\""`
}

// LitMapEntry is one `KEY: LITERAL`.
type LitMapEntry struct {
	Key   lexer.Token `parser:"@(String | Ident | OptKey | ActionKw | Number) \":\""`
	Value *Literal    `parser:"@@"`
}

// DefaultsLine is `defaults KEY: VALUE ...`.
type DefaultsLine struct {
	Kw      lexer.Token `parser:"@\"defaults\""`
	Options []*Option   `parser:"@@+"`
}

// IfLine is `if EXPR {`.
type IfLine struct {
	Cond *Expr `parser:"\"if\" @@ BlockOpen"`
}

// ForLine is `for NAME in EXPR {`.
type ForLine struct {
	Var  lexer.Token `parser:"\"for\" @Ident \"in\""`
	Iter *Expr       `parser:"@@ BlockOpen"`
}

// WhileLine is `while EXPR {`.
type WhileLine struct {
	Cond *Expr `parser:"\"while\" @@ BlockOpen"`
}

// TryLine is `try {`.
type TryLine struct {
	Kw lexer.Token `parser:"@\"try\" BlockOpen"`
}

// RetryLine is `retry N [every: DURATION] {`.
type RetryLine struct {
	Count   *Arg      `parser:"\"retry\" @@"`
	Options []*Option `parser:"@@* BlockOpen"`
}

// FrameLine is `frame SELECTOR {`.
type FrameLine struct {
	Sel *Arg `parser:"\"frame\" @@ BlockOpen"`
}

// ReturnLine is `return [EXPR]`.
type ReturnLine struct {
	Kw    lexer.Token `parser:"@\"return\""`
	Value *Expr       `parser:"@@?"`
}

// FailLine is `fail EXPR`.
type FailLine struct {
	Msg *Expr `parser:"\"fail\" @@"`
}

// AssertLine is `assert EXPR [, EXPR]`.
type AssertLine struct {
	Cond *Expr `parser:"\"assert\" @@"`
	Msg  *Expr `parser:"(\",\" @@)?"`
}

// LogLine is `log EXPR`.
type LogLine struct {
	Value *Expr `parser:"\"log\" @@"`
}

// CloseLine is `}`, `} else {`, `} else if EXPR {` or `} catch NAME {`.
type CloseLine struct {
	Close lexer.Token  `parser:"@\"}\""`
	Else  *lexer.Token `parser:"( @\"else\""`
	If    *lexer.Token `parser:"  ( @\"if\""`
	Cond  *Expr        `parser:"    @@ )? BlockOpen"`
	Catch *lexer.Token `parser:"| @\"catch\""`
	Var   *lexer.Token `parser:"  @Ident BlockOpen )?"`
}

// SimpleLine is `ACTION ARGS [KEY: VALUE ...]`, `NAME = ACTION ARGS [KEY:
// VALUE ...]` or `NAME = EXPR`.
type SimpleLine struct {
	Action *Call        `parser:"  @@"`
	Target *lexer.Token `parser:"| @Ident \"=\""`
	Bound  *Call        `parser:"  ( @@"`
	Value  *Expr        `parser:"  | @@ )"`
}

// Call is `ACTION ARGS [KEY: VALUE ...]`.
type Call struct {
	Action  lexer.Token `parser:"@ActionKw"`
	Args    []*Arg      `parser:"@@*"`
	Options []*Option   `parser:"@@*"`
}

// Option is `KEY: VALUE`.
type Option struct {
	Key   lexer.Token `parser:"@OptKey \":\""`
	Value *Arg        `parser:"@@"`
}

// Arg is an argument or option value: a literal, a duration, a name path,
// a list or map of full expressions, or `( EXPR )`.
type Arg struct {
	Tokens []lexer.Token
	Str    *lexer.Token `parser:"  @String"`
	Dur    *lexer.Token `parser:"| @Duration"`
	Minus  *lexer.Token `parser:"| @\"-\"?"`
	Num    *lexer.Token `parser:"  @Number"`
	Bool   *lexer.Token `parser:"| @(\"true\" | \"false\")"`
	Null   *lexer.Token `parser:"| @(\"null\" | \"nil\")"`
	Path   *Path        `parser:"| @@"`
	List   *List        `parser:"| @@"`
	Map    *Map         `parser:"| @@"`
	Paren  *Paren       `parser:"| @@"`
}

// Path is a name path: NAME followed, with no space, by .NAME, [EXPR] or
// (EXPRS).
type Path struct {
	Tokens []lexer.Token
	Head   lexer.Token `parser:"@Ident"`
	Suffix []*Suffix   `parser:"@@*"`
}

// Suffix is one glued `.NAME`, `[...]` or `(...)` of a name path.
type Suffix struct {
	Name  *lexer.Token `parser:"  GDot @(Ident | OptKey | ActionKw)"`
	Index []*Item      `parser:"| GLBrack @@* \"]\""`
	Call  []*Item      `parser:"| GLParen @@* \")\""`
	// Empty marks an empty index or call; it keeps the alternatives
	// distinguishable when Index or Call holds nothing.
	Empty bool `parser:"| @(GLBrack \"]\" | GLParen \")\")"`
}

// List is `[EXPR, ...]` in argument position (a space before '[').
type List struct {
	Open  lexer.Token `parser:"@LBrack"`
	Elems []*Expr     `parser:"(@@ (\",\" @@)* \",\"?)?"`
	Close lexer.Token `parser:"@\"]\""`
}

// Map is `{KEY: EXPR, ...}` in argument position.
type Map struct {
	Open    lexer.Token `parser:"@LBrace"`
	Entries []*MapEntry `parser:"(@@ (\",\" @@)* \",\"?)?"`
	Close   lexer.Token `parser:"@\"}\""`
}

// MapEntry is one `KEY: EXPR` of a Map.
type MapEntry struct {
	Key      *lexer.Token `parser:"( @(String | Ident | OptKey | ActionKw | Number)"`
	KeyParen *Paren       `parser:"| @@ ) \":\""`
	Value    *Expr        `parser:"@@"`
}

// Paren is `( EXPR )` in argument position.
type Paren struct {
	Tokens []lexer.Token
	Open   lexer.Token `parser:"@LParen"`
	Items  []*Item     `parser:"@@*"`
	Close  lexer.Token `parser:"@\")\""`
}

// Expr is a full expression: balanced tokens up to a top-level ',' or the
// end of the line (or of the enclosing bracket). Only its token span is
// used: the source text is cut from the file.
type Expr struct {
	Tokens []lexer.Token
	Items  []*TopItem `parser:"@@+"`
}

// TopItem is a token of a full expression at its own top level (no ',').
type TopItem struct {
	Group *Group `parser:"  @@"`
	Atom  string `parser:"| @!(\"(\" | \")\" | \"[\" | \"]\" | \"{\" | \"}\" | \",\" | ActionKw)"`
}

// Item is a token inside brackets, where ',' is allowed.
type Item struct {
	Group *Group `parser:"  @@"`
	Atom  string `parser:"| @!(\"(\" | \")\" | \"[\" | \"]\" | \"{\" | \"}\")"`
}

// Group is a balanced bracket group.
type Group struct {
	Paren []*Item `parser:"  \"(\" @@* \")\""`
	Brack []*Item `parser:"| \"[\" @@* \"]\""`
	Brace []*Item `parser:"| \"{\" @@* \"}\""`
	// Empty keeps an empty group a match.
	Empty bool `parser:"| @(\"(\" \")\" | \"[\" \"]\" | \"{\" \"}\")"`
}

// Parser parses one logical line (see lang/parse).
var Parser = build()

func build() *participle.Parser[Line] {
	_ = symbols // the lexer's symbol table must be initialised first
	return participle.MustBuild[Line](
		participle.Lexer(Definition{}),
		participle.UseLookahead(2),
	)
}

// ParseLine parses the tokens of one logical line; toks must end with an
// EOF token.
func ParseLine(toks []lexer.Token) (*Line, error) {
	pl, err := lexer.Upgrade(&sliceLexer{toks: toks})
	if err != nil {
		return nil, err
	}
	return Parser.ParseFromLexer(pl)
}

type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	if l.i >= len(l.toks) {
		return l.toks[len(l.toks)-1], nil
	}
	t := l.toks[l.i]
	l.i++
	return t, nil
}
