package diag

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFormatLongLine: a source line wider than MaxShown columns is shown
// as a window of at most MaxShown columns around the subject, "…" where
// it was cut, the caret still under the subject.
func TestFormatLongLine(t *testing.T) {
	pad := func(n int) string { return strings.Repeat("a", n) }
	huge := pad(1<<20) + " clik " + pad(1<<20) // one 2 MB line
	for _, c := range []struct {
		name       string
		line       string
		col, end   int
		want, hat  string // "" want: check window properties only
		cutL, cutR bool
	}{
		{name: "short line unchanged", line: "log x", col: 5, end: 6, want: "log x", hat: "    ^"},
		{name: "exactly MaxShown", line: pad(MaxShown), col: 3, end: 4, want: pad(MaxShown), hat: "  ^"},
		{name: "cut on the right", line: "clik " + pad(500), col: 1, end: 5, want: "clik " + pad(MaxShown-5) + "…", hat: "^~~~", cutR: true},
		{name: "cut on the left", line: pad(500) + " clik", col: 502, end: 506, cutL: true},
		{name: "cut on both sides", line: huge, col: 1<<20 + 2, end: 1<<20 + 6, cutL: true, cutR: true},
		{name: "past the end of a long line", line: pad(300), col: 301, end: 301, cutL: true},
	} {
		d := &Diagnostic{Summary: "e", Subject: rng(1, c.col, c.end)}
		out := d.Format([]byte(c.line + "\n"))
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(lines) != 3 {
			t.Errorf("%s: got %d lines:\n%.500s", c.name, len(lines), out)
			continue
		}
		shown := strings.TrimPrefix(lines[1], "    ")
		hat := strings.TrimPrefix(lines[2], "    ")
		if c.want != "" && (shown != c.want || hat != c.hat) {
			t.Errorf("%s:\ngot  %q\n     %q\nwant %q\n     %q", c.name, shown, hat, c.want, c.hat)
			continue
		}
		if n := utf8.RuneCountInString(shown); n > MaxShown+2 {
			t.Errorf("%s: shows %d columns, want at most %d", c.name, n, MaxShown+2)
		}
		if got := strings.HasPrefix(shown, "…"); got != c.cutL {
			t.Errorf("%s: cut on the left = %v, want %v: %q", c.name, got, c.cutL, shown)
		}
		if got := strings.HasSuffix(shown, "…"); got != c.cutR {
			t.Errorf("%s: cut on the right = %v, want %v: %q", c.name, got, c.cutR, shown)
		}
		// The caret sits under the subject's first character.
		at := strings.IndexByte(hat, '^')
		rs := []rune(shown)
		if c.col > len(c.line) {
			if at != len(rs) {
				t.Errorf("%s: caret at %d, want after the line's end %d", c.name, at, len(rs))
			}
			continue
		}
		if at < 0 || at >= len(rs) || rs[at] != rune(c.line[c.col-1]) {
			t.Errorf("%s: caret at %d not under the subject:\n%q\n%q", c.name, at, shown, hat)
		}
		if c.end-c.col == 4 && (at+4 > len(rs) || string(rs[at:at+4]) != "clik") {
			t.Errorf("%s: subject not under the caret: %q", c.name, shown)
		}
	}
}
