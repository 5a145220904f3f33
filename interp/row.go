package interp

import (
	"slices"
	"sort"

	"github.com/rpa-dev/rpa/internal/orderedjson"
)

// Row is a table row in the page's column order, as Result.Outputs and
// StepResult.Output hold the rows of a `table` (LANGUAGE.md, "table":
// header "auto"). Inside a run a row is a map (expressions read row.date,
// row["kWh"]); when the run's values are handed over, interp turns every
// map whose keys are the columns of a table the run read into a Row, so
// its JSON (`rpa run --json`, MCP structuredContent, the run store) lists
// the columns as the page does instead of alphabetically. Keys are the
// map's keys in order (columns first, then any other key sorted); Values
// holds them all.
type Row struct {
	Keys   []string
	Values map[string]any
}

// Get returns the value at key (nil when absent).
func (r Row) Get(key string) any { return r.Values[key] }

// MarshalJSON writes the row as a JSON object with its keys in order.
func (r Row) MarshalJSON() ([]byte, error) {
	return (&orderedjson.Object{Keys: r.Keys, Vals: r.Values}).MarshalJSON()
}

// columnBook is the column lists of the tables a run read (in the order
// read), to order the rows of its outputs. Guarded by runner.mu.
type columnBook [][]string

// NoteColumns records the column keys of a table the run read (stdlib's
// table action calls it through stdlib.ColumnNoter), so the run's outputs
// list them in this order.
func (r *runner) NoteColumns(keys []string) {
	if len(keys) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.columns {
		if slices.Equal(c, keys) {
			return
		}
	}
	if len(r.columns) < maxBook {
		r.columns = append(r.columns, slices.Clone(keys))
	}
}

// maxBook bounds the column lists a run keeps (a loop over a thousand
// different tables still orders the first ones).
const maxBook = 64

// ordered returns v with every map whose keys fit a column list of the
// book (the list's keys all in the map, or the map's keys all in the
// list) as a Row in that list's order; other values are returned as they
// are, v itself is never changed.
func (b columnBook) ordered(v any) any {
	if len(b) == 0 {
		return v
	}
	out, _ := b.order(v)
	return out
}

func (b columnBook) order(v any) (any, bool) {
	switch x := v.(type) {
	case []any:
		var cp []any
		for i, e := range x {
			if oe, changed := b.order(e); changed {
				if cp == nil {
					cp = append([]any(nil), x...)
				}
				cp[i] = oe
			}
		}
		if cp != nil {
			return cp, true
		}
	case map[string]any:
		var cp map[string]any // a copy, once a value changed
		for k, e := range x {
			if oe, changed := b.order(e); changed {
				if cp == nil {
					cp = make(map[string]any, len(x))
					for k2, e2 := range x {
						cp[k2] = e2
					}
				}
				cp[k] = oe
			}
		}
		vals := x
		if cp != nil {
			vals = cp
		}
		if cols := b.fit(x); cols != nil {
			return Row{Keys: rowKeys(cols, x), Values: vals}, true
		}
		if cp != nil {
			return cp, true
		}
	}
	return v, false
}

// fit returns the first column list of b that fits m, nil when none does.
func (b columnBook) fit(m map[string]any) []string {
	if len(m) == 0 {
		return nil
	}
	for _, cols := range b {
		in := 0
		for _, c := range cols {
			if _, ok := m[c]; ok {
				in++
			}
		}
		if in > 0 && (in == len(cols) || in == len(m)) {
			return cols
		}
	}
	return nil
}

// rowKeys is m's keys: those of cols in cols' order, then the rest sorted.
func rowKeys(cols []string, m map[string]any) []string {
	keys := make([]string, 0, len(m))
	in := make(map[string]bool, len(cols))
	for _, c := range cols {
		if _, ok := m[c]; ok && !in[c] {
			keys = append(keys, c)
			in[c] = true
		}
	}
	var rest []string
	for k := range m {
		if !in[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	return append(keys, rest...)
}
