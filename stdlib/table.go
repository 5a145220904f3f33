package stdlib

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rpa-dev/rpa/drivers"
)

// TableKeys returns one key per column of g (LANGUAGE.md, "table"): the
// distinct non-empty texts of the column's header rows joined with " / ";
// a repeated key gets " 2", " 3", ...; a column without header text is
// "col N" (1-based). A table without header rows uses its first body row
// as the header (TableRows then leaves it out).
func TableKeys(g *drivers.Grid) []string {
	head, _ := splitHead(g)
	width := gridWidth(g)
	keys := make([]string, width)
	seen := map[string]int{}
	for c := 0; c < width; c++ {
		var parts []string
		for _, row := range head {
			if c >= len(row) {
				continue
			}
			t := strings.TrimSpace(row[c].Text)
			if t == "" || (len(parts) > 0 && slices.Contains(parts, t)) {
				continue
			}
			parts = append(parts, t)
		}
		k := strings.Join(parts, " / ")
		if k == "" {
			k = "col " + strconv.Itoa(c+1)
		}
		seen[k]++
		if n := seen[k]; n > 1 {
			k += " " + strconv.Itoa(n)
		}
		keys[c] = k
	}
	return keys
}

// splitHead returns the header rows and the body rows of g.
func splitHead(g *drivers.Grid) (head, body [][]drivers.Cell) {
	if len(g.Head) > 0 || len(g.Body) == 0 {
		return g.Head, g.Body
	}
	return g.Body[:1], g.Body[1:]
}

func gridWidth(g *drivers.Grid) int {
	w := 0
	for _, rows := range [][][]drivers.Cell{g.Head, g.Body} {
		for _, r := range rows {
			w = max(w, len(r))
		}
	}
	return w
}

// TableRows returns the body rows of g as lists of texts, each padded to
// the table's width; rows whose cells are all empty are left out.
func TableRows(g *drivers.Grid) [][]string {
	_, body := splitHead(g)
	return textRows(body, gridWidth(g))
}

func textRows(rows [][]drivers.Cell, width int) [][]string {
	out := make([][]string, 0, len(rows))
	for _, r := range rows {
		row := make([]string, width)
		empty := true
		for i, c := range r {
			row[i] = strings.TrimSpace(c.Text)
			if row[i] != "" {
				empty = false
			}
		}
		if !empty {
			out = append(out, row)
		}
	}
	return out
}

// TableAuto is `table` with header "auto": one map per body row, keyed by
// TableKeys.
func TableAuto(g *drivers.Grid) []any {
	keys := TableKeys(g)
	rows := TableRows(g)
	out := make([]any, len(rows))
	for i, r := range rows {
		m := make(map[string]any, len(keys))
		for c, k := range keys {
			m[k] = r[c]
		}
		out[i] = m
	}
	return out
}

// TableGrid is `table` with header "grid": {"headers": [...], "rows":
// [[...], ...]}, columns in table order.
func TableGrid(g *drivers.Grid) map[string]any {
	keys := TableKeys(g)
	hs := make([]any, len(keys))
	for i, k := range keys {
		hs[i] = k
	}
	return map[string]any{"headers": hs, "rows": anyRows(TableRows(g))}
}

// TableNone is `table` with header "none": every header and body row as a
// list of texts (all-empty rows and tfoot left out).
func TableNone(g *drivers.Grid) []any {
	rows := append(append([][]drivers.Cell{}, g.Head...), g.Body...)
	return anyRows(textRows(rows, gridWidth(g)))
}

func anyRows(rows [][]string) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		row := make([]any, len(r))
		for j, s := range r {
			row[j] = s
		}
		out[i] = row
	}
	return out
}
