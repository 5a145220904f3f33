package runs

import (
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/internal/columns"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.Local)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2h", now.Add(-2 * time.Hour)},
		{"7d", now.AddDate(0, 0, -7)},
		{"2026-11-30", time.Date(2026, 11, 30, 0, 0, 0, 0, time.Local)},
	} {
		got, err := ParseSince(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseSince(%q) = %v, %v", c.in, got, err)
		}
	}
	if _, err := ParseSince("yesterday", now); err == nil {
		t.Error("ParseSince(yesterday) = nil error")
	}
}

// TestShowAlignsChinese: the tables of `rpa runs show` (its steps and
// its outputs) line up by display width when cells hold Chinese text: a
// column starts at the same terminal column on every row.
func TestShowAlignsChinese(t *testing.T) {
	r := &Run{ID: "r1", Flow: "查询", Status: "ok", Start: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	steps := []Step{
		{Index: 1, Line: 3, Action: "open", Target: "https://example.test/", Selector: "-", Status: "ok", DurationMs: 120},
		{Index: 2, Line: 4, Action: "click", Target: "查询按钮", Selector: "#查询", Status: "ok", DurationMs: 8},
		{Index: 3, Line: 12, Action: "fill", Target: "地区名称", Selector: "input[name=q]", Status: "failed", DurationMs: 1500},
	}
	var b strings.Builder
	if err := WriteRun(&b, r, steps, "/x"); err != nil {
		t.Fatal(err)
	}
	out := &Outputs{JSON: []byte(`{"rows":[{"地区":"华北","数量":12,"备注":"正常"},{"地区":"华东地区","数量":3,"备注":"ok"},{"地区":"north","数量":100,"备注":"多行\n文本"}]}`)}
	if err := WriteOutputs(&b, "r1", out); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, c := range []struct {
		name string
		rows [][]string
	}{
		{"steps", [][]string{
			{"#", "LINE", "ACTION", "TARGET", "SELECTOR", "STATUS"},
			{"1", "3", "open", "https://example.test/", "-", "ok"},
			{"2", "4", "click", "查询按钮", "#查询", "ok"},
			{"3", "12", "fill", "地区名称", "input[name=q]", "failed"},
		}},
		{"outputs", [][]string{
			{"地区", "数量", "备注"},
			{"华北", "12", "正常"},
			{"华东地区", "3", "ok"},
			{"north", "100", "多行 文本"},
		}},
	} {
		var lines []string
		for _, row := range c.rows {
			l := lineStarting(text, row[0]+" ")
			if l == "" {
				t.Fatalf("%s: no line starting %q in\n%s", c.name, row[0], text)
			}
			lines = append(lines, l)
		}
		// Column j starts where its header does, on every row.
		for j := 1; j < len(c.rows[0]); j++ {
			want := displayStart(t, lines[0], c.rows[0], j)
			for i := 1; i < len(lines); i++ {
				if got := displayStart(t, lines[i], c.rows[i], j); got != want {
					t.Errorf("%s: row %d's cell %q starts at column %d, its header at %d:\n%s", c.name, i, c.rows[i][j], got, want, text)
				}
			}
		}
	}
}

// lineStarting is the line of text that starts with prefix ("" if none).
func lineStarting(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

// displayStart is the terminal column where cell j of line starts (cells
// as given, separated by spaces).
func displayStart(t *testing.T, line string, cells []string, j int) int {
	t.Helper()
	off := 0
	for k := 0; k <= j; k++ {
		if k > 0 {
			for off < len(line) && line[off] == ' ' {
				off++
			}
		}
		if !strings.HasPrefix(line[off:], cells[k]) {
			t.Fatalf("cell %q not at byte %d of %q", cells[k], off, line)
		}
		if k < j {
			off += len(cells[k])
		}
	}
	return columns.Width(line[:off])
}
