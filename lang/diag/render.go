package diag

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rpa-dev/rpa/lang/ast"
)

// TabWidth is the tab stop used when a source line is shown.
const TabWidth = 4

// Render writes ds in compiler form, errors first then warnings, each in
// source order (a sorted copy; ds is left as is):
//
//	login.flow:12:1: error: unknown action "clik"
//	    clik "#submit"
//	    ^~~~
//	    did you mean "click"?
//
// source returns a file's bytes; nil source reads files from disk. A
// diagnostic whose file or line cannot be shown gets the header (and
// detail) only.
func Render(w io.Writer, ds Diagnostics, source func(file string) []byte) error {
	sorted := append(Diagnostics(nil), ds...)
	sorted.Sort()
	cache := map[string][]byte{}
	get := func(file string) []byte {
		if file == "" {
			return nil
		}
		if b, ok := cache[file]; ok {
			return b
		}
		var b []byte
		if source != nil {
			b = source(file)
		} else if data, err := os.ReadFile(file); err == nil {
			b = data
		}
		cache[file] = b
		return b
	}
	for _, d := range sorted {
		if _, err := io.WriteString(w, d.Format(get(d.Subject.File))); err != nil {
			return err
		}
	}
	return nil
}

// Format renders one diagnostic in compiler form (see Render) given the
// source of its file (nil: header and detail only). When the Context
// starts on an earlier line than the Subject, that first line of the
// context comes before the subject's line ("..." between them when lines
// are skipped):
//
//	login.flow:14:17: error: unknown option "tmeout"
//	    for row in rows {
//	    ...
//	        click "#go" tmeout: 5s
//	                    ^~~~~~
//
// The result ends in a newline.
func (d *Diagnostic) Format(src []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s: %s\n", d.Subject.String(), d.Severity, d.Summary)
	if c := d.Context; c != nil && c.Start.Line > 0 && c.Start.Line < d.Subject.Start.Line {
		if line, ok := sourceLine(src, c.Start.Line); ok {
			shown, _ := caretLine(line, *c)
			b.WriteString("    " + shown + "\n")
			if d.Subject.Start.Line > c.Start.Line+1 {
				b.WriteString("    ...\n")
			}
		}
	}
	if line, ok := sourceLine(src, d.Subject.Start.Line); ok {
		shown, caret := caretLine(line, d.Subject)
		b.WriteString("    " + shown + "\n")
		b.WriteString("    " + caret + "\n")
	}
	if d.Detail != "" {
		for _, l := range strings.Split(d.Detail, "\n") {
			b.WriteString("    " + l + "\n")
		}
	}
	return b.String()
}

// sourceLine returns line n (1-based) of src without its line ending.
func sourceLine(src []byte, n int) (string, bool) {
	if src == nil || n < 1 {
		return "", false
	}
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(src, '\n')
		if j < 0 {
			return "", false
		}
		src = src[j+1:]
	}
	if j := bytes.IndexByte(src, '\n'); j >= 0 {
		src = src[:j]
	}
	return strings.TrimRight(string(src), "\r"), true
}

// MaxShown is the most display columns of a source line a diagnostic
// shows: a longer line (minified, generated, one 2 MB line) is cut to a
// window around the subject, each cut side marked with "…".
const MaxShown = 120

// shownBefore is how many columns of context the window keeps before the
// subject's start when the line is cut.
const shownBefore = 40

// caretLine expands tabs in line and builds the `^~~~` line under the
// subject's columns, counting display width (wide runes take two columns,
// combining marks none). Columns are byte columns (ast.Pos.Col). A line
// wider than MaxShown columns is cut to MaxShown columns around the
// subject, with "…" where it was cut.
func caretLine(line string, r ast.Range) (string, string) {
	from := r.Start.Col - 1
	to := from + 1
	if r.End.Line == r.Start.Line && r.End.Col > r.Start.Col {
		to = r.End.Col - 1
	}
	if from < 0 {
		from = 0
	}
	if from > len(line) {
		from = len(line)
	}
	if to > len(line) {
		to = len(line)
	}
	// cell is how rune c, at display column col, is shown.
	cell := func(c rune, col int) (string, int) {
		w := runeWidth(c)
		switch {
		case c == '\t':
			w = TabWidth - col%TabWidth
			return strings.Repeat(" ", w), w
		case c == utf8.RuneError || !unicode.IsPrint(c) && w > 0:
			return "?", 1
		}
		return string(c), w
	}
	// First pass: the line's width and the subject's start column.
	col, fromCol := 0, -1
	for i, c := range line {
		if i >= from && fromCol < 0 {
			fromCol = col
		}
		_, w := cell(c, col)
		col += w
	}
	total := col
	if fromCol < 0 {
		fromCol = total
	}
	lo, hi := 0, total
	if total > MaxShown {
		lo = max(fromCol-shownBefore, 0)
		hi = min(lo+MaxShown, total)
		lo = max(hi-MaxShown, 0)
	}
	var shown, caret strings.Builder
	if lo > 0 {
		shown.WriteString("…")
		caret.WriteString(" ")
	}
	col = 0
	for i, c := range line {
		s, w := cell(c, col)
		if col >= hi {
			break
		}
		if col >= lo && col+w <= hi {
			shown.WriteString(s)
			switch {
			case i < from:
				caret.WriteString(strings.Repeat(" ", w))
			case i == from:
				caret.WriteString("^" + strings.Repeat("~", max(w-1, 0)))
			case i < to:
				caret.WriteString(strings.Repeat("~", w))
			}
		}
		col += w
	}
	if hi < total {
		shown.WriteString("…")
	}
	if from >= len(line) {
		caret.WriteString("^")
	}
	return shown.String(), strings.TrimRight(caret.String(), " ")
}

// runeWidth is the display width of c in a terminal: 0 for combining marks
// and zero-width characters, 2 for East Asian wide and fullwidth runes
// (and emoji), 1 otherwise.
func runeWidth(c rune) int {
	switch {
	case c == 0x200B || c == 0x200C || c == 0x200D || c == 0xFEFF:
		return 0
	case unicode.Is(unicode.Mn, c) || unicode.Is(unicode.Me, c):
		return 0
	case c >= 0x1100 && c <= 0x115F, c >= 0x2E80 && c <= 0x303E, c >= 0x3041 && c <= 0x33FF,
		c >= 0x3400 && c <= 0x4DBF, c >= 0x4E00 && c <= 0x9FFF, c >= 0xA000 && c <= 0xA4CF,
		c >= 0xAC00 && c <= 0xD7A3, c >= 0xF900 && c <= 0xFAFF, c >= 0xFE30 && c <= 0xFE4F,
		c >= 0xFF00 && c <= 0xFF60, c >= 0xFFE0 && c <= 0xFFE6, c >= 0x1F300 && c <= 0x1F64F,
		c >= 0x1F900 && c <= 0x1F9FF, c >= 0x20000 && c <= 0x3FFFD:
		return 2
	}
	return 1
}
