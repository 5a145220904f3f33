package grammar

import (
	"io"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"
)

// Token types of the .flow lexer. Glued variants (GLParen, GLBrack, GDot)
// are the same punctuation written with no space before it: they continue a
// name path (`row.kWh`, `rows[0]`, `page.exists("#x")`), while the spaced
// forms start the next argument.
const (
	EOF                       = lexer.EOF
	Ident     lexer.TokenType = -(iota + 2) // identifier or keyword
	ActionKw                                // an action name where it is a keyword (set by the line splitter)
	OptKey                                  // an identifier followed by ':' at bracket depth 0 (set by the line splitter)
	String                                  // "..." raw, quotes included (may lack the closing quote: unterminated)
	SQString                                // '...' or `...` (expr strings), raw
	Number                                  // 12, 1.5, 1e3, 0x1F, 1_000
	Duration                                // 500ms, 1m30s
	Closure                                 // #, #acc, #index inside ( or [
	Op                                      // operators: + - == && ?? .. etc.
	LParen                                  // ( after a space
	GLParen                                 // ( glued to the previous token
	RParen                                  // )
	LBrack                                  // [ after a space
	GLBrack                                 // [ glued to the previous token
	RBrack                                  // ]
	LBrace                                  // {
	BlockOpen                               // { ending a block header line (set by the line splitter)
	RBrace                                  // }
	Dot                                     // . after a space
	GDot                                    // . glued to the previous token
	Comma                                   // ,
	Colon                                   // :
	Assign                                  // =
	NL                                      // end of a physical line
	Comment                                 // # ... to the end of the line (outside ( and [)
	Invalid                                 // a character that cannot start a token
)

var symbols = map[string]lexer.TokenType{
	"EOF": EOF, "Ident": Ident, "ActionKw": ActionKw, "OptKey": OptKey, "String": String,
	"SQString": SQString, "Number": Number, "Duration": Duration, "Closure": Closure, "Op": Op,
	"LParen": LParen, "GLParen": GLParen, "RParen": RParen, "LBrack": LBrack, "GLBrack": GLBrack,
	"RBrack": RBrack, "LBrace": LBrace, "BlockOpen": BlockOpen, "RBrace": RBrace, "Dot": Dot,
	"GDot": GDot, "Comma": Comma, "Colon": Colon, "Assign": Assign, "NL": NL, "Comment": Comment,
	"Invalid": Invalid,
}

// TypeName names a token type ("Ident", "String", ...).
func TypeName(t lexer.TokenType) string {
	for k, v := range symbols {
		if v == t {
			return k
		}
	}
	return "?"
}

// Definition is the participle lexer definition. The parser is always fed
// pre-split lines through ParseLine, so Lex is only used by tools that want
// the raw token stream of a whole source (it lexes with comment mode on at
// bracket depth 0, tracking ( and [ itself).
type Definition struct{}

// Symbols implements lexer.Definition.
func (Definition) Symbols() map[string]lexer.TokenType { return symbols }

// Lex implements lexer.Definition.
func (Definition) Lex(filename string, r io.Reader) (lexer.Lexer, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return &selfDepthLexer{s: NewScanner(filename, string(b))}, nil
}

type selfDepthLexer struct {
	s     *Scanner
	depth int
}

func (l *selfDepthLexer) Next() (lexer.Token, error) {
	l.s.InParen = l.depth > 0
	t := l.s.Next()
	switch t.Type {
	case LParen, GLParen, LBrack, GLBrack:
		l.depth++
	case RParen, RBrack:
		if l.depth > 0 {
			l.depth--
		}
	}
	return t, nil
}

// Scanner is the hand-written, stateful .flow lexer. It never fails: bad
// input becomes Invalid tokens (or an unterminated String) that the caller
// reports with their exact position. Positions are byte based (Column counts
// bytes of the line, 1-based); a leading UTF-8 BOM is skipped and not
// counted in columns.
type Scanner struct {
	// InParen selects how '#' is read: true inside an open ( or [, where it
	// is expr's closure name, false elsewhere, where it starts a comment.
	// The line splitter sets it before each Next.
	InParen bool

	file      string
	src       string
	off       int
	line      int
	lineStart int
	prevEnd   int // end offset of the previous token on this line, -1 after a newline
}

// NewScanner returns a scanner over src.
func NewScanner(file, src string) *Scanner {
	s := &Scanner{file: file, src: src, line: 1, prevEnd: -1}
	if len(src) >= 3 && src[:3] == "\xef\xbb\xbf" {
		s.off, s.lineStart = 3, 3
	}
	return s
}

// Seek restarts scanning at offset off, which must be the start of line
// number line.
func (s *Scanner) Seek(off, line int) {
	s.off, s.line, s.lineStart, s.prevEnd = off, line, off, -1
	if off == 0 && len(s.src) >= 3 && s.src[:3] == "\xef\xbb\xbf" {
		s.off, s.lineStart = 3, 3
	}
}

// Offset is the offset of the next byte to scan.
func (s *Scanner) Offset() int { return s.off }

// Line is the line of the next byte to scan.
func (s *Scanner) Line() int { return s.line }

func (s *Scanner) pos(off int) lexer.Position {
	return lexer.Position{Filename: s.file, Offset: off, Line: s.line, Column: off - s.lineStart + 1}
}

func isIdentStart(c byte) bool {
	return c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// Next returns the next token; at the end it returns EOF tokens forever.
func (s *Scanner) Next() lexer.Token {
	src := s.src
	for s.off < len(src) {
		c := src[s.off]
		if c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' {
			s.off++
			continue
		}
		break
	}
	if s.off >= len(src) {
		return lexer.Token{Type: EOF, Pos: s.pos(s.off)}
	}
	start := s.off
	glued := s.prevEnd == start
	c := src[start]
	typ := Invalid
	switch {
	case c == '\n':
		t := lexer.Token{Type: NL, Value: "\n", Pos: s.pos(start)}
		s.off++
		s.line++
		s.lineStart = s.off
		s.prevEnd = -1
		return t
	case c == '#':
		if s.InParen {
			s.off++
			for s.off < len(src) && isIdentChar(src[s.off]) {
				s.off++
			}
			typ = Closure
		} else {
			for s.off < len(src) && src[s.off] != '\n' {
				s.off++
			}
			end := s.off
			for end > start && (src[end-1] == '\r' || src[end-1] == ' ' || src[end-1] == '\t') {
				end--
			}
			t := lexer.Token{Type: Comment, Value: src[start:end], Pos: s.pos(start)}
			s.prevEnd = end
			return t
		}
	case c == '"' || c == '\'' || c == '`':
		s.off++
		closed := false
		for s.off < len(src) {
			d := src[s.off]
			if d == '\n' {
				break
			}
			if d == '\\' && c != '`' {
				if s.off+1 < len(src) && src[s.off+1] != '\n' {
					s.off += 2
				} else {
					s.off++
				}
				continue
			}
			s.off++
			if d == c {
				closed = true
				break
			}
		}
		if !closed {
			// Unterminated: the token runs to the end of the line, minus a CR.
			for s.off > start+1 && src[s.off-1] == '\r' {
				s.off--
			}
		}
		typ = String
		if c != '"' {
			typ = SQString
		}
	case isDigit(c):
		typ = s.number()
	case isIdentStart(c):
		for s.off < len(src) && isIdentChar(src[s.off]) {
			s.off++
		}
		typ = Ident
	default:
		s.off++
		switch c {
		case '(':
			typ = LParen
			if glued {
				typ = GLParen
			}
		case '[':
			typ = LBrack
			if glued {
				typ = GLBrack
			}
		case ')':
			typ = RParen
		case ']':
			typ = RBrack
		case '{':
			typ = LBrace
		case '}':
			typ = RBrace
		case ',':
			typ = Comma
		case ':':
			typ = Colon
		case '.':
			if s.peek('.') {
				typ = Op
			} else if glued {
				typ = GDot
			} else {
				typ = Dot
			}
		case '=':
			if s.peek('=') {
				typ = Op
			} else {
				typ = Assign
			}
		case '!', '<', '>':
			s.peek('=')
			typ = Op
		case '&':
			s.peek('&')
			typ = Op
		case '|':
			s.peek('|')
			typ = Op
		case '?':
			if !s.peek('?') {
				s.peek('.')
			}
			typ = Op
		case '*':
			s.peek('*')
			typ = Op
		case '+', '-', '/', '%', '^', ';':
			typ = Op
		default:
			// One whole rune (or one bad byte) becomes an Invalid token.
			_, size := utf8.DecodeRuneInString(src[start:])
			s.off = start + size
		}
	}
	s.prevEnd = s.off
	return lexer.Token{Type: typ, Value: src[start:s.off], Pos: s.pos(start)}
}

func (s *Scanner) peek(c byte) bool {
	if s.off < len(s.src) && s.src[s.off] == c {
		s.off++
		return true
	}
	return false
}

// number scans a number or a duration starting at a digit.
func (s *Scanner) number() lexer.TokenType {
	src := s.src
	start := s.off
	// Duration: one or more DIGITS(ms|s|m|h) groups, not followed by an
	// identifier character.
	if end, ok := scanDuration(src, start); ok {
		s.off = end
		return Duration
	}
	if src[start] == '0' && start+1 < len(src) && (src[start+1] == 'x' || src[start+1] == 'X') {
		s.off = start + 2
		for s.off < len(src) && (isDigit(src[s.off]) || src[s.off] == '_' ||
			('a' <= src[s.off] && src[s.off] <= 'f') || ('A' <= src[s.off] && src[s.off] <= 'F')) {
			s.off++
		}
		return Number
	}
	for s.off < len(src) && (isDigit(src[s.off]) || src[s.off] == '_') {
		s.off++
	}
	if s.off+1 < len(src) && src[s.off] == '.' && isDigit(src[s.off+1]) {
		s.off++
		for s.off < len(src) && (isDigit(src[s.off]) || src[s.off] == '_') {
			s.off++
		}
	}
	if s.off < len(src) && (src[s.off] == 'e' || src[s.off] == 'E') {
		j := s.off + 1
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		if j < len(src) && isDigit(src[j]) {
			for j < len(src) && isDigit(src[j]) {
				j++
			}
			s.off = j
		}
	}
	return Number
}

func scanDuration(src string, i int) (int, bool) {
	groups := 0
	for i < len(src) && isDigit(src[i]) {
		j := i
		for j < len(src) && isDigit(src[j]) {
			j++
		}
		switch {
		case j+1 < len(src) && src[j] == 'm' && src[j+1] == 's':
			j += 2
		case j < len(src) && (src[j] == 's' || src[j] == 'm' || src[j] == 'h'):
			j++
		default:
			return 0, false
		}
		groups++
		i = j
	}
	if groups == 0 || (i < len(src) && isIdentChar(src[i])) {
		return 0, false
	}
	return i, true
}
