package demoapp

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// tableColumns are the demo table's columns in display order; the region
// (the same on every row, in CJK characters that tabwriter cannot
// measure) goes in the count line instead.
var tableColumns = []string{"date", "kWh", "peak", "valley", "cost"}

// cell is row's value at key: row is a map, or an ordered row with a Get
// method (interp.Row).
func cell(row any, key string) any {
	switch r := row.(type) {
	case map[string]any:
		return r[key]
	case interface{ Get(string) any }:
		return r.Get(key)
	}
	return nil
}

// PrintRows prints outputs.rows of an example flow run against the app (a
// list of rows keyed by the table's header) as an aligned table with a
// count line: `rpa demo`'s output. It returns false when outputs holds no
// such list.
func PrintRows(w io.Writer, outputs any) bool {
	m, ok := outputs.(map[string]any)
	if !ok {
		return false
	}
	rows, ok := m["rows"].([]any)
	if !ok {
		return false
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(tableColumns, "\t")+"\t")
	for _, r := range rows {
		cells := make([]string, len(tableColumns))
		for i, c := range tableColumns {
			cells[i] = fmt.Sprint(cell(r, c))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
	}
	_ = tw.Flush()
	regions := map[string]bool{}
	var names []string
	for _, r := range rows {
		if s, ok := cell(r, "region").(string); ok && !regions[s] {
			regions[s] = true
			names = append(names, s)
		}
	}
	fmt.Fprintf(w, "%d rows", len(rows))
	if len(names) > 0 {
		fmt.Fprintf(w, " · region %s", strings.Join(names, ", "))
	}
	fmt.Fprintln(w)
	return true
}
