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
	Lit  *Lit     `parser:"  @@"`
	List *LitList `parser:"| @@"`
	Map  *LitMap  `parser:"| @@"`
}

// Lit is one literal token: a string, a duration, a number (with an
// optional '-'), true, false, null or nil. It is matched by hand
// (Parseable): one token test instead of a disjunction of six.
type Lit struct {
	Minus *lexer.Token
	Tok   lexer.Token
}

// Parse implements participle.Parseable.
func (l *Lit) Parse(lex *lexer.PeekingLexer) error {
	t := lex.Peek()
	switch t.Type {
	case String, Duration, Number:
	case Ident:
		switch t.Value {
		case "true", "false", "null", "nil":
		default:
			return participle.NextMatch
		}
	case Op:
		if t.Value != "-" {
			return participle.NextMatch
		}
		cp := lex.MakeCheckpoint()
		minus := *lex.Next()
		if lex.Peek().Type != Number {
			lex.LoadCheckpoint(cp)
			return participle.NextMatch
		}
		l.Minus = &minus
	default:
		return participle.NextMatch
	}
	l.Tok = *lex.Next()
	return nil
}

// Tokens returns the literal's tokens ('-' included).
func (l *Lit) Tokens() []lexer.Token {
	if l.Minus != nil {
		return []lexer.Token{*l.Minus, l.Tok}
	}
	return []lexer.Token{l.Tok}
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
	Lit   *Lit   `parser:"  @@"`
	Path  *Path  `parser:"| @@"`
	List  *List  `parser:"| @@"`
	Map   *Map   `parser:"| @@"`
	Paren *Paren `parser:"| @@"`
}

// First and Last return the first and last token of the argument.
func (a *Arg) First() lexer.Token {
	switch {
	case a.Lit != nil:
		return a.Lit.Tokens()[0]
	case a.Path != nil:
		return a.Path.Head
	case a.List != nil:
		return a.List.Open
	case a.Map != nil:
		return a.Map.Open
	}
	return a.Paren.Open
}

// Last returns the last token of the argument.
func (a *Arg) Last() lexer.Token {
	switch {
	case a.Lit != nil:
		return a.Lit.Tok
	case a.Path != nil:
		return a.Path.Tokens[len(a.Path.Tokens)-1]
	case a.List != nil:
		return a.List.Close
	case a.Map != nil:
		return a.Map.Close
	}
	return a.Paren.Close
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
	Index *Inner       `parser:"| GLBrack @@ \"]\""`
	Call  *Inner       `parser:"| GLParen @@ \")\""`
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
	Open  lexer.Token `parser:"@LParen"`
	Inner *Inner      `parser:"@@"`
	Close lexer.Token `parser:"@\")\""`
}

// Expr is a full expression: the tokens up to a ',' at its own bracket
// depth 0, the end of the line or of the enclosing bracket, or a block's
// '{'; brackets inside must balance. Only its token span is used: the
// source text is cut from the file. It is scanned by hand (Parseable) —
// expr-lang compiles it later — so the grammar stays small and fast.
type Expr struct {
	Tokens []lexer.Token
}

// Parse implements participle.Parseable.
func (e *Expr) Parse(lex *lexer.PeekingLexer) error {
	if t := lex.Peek(); t.Type == ActionKw {
		return participle.NextMatch
	}
	e.Tokens = balanced(lex, true)
	if len(e.Tokens) == 0 {
		return participle.NextMatch
	}
	return nil
}

// Inner is the tokens inside a bracket pair, up to (not including) the
// closing bracket; it may be empty. Scanned by hand like Expr.
type Inner struct {
	Tokens []lexer.Token
}

// Parse implements participle.Parseable.
func (in *Inner) Parse(lex *lexer.PeekingLexer) error {
	in.Tokens = balanced(lex, false)
	return nil
}

// balanced consumes tokens while brackets balance, stopping before an
// unmatched closer, EOF, a BlockOpen and (when top is set) a ',' at depth 0.
// The line splitter has already checked that brackets match.
func balanced(lex *lexer.PeekingLexer, top bool) []lexer.Token {
	var out []lexer.Token
	depth := 0
	for {
		t := lex.Peek()
		switch t.Type {
		case EOF, NL, BlockOpen:
			return out
		case LParen, GLParen, LBrack, GLBrack, LBrace:
			depth++
		case RParen, RBrack, RBrace:
			if depth == 0 {
				return out
			}
			depth--
		case Comma:
			if top && depth == 0 {
				return out
			}
		}
		out = append(out, *lex.Next())
	}
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

func production[P any]() *participle.Parser[P] {
	p, err := participle.ParserForProduction[P](Parser)
	if err != nil {
		panic(err)
	}
	return p
}

// Per-statement parsers: the line splitter knows from the first token which
// production applies, which spares the Line disjunction.
var (
	flowParser     = production[FlowLine]()
	paramParser    = production[ParamLine]()
	defaultsParser = production[DefaultsLine]()
	ifParser       = production[IfLine]()
	forParser      = production[ForLine]()
	whileParser    = production[WhileLine]()
	tryParser      = production[TryLine]()
	retryParser    = production[RetryLine]()
	frameParser    = production[FrameLine]()
	returnParser   = production[ReturnLine]()
	failParser     = production[FailLine]()
	assertParser   = production[AssertLine]()
	logParser      = production[LogLine]()
	closeParser    = production[CloseLine]()
	simpleParser   = production[SimpleLine]()
)

// NewStream prepares the tokens of all logical lines for ParseLine: each
// line ends with an NL token (the line splitter's terminator); the stream
// ends with EOF.
func NewStream(toks []lexer.Token) *lexer.PeekingLexer {
	pl, _ := lexer.Upgrade(&sliceLexer{toks: toks}) // sliceLexer never fails
	return pl
}

// ParseLine parses the logical line at the cursor of pl (a NewStream),
// leaving the cursor at or before the line's NL terminator. It dispatches on
// the first token to the production's parser (the result is the same as
// Parser's on that line).
func ParseLine(pl *lexer.PeekingLexer) (*Line, error) {
	var err error
	opt := participle.AllowTrailing(true)
	start := pl.MakeCheckpoint()
	ln, err := parseLine(pl, opt)
	if err == nil && pl.Peek().Type != NL {
		// Tokens left over: parse again without AllowTrailing, so that
		// participle reports its deepest error (what was expected where).
		pl.LoadCheckpoint(start)
		if _, err = parseLine(pl, participle.AllowTrailing(false)); err == nil {
			err = &participle.UnexpectedTokenError{Unexpected: *pl.Peek()}
		}
	}
	return ln, err
}

func parseLine(pl *lexer.PeekingLexer, opt participle.ParseOption) (*Line, error) {
	var err error
	ln := &Line{}
	first := *pl.Peek()
	kw := ""
	if first.Type == Ident {
		kw = first.Value
	} else if first.Type == RBrace {
		kw = "}"
	}
	switch kw {
	case "flow":
		ln.Flow, err = flowParser.ParseFromLexer(pl, opt)
	case "param":
		ln.Param, err = paramParser.ParseFromLexer(pl, opt)
	case "defaults":
		ln.Defaults, err = defaultsParser.ParseFromLexer(pl, opt)
	case "if":
		ln.If, err = ifParser.ParseFromLexer(pl, opt)
	case "for":
		ln.For, err = forParser.ParseFromLexer(pl, opt)
	case "while":
		ln.While, err = whileParser.ParseFromLexer(pl, opt)
	case "try":
		ln.Try, err = tryParser.ParseFromLexer(pl, opt)
	case "retry":
		ln.Retry, err = retryParser.ParseFromLexer(pl, opt)
	case "frame":
		ln.Frame, err = frameParser.ParseFromLexer(pl, opt)
	case "return":
		ln.Return, err = returnParser.ParseFromLexer(pl, opt)
	case "fail":
		ln.Fail, err = failParser.ParseFromLexer(pl, opt)
	case "assert":
		ln.Assert, err = assertParser.ParseFromLexer(pl, opt)
	case "log":
		ln.Log, err = logParser.ParseFromLexer(pl, opt)
	case "}":
		ln.Close, err = closeParser.ParseFromLexer(pl, opt)
	case "break", "continue":
		ln, err = Parser.ParseFromLexer(pl, opt)
	default:
		if fast := fastSimple(pl); fast != nil {
			return fast, nil
		}
		ln.Simple, err = simpleParser.ParseFromLexer(pl, opt)
	}
	return ln, err
}

type sliceLexer struct {
	toks []lexer.Token
	i    int
}

func (l *sliceLexer) Next() (lexer.Token, error) {
	if l.i >= len(l.toks) {
		return lexer.Token{Type: EOF}, nil
	}
	t := l.toks[l.i]
	l.i++
	return t, nil
}
