// Package columns writes plain-text tables aligned by display width: the
// columns a terminal gives a text, where an East Asian wide or fullwidth
// character (中文, ｱ) takes two and a combining mark or a format character
// none. text/tabwriter counts runes instead, so a table holding Chinese
// text comes out misaligned; Writer is its replacement for the tables rpa
// prints (rpa runs, rpa runs show).
//
// Widths follow Unicode's East Asian Width property (UAX #11) through
// golang.org/x/text/width; ambiguous characters count one column, as in
// non-CJK locales.
package columns

import (
	"bytes"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// RuneWidth is the number of terminal columns r takes: 0 for a control
// character, a non-spacing or enclosing mark, a format character (such as
// U+200B) or a Hangul medial vowel or final consonant; 2 for an East Asian
// wide or fullwidth character; else 1.
func RuneWidth(r rune) int {
	switch {
	case r == 0 || r < 0x20 || r >= 0x7f && r < 0xa0:
		return 0
	case r < 0x7f:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) || r >= 0x1160 && r <= 0x11ff:
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Width is the number of terminal columns s takes (the sum of RuneWidth;
// an invalid byte counts one).
func Width(s string) int {
	n := 0
	for _, r := range s {
		if r == utf8.RuneError {
			n++
			continue
		}
		n += RuneWidth(r)
	}
	return n
}

// Clip returns s cut to at most n columns: when it is wider, its longest
// start of at most n-1 columns and "…".
func Clip(s string, n int) string {
	if Width(s) <= n {
		return s
	}
	w := 0
	for i, r := range s {
		rw := RuneWidth(r)
		if w+rw > n-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// Writer aligns text in columns, as text/tabwriter.NewWriter(w, minwidth,
// 0, padding, ' ', 0) does but by display width (Width): what is written
// is cells, each ended by a tab, in lines ended by a newline; the text
// after a line's last tab is not a column's cell and is not padded. Flush
// pads every cell with spaces to the width of its column's widest cell
// plus padding (at least minwidth, padding included), and writes the
// lines. A column is
// the cells at one position of consecutive lines that have a cell there,
// as in text/tabwriter: a line with fewer cells ends the columns it lacks.
// Nothing is written before Flush.
type Writer struct {
	out               io.Writer
	minwidth, padding int
	buf               bytes.Buffer
}

// NewWriter returns a Writer onto out with a column's least width
// minwidth (padding included) and padding spaces after a column's widest
// cell.
func NewWriter(out io.Writer, minwidth, padding int) *Writer {
	return &Writer{out: out, minwidth: minwidth, padding: padding}
}

// Write buffers p until Flush; it never fails.
func (w *Writer) Write(p []byte) (int, error) { return w.buf.Write(p) }

// Flush writes the buffered lines with their cells padded, and empties
// the buffer.
func (w *Writer) Flush() error {
	text := w.buf.String()
	w.buf.Reset()
	if text == "" {
		return nil
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	// cells[i] are line i's tab-ended cells; rest[i] what follows them.
	cells := make([][]string, len(lines))
	rest := make([]string, len(lines))
	for i, l := range lines {
		parts := strings.Split(l, "\t")
		cells[i], rest[i] = parts[:len(parts)-1], parts[len(parts)-1]
	}
	// widths[i][j]: the width of the column of line i's cell j, over the
	// run of consecutive lines that have a cell j.
	widths := make([][]int, len(lines))
	for i := range lines {
		widths[i] = make([]int, len(cells[i]))
	}
	for j := 0; ; j++ {
		found := false
		for i := 0; i < len(lines); {
			if len(cells[i]) <= j {
				i++
				continue
			}
			found = true
			end, wmax := i, 0
			for ; end < len(lines) && len(cells[end]) > j; end++ {
				wmax = max(wmax, Width(cells[end][j]))
			}
			for k := i; k < end; k++ {
				widths[k][j] = max(w.minwidth, wmax+w.padding)
			}
			i = end
		}
		if !found {
			break
		}
	}
	var b strings.Builder
	for i := range lines {
		for j, c := range cells[i] {
			b.WriteString(c)
			b.WriteString(strings.Repeat(" ", widths[i][j]-Width(c)))
		}
		b.WriteString(rest[i])
	}
	_, err := io.WriteString(w.out, b.String())
	return err
}
