package importer

import (
	"bytes"
	"fmt"
	"iter"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/rpa-dev/rpa/lang/ast"
)

// jkind is the kind of a JSON value.
type jkind byte

const (
	jNull jkind = iota
	jBool
	jNumber
	jString
	jArray
	jObject
)

// String names the kind for messages ("object", "string" ...).
func (k jkind) String() string {
	return [...]string{"null", "bool", "number", "string", "array", "object"}[k]
}

// jnode is one JSON value with the byte offset where it starts, so that every
// diagnostic can name the line:col of the step it is about. encoding/json
// gives offsets only token by token (Decoder.InputOffset); a small scanner
// that keeps them on the tree is simpler to use.
//
// A recording holds millions of them while it is parsed: the struct is
// kept small (112 bytes; an object's members are one slice).
type jnode struct {
	kind jkind
	b    bool
	// lazy: an array whose elements are not kept (a recording's "steps",
	// see parseRecording); items parses them again from raw, one by one.
	lazy bool
	// flowSteps: an element of the lazy array has "attrs" or "body"
	// (a JSON flow's steps: detect), seen as it was parsed the first time
	flowSteps bool
	off       int    // byte offset of the value's first character
	end       int    // byte offset just past the value
	str       string // a string's value; a number's raw text
	mems      []jmember
	elems     []*jnode
	raw       []byte // the whole input (lazy arrays)
}

// jmember is a member of an object.
type jmember struct {
	key  string
	koff int // offset of the key
	val  *jnode
}

// lazyDepth is the nesting depth of a lazy array's elements (the root
// object is 0, its "steps" 1).
const lazyDepth = 2

// items yields the elements of an array in order. The elements of a lazy
// array are parsed as they are asked for, each dropped once the caller
// lets go of it: a recording of 300,000 steps is never one tree.
func (n *jnode) items() iter.Seq2[int, *jnode] {
	return func(yield func(int, *jnode) bool) {
		if !n.lazy {
			for i, e := range n.elems {
				if !yield(i, e) {
					return
				}
			}
			return
		}
		p := &jparser{src: n.raw, i: n.off + 1}
		for i := 0; ; i++ {
			p.ws()
			if p.i >= len(p.src) || p.src[p.i] == ']' {
				return
			}
			e, err := p.value(lazyDepth)
			if err != nil { // parseRecording saw the whole array parse
				return
			}
			if !yield(i, e) {
				return
			}
			p.ws()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
			}
		}
	}
}

// list returns the elements of an array (a lazy array's parsed again, all
// kept).
func (n *jnode) list() []*jnode {
	if !n.lazy {
		return n.elems
	}
	var out []*jnode
	for _, e := range n.items() {
		out = append(out, e)
	}
	return out
}

// get returns the member k of an object, or nil.
func (n *jnode) get(k string) *jnode {
	if n == nil || n.kind != jObject {
		return nil
	}
	for _, m := range n.mems {
		if m.key == k {
			return m.val
		}
	}
	return nil
}

// has reports whether the object has member k.
func (n *jnode) has(k string) bool { return n.get(k) != nil }

// getStr returns the string member k ("" when absent or not a string).
func (n *jnode) getStr(k string) string {
	v := n.get(k)
	if v == nil || v.kind != jString {
		return ""
	}
	return v.str
}

// getNum returns the number member k as a float, ok=false when absent or not
// a number.
func (n *jnode) getNum(k string) (float64, bool) {
	v := n.get(k)
	if v == nil || v.kind != jNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.str, 64)
	return f, err == nil
}

// getBool returns the bool member k, def when absent.
func (n *jnode) getBool(k string, def bool) bool {
	v := n.get(k)
	if v == nil || v.kind != jBool {
		return def
	}
	return v.b
}

// text renders a scalar for messages (strings unquoted).
func (n *jnode) text() string {
	switch n.kind {
	case jString:
		return n.str
	case jNumber:
		return n.str
	case jBool:
		return strconv.FormatBool(n.b)
	case jNull:
		return "null"
	}
	return n.kind.String()
}

// source maps byte offsets of one input file to line:col.
type source struct {
	name    string
	src     []byte
	lines   []int    // offset of the first byte of each line
	dropped []string // recorded password values the import dropped (Redact)
}

func newSource(name string, src []byte) *source {
	s := &source{name: name, src: src, lines: []int{0}}
	for i, c := range src {
		if c == '\n' {
			s.lines = append(s.lines, i+1)
		}
	}
	return s
}

// pos converts a byte offset into a Pos (1-based line, byte column).
func (s *source) pos(off int) ast.Pos {
	if off < 0 {
		off = 0
	}
	if off > len(s.src) {
		off = len(s.src)
	}
	i := sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > off }) - 1
	return ast.Pos{Line: i + 1, Col: off - s.lines[i] + 1, Offset: off}
}

// rng is the range of a JSON value in the input file, cut at the end of
// its first line (a step object spans many; the caret goes under its
// opening line).
func (s *source) rng(n *jnode) ast.Range {
	if n == nil {
		return ast.Range{File: s.name, Start: s.pos(0), End: s.pos(0)}
	}
	start, end := s.pos(n.off), s.pos(n.end)
	if end.Line != start.Line {
		eol := len(s.src)
		if start.Line < len(s.lines) {
			eol = s.lines[start.Line] - 1
		}
		end = s.pos(eol)
	}
	return ast.Range{File: s.name, Start: start, End: end}
}

// jsonError is a syntax error at a byte offset.
type jsonError struct {
	off int
	msg string
}

// Error is the message, without the position (see Import).
func (e *jsonError) Error() string { return e.msg }

// parseJSON parses one JSON document (RFC 8259, with a leading UTF-8 BOM
// allowed) into a jnode tree.
func parseJSON(src []byte) (*jnode, error) {
	return parseDoc(&jparser{src: src})
}

// parseRecording is parseJSON, except that a "steps" array member of the
// top-level object is lazy: its elements are parsed (every syntax error is
// found as parseJSON finds it) but not kept; items parses them again one
// at a time.
func parseRecording(src []byte) (*jnode, error) {
	return parseDoc(&jparser{src: src, lazySteps: true})
}

func parseDoc(p *jparser) (*jnode, error) {
	if bytes.HasPrefix(p.src, []byte("\ufeff")) {
		p.i = 3
	}
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i < len(p.src) {
		return nil, p.errf("unexpected %s after the JSON value", p.what())
	}
	return v, nil
}

type jparser struct {
	src       []byte
	i         int
	lazySteps bool // the top-level object's "steps" array is lazy
}

func (p *jparser) errf(format string, args ...any) error {
	return &jsonError{off: p.i, msg: fmt.Sprintf(format, args...)}
}

func (p *jparser) what() string {
	if p.i >= len(p.src) {
		return "end of input"
	}
	r, _ := utf8.DecodeRune(p.src[p.i:])
	return strconv.QuoteRune(r)
}

func (p *jparser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jparser) value(depth int) (*jnode, error) {
	if depth > 512 {
		return nil, p.errf("JSON nested too deeply")
	}
	if p.i >= len(p.src) {
		return nil, p.errf("unexpected end of input, expected a value")
	}
	start := p.i
	switch c := p.src[p.i]; {
	case c == '{':
		n := &jnode{kind: jObject, off: start}
		p.i++
		p.ws()
		if p.i < len(p.src) && p.src[p.i] == '}' {
			p.i++
			n.end = p.i
			return n, nil
		}
		for {
			p.ws()
			if p.i >= len(p.src) || p.src[p.i] != '"' {
				return nil, p.errf("expected a member name (a string), found %s", p.what())
			}
			koff := p.i
			k, err := p.string()
			if err != nil {
				return nil, err
			}
			p.ws()
			if p.i >= len(p.src) || p.src[p.i] != ':' {
				return nil, p.errf("expected ':' after member name %q, found %s", k, p.what())
			}
			p.i++
			p.ws()
			var v *jnode
			if p.lazySteps && depth == 0 && k == "steps" && p.i < len(p.src) && p.src[p.i] == '[' {
				v, err = p.array(depth+1, false)
			} else {
				v, err = p.value(depth + 1)
			}
			if err != nil {
				return nil, err
			}
			n.mems = append(n.mems, jmember{k, koff, v})
			p.ws()
			if p.i < len(p.src) && p.src[p.i] == ',' {
				p.i++
				continue
			}
			if p.i < len(p.src) && p.src[p.i] == '}' {
				p.i++
				n.end = p.i
				return n, nil
			}
			return nil, p.errf("expected ',' or '}' in object, found %s", p.what())
		}
	case c == '[':
		return p.array(depth, true)
	case c == '"':
		s, err := p.string()
		if err != nil {
			return nil, err
		}
		return &jnode{kind: jString, off: start, end: p.i, str: s}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	default:
		for _, lit := range []struct {
			w string
			n jnode
		}{{"true", jnode{kind: jBool, b: true}}, {"false", jnode{kind: jBool}}, {"null", jnode{kind: jNull}}} {
			if bytes.HasPrefix(p.src[p.i:], []byte(lit.w)) { // not string(p.src[p.i:]): a copy of the rest of the input
				n := lit.n
				n.off = start
				p.i += len(lit.w)
				n.end = p.i
				return &n, nil
			}
		}
		return nil, p.errf("unexpected %s, expected a value", p.what())
	}
}

// array parses the array at p.i (a value at depth); its elements are
// kept unless !keep (a lazy array: see parseRecording).
func (p *jparser) array(depth int, keep bool) (*jnode, error) {
	n := &jnode{kind: jArray, off: p.i, lazy: !keep}
	if !keep {
		n.raw = p.src
	}
	p.i++
	p.ws()
	if p.i < len(p.src) && p.src[p.i] == ']' {
		p.i++
		n.end = p.i
		return n, nil
	}
	for {
		p.ws()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		if keep {
			n.elems = append(n.elems, v)
		} else if v.has("attrs") || v.has("body") {
			n.flowSteps = true
		}
		p.ws()
		if p.i < len(p.src) && p.src[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			n.end = p.i
			return n, nil
		}
		return nil, p.errf("expected ',' or ']' in array, found %s", p.what())
	}
}

func (p *jparser) number() (*jnode, error) {
	start := p.i
	if p.src[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if digits() == 0 {
		return nil, p.errf("malformed number")
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errf("malformed number")
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errf("malformed number")
		}
	}
	return &jnode{kind: jNumber, off: start, end: p.i, str: string(p.src[start:p.i])}, nil
}

func (p *jparser) string() (string, error) {
	p.i++ // opening quote
	// fast path: no escape before the closing quote (one allocation)
	for j := p.i; j < len(p.src); j++ {
		c := p.src[j]
		if c == '"' {
			s := string(p.src[p.i:j])
			p.i = j + 1
			return s, nil
		}
		if c == '\\' || c < 0x20 {
			break
		}
	}
	var b strings.Builder
	for {
		if p.i >= len(p.src) {
			return "", p.errf("unterminated string")
		}
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			p.i++
			if p.i >= len(p.src) {
				return "", p.errf("unterminated string")
			}
			e := p.src[p.i]
			p.i++
			switch e {
			case '"', '\\', '/':
				b.WriteByte(e)
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) && p.i+1 < len(p.src) && p.src[p.i] == '\\' && p.src[p.i+1] == 'u' {
					p.i += 2
					r2, err := p.hex4()
					if err != nil {
						return "", err
					}
					r = utf16.DecodeRune(r, r2)
				}
				b.WriteRune(r)
			default:
				p.i--
				return "", p.errf("invalid escape \\%c in string", e)
			}
		case c < 0x20:
			return "", p.errf("control character in string")
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

func (p *jparser) hex4() (rune, error) {
	if p.i+4 > len(p.src) {
		return 0, p.errf("malformed \\u escape")
	}
	v, err := strconv.ParseUint(string(p.src[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, p.errf("malformed \\u escape")
	}
	p.i += 4
	return rune(v), nil
}

// describe names a value for a type error: `string "10px"`, `number 123`,
// `bool true`, `null`, `an object`, `an array` (long strings cut).
func (n *jnode) describe() string {
	switch n.kind {
	case jString:
		s := n.str
		if utf8.RuneCountInString(s) > 40 {
			s = string([]rune(s)[:40]) + "…"
		}
		return "string " + strconv.Quote(s)
	case jNumber:
		return "number " + n.str
	case jBool:
		return "bool " + strconv.FormatBool(n.b)
	case jNull:
		return "null"
	case jArray:
		return "an array"
	}
	return "an object"
}

// kindArticle is "a number", "an object" ... for messages.
func kindArticle(k jkind) string {
	if k == jArray || k == jObject {
		return "an " + k.String()
	}
	return "a " + k.String()
}

// mistyped says what is wrong with member key of obj when it is present
// and not of kind want (a number that does not fit a float64 is wrong
// too): `"width" must be a number, found string "abc"`; "" when it is
// absent or right.
func mistyped(obj *jnode, key string, want jkind) string {
	v := obj.get(key)
	if v == nil {
		return ""
	}
	if v.kind != want {
		return fmt.Sprintf("%q must be %s, found %s", key, kindArticle(want), v.describe())
	}
	if want == jNumber {
		if _, err := strconv.ParseFloat(v.str, 64); err != nil {
			return fmt.Sprintf("%q: number %s is out of range", key, v.str)
		}
	}
	return ""
}
