package columns

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"text/tabwriter"
)

func TestWidth(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"中文", 4},
		{"北京市 Beijing", 14},
		{"ｱｲｳ", 3},      // halfwidth katakana
		{"ＡＢ", 4},       // fullwidth Latin
		{"한국어", 6},      // Hangul syllables
		{"e\u0301", 1},  // e and a combining acute accent
		{"a\u200bb", 2}, // a zero width space
		{"\t", 0},
		{"😀", 2},
		{"é", 1},
		{"\xff", 1}, // an invalid byte
	} {
		if got := Width(c.s); got != c.want {
			t.Errorf("Width(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"abcdef", 6, "abcdef"},
		{"abcdef", 5, "abcd…"},
		{"中文中文", 8, "中文中文"},
		{"中文中文", 7, "中文中…"},
		{"中文中文", 6, "中文…"}, // 中文中 is 6 columns, over n-1
		{"a中文", 4, "a中…"},
	} {
		if got := Clip(c.s, c.n); got != c.want || Width(got) > c.n {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}

// TestAligned: in a table of Chinese and ASCII cells every column starts
// at the same display column on every line, two columns past the widest
// cell before it (text/tabwriter puts the second column of a Chinese row
// two columns early for each Chinese character before it).
func TestAligned(t *testing.T) {
	for _, c := range []struct {
		name string
		rows [][]string
	}{
		{"ascii", [][]string{{"REGION", "COUNT", "NOTE"}, {"north", "12", "ok"}, {"south-east", "3", "-"}}},
		{"chinese", [][]string{{"地区", "数量", "备注"}, {"华北", "12", "正常"}, {"华东地区", "3", "-"}}},
		{"mixed", [][]string{{"REGION", "名称", "STATUS"}, {"北京市", "Beijing", "ok"}, {"Shanghai", "上海市浦东新区", "正常"}, {"x", "-", "中"}}},
		{"fullwidth and marks", [][]string{{"ＡＢＣ", "e\u0301t\u0301e\u0301", "z"}, {"abc", "ete", "z"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			w := NewWriter(&b, 0, 2)
			for _, r := range c.rows {
				fmt.Fprintln(w, strings.Join(r, "\t"))
			}
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			if len(lines) != len(c.rows) {
				t.Fatalf("%d lines:\n%s", len(lines), b.String())
			}
			start := 0 // where column j starts
			for j := range c.rows[0] {
				for i, l := range lines {
					if got := Width(cellStart(t, l, c.rows[i], j)); got != start {
						t.Errorf("line %d: column %d starts at display column %d, want %d:\n%s", i, j, got, start, b.String())
					}
				}
				widest := 0
				for _, r := range c.rows {
					widest = max(widest, Width(r[j]))
				}
				start += widest + 2
			}
		})
	}
}

// cellStart returns the part of line before its cell j, cells being
// separated by spaces (no cell of the tests is empty or starts with one).
func cellStart(t *testing.T, line string, cells []string, j int) string {
	t.Helper()
	off := 0
	for k := 0; k < j; k++ {
		if !strings.HasPrefix(line[off:], cells[k]) {
			t.Fatalf("cell %d %q not at byte %d of %q", k, cells[k], off, line)
		}
		off += len(cells[k])
		for off < len(line) && line[off] == ' ' {
			off++
		}
	}
	if !strings.HasPrefix(line[off:], cells[j]) {
		t.Fatalf("cell %d %q not at byte %d of %q", j, cells[j], off, line)
	}
	return line[:off]
}

// TestLikeTabwriter: on ASCII text the output is text/tabwriter's
// (minwidth, padding, a trailing cell, a line with fewer cells ending a
// column, empty cells, text with no tab).
func TestLikeTabwriter(t *testing.T) {
	for _, in := range []string{
		"a\tbb\tccc\ndddd\te\tf\n",
		"#\tLINE\tACTION\n1\t2\tclick\n10\t22\topen\n",
		"\n#\tLINE\n1\t2\n",
		"a\tb\tc\nlonger line with no tab\nxxxxxx\ty\tz\n",
		"a\tb\tc\nxx\n1234567\t1\t2\n",
		"\t\tx\n\tyy\tz\n",
		"no newline at the end\tx",
		"",
	} {
		for _, mw := range []int{0, 4} {
			var want, got bytes.Buffer
			tw := tabwriter.NewWriter(&want, mw, 0, 2, ' ', 0)
			tw.Write([]byte(in))
			tw.Flush()
			w := NewWriter(&got, mw, 2)
			w.Write([]byte(in))
			if err := w.Flush(); err != nil {
				t.Fatal(err)
			}
			if got.String() != want.String() {
				t.Errorf("minwidth %d, %q:\ngot  %q\nwant %q", mw, in, got.String(), want.String())
			}
		}
	}
}
