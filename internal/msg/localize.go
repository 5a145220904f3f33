package msg

import (
	"bytes"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// OutPrefix starts the keys of the catalog's output lines: messages that
// code prints in English (an error's text, a command's summary line) and
// Localize finds again by their English text to say them in Chinese, as
// gettext finds a message by its English msgid. A program's output is
// translated where it reaches a person (the command's terminal, a console
// page); logs, JSON and the failure packet's keys stay English.
//
// An output line's En is a fmt format; its verbs match: %s and %v any text
// (itself localized: a wrapped error), %q a Go-quoted string, %d an
// integer, %f/%g (with width and precision) a number. Its Zh may reorder
// them (%[2]s).
const OutPrefix = "out."

type outLine struct {
	re   *regexp.Regexp
	zh   string
	kind []byte // the En verbs' kinds, in order ('s', 'q', 'd', ...)
	// literal is how many characters of En are not verbs (more: tried first)
	literal int
}

var outs struct {
	mu    sync.Mutex
	n     int // len(catalog.m) when lines was built
	lines []outLine
}

// outLines compiles the output lines of the catalog (again when it grew).
func outLines() []outLine {
	catalog.mu.RLock()
	n := len(catalog.m)
	catalog.mu.RUnlock()
	outs.mu.Lock()
	defer outs.mu.Unlock()
	if outs.lines != nil && outs.n == n {
		return outs.lines
	}
	var ls []outLine
	for _, k := range Keys() {
		if !strings.HasPrefix(k, OutPrefix) {
			continue
		}
		t, _ := Lookup(k)
		var re strings.Builder
		var kinds []byte
		re.WriteString("^")
		last := 0
		for _, loc := range verbs.FindAllStringIndex(t.En, -1) {
			re.WriteString(regexp.QuoteMeta(t.En[last:loc[0]]))
			v := t.En[loc[0]:loc[1]]
			last = loc[1]
			switch c := v[len(v)-1]; c {
			case '%':
				re.WriteString("%")
				continue
			case 'q':
				re.WriteString(`("(?:[^"\\]|\\.)*")`)
				kinds = append(kinds, c)
			case 'd':
				re.WriteString(`(-?\d+)`)
				kinds = append(kinds, c)
			case 'f', 'g', 'e':
				re.WriteString(`(-?[\d.]+(?:e[-+]?\d+)?)`)
				kinds = append(kinds, c)
			default:
				re.WriteString(`(.+?)`)
				kinds = append(kinds, 's')
			}
		}
		re.WriteString(regexp.QuoteMeta(t.En[last:]))
		re.WriteString("$")
		ls = append(ls, outLine{re: regexp.MustCompile(re.String()), zh: t.Zh, kind: kinds, literal: len(verbs.ReplaceAllString(t.En, ""))})
	}
	// The most specific first: "wrote %s: %d rows" before "wrote %s".
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].literal > ls[j].literal })
	outs.lines, outs.n = ls, n
	return ls
}

// Localize is s for a person reading lang: in Chinese each line of s that
// one of the catalog's output lines (OutPrefix) made is said in Chinese,
// its arguments kept as they were (a %s argument localized in turn); a
// line that is only a tail of one ("rpa run: " before it, a file's
// position "x.flow:3:1: ") has its tail said in Chinese. Lines of JSON
// (starting with { or [, or with a key: `"status": `) and lines no output line made come back as
// they are. In English s comes back as it is.
func Localize(lang, s string) string {
	if lang != "zh" || s == "" {
		return s
	}
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		body := strings.TrimRight(l, "\r\n")
		lines[i] = localizeLine(body, 0) + l[len(body):]
	}
	return strings.Join(lines, "")
}

// jsonKey matches a line of indented JSON that starts with a key and a value (a quoted text
// with a sentence after it, `"x": scheme "y" is ...`, is a message, not JSON).
var jsonKey = regexp.MustCompile(`^"(?:[^"\\]|\\.)*": (?:["{\[\d-]|true\b|false\b|null\b)`)

// localizeLine localizes one line (depth bounds the recursion into arguments).
func localizeLine(l string, depth int) string {
	trimmed := strings.TrimLeft(l, " \t")
	indent := l[:len(l)-len(trimmed)]
	if trimmed == "" || depth > 4 || strings.ContainsAny(trimmed[:1], `{[`) || jsonKey.MatchString(trimmed) {
		return l
	}
	if z, ok := localizeWhole(trimmed, depth); ok {
		return indent + z
	}
	// A tail after "prefix: ".
	for i := 0; i+2 < len(trimmed); i++ {
		if trimmed[i] == ':' && trimmed[i+1] == ' ' {
			if z, ok := localizeWhole(trimmed[i+2:], depth); ok {
				return indent + trimmed[:i+2] + z
			}
		}
	}
	return l
}

func localizeWhole(s string, depth int) (string, bool) {
	for _, o := range outLines() {
		m := o.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		args := m[1:]
		for i, k := range o.kind {
			if k == 's' {
				args[i] = localizeLine(args[i], depth+1)
			}
		}
		return fill(o.zh, args), true
	}
	return "", false
}

// fill puts the matched arguments' text in place of zh's verbs (in order,
// or by their %[n] index).
func fill(zh string, args []string) string {
	var b strings.Builder
	last, next := 0, 0
	for _, loc := range verbs.FindAllStringSubmatchIndex(zh, -1) {
		b.WriteString(zh[last:loc[0]])
		last = loc[1]
		if zh[loc[1]-1] == '%' {
			b.WriteString("%")
			continue
		}
		i := next
		if loc[2] >= 0 { // %[n]
			n, _ := strconv.Atoi(zh[loc[2]+1 : loc[3]-1])
			i = n - 1
		}
		next = i + 1
		if i >= 0 && i < len(args) {
			b.WriteString(args[i])
		}
	}
	b.WriteString(zh[last:])
	return b.String()
}

// Writer returns w for a person reading lang: in Chinese, a writer that
// passes each line it is given whole (ended by \n or \r) through Localize,
// and what follows the last line end at once as it is (a prompt waits for
// no line end; a line written in pieces stays English). A line that is not
// UTF-8 text passes as it is. In English w itself. When w has a file
// descriptor (Fd, as *os.File), so has the writer returned (a command asks
// it whether it writes to a terminal).
func Writer(lang string, w io.Writer) io.Writer {
	if lang != "zh" {
		return w
	}
	lw := &lineWriter{w: w}
	if f, ok := w.(interface{ Fd() uintptr }); ok {
		return fdLineWriter{lw, f}
	}
	return lw
}

// fdLineWriter is a lineWriter on a file: Fd is the file's.
type fdLineWriter struct {
	*lineWriter
	f interface{ Fd() uintptr }
}

// Fd is the descriptor of the file written to.
func (w fdLineWriter) Fd() uintptr { return w.f.Fd() }

type lineWriter struct{ w io.Writer }

func (l *lineWriter) Write(p []byte) (int, error) {
	var out []byte
	rest := p
	for len(rest) > 0 {
		i := bytes.IndexAny(rest, "\r\n")
		if i < 0 {
			out = append(out, rest...)
			break
		}
		line := rest[:i+1]
		rest = rest[i+1:]
		if utf8.Valid(line) {
			out = append(out, Localize("zh", string(line))...)
		} else {
			out = append(out, line...)
		}
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}
