package runs

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rpa-dev/rpa/internal/orderedjson"
)

// Table is one table of a run's outputs, as `rpa runs show`, the report,
// the console's run page and `rpa runs export` show it: its columns in the
// order the flow returned them (a `table` action's rows keep the page's
// column order, interp.Row) and every cell as text.
type Table struct {
	// Name is the output's key ("rows" of `return {"rows": rows}`), ""
	// when the outputs are the table themselves.
	Name    string
	Columns []string
	// Rows are the cells, one per column ("" for a missing key or null;
	// a list or an object as compact JSON). Numbers keep their JSON text;
	// Numeric marks them.
	Rows    [][]string
	Numeric [][]bool
}

// Tables returns the tables in outputs (JSON as Outputs.JSON holds it): the
// outputs themselves, or each key of an outputs object, when it is a list
// of objects (columns: every key, in first-seen order), a list of lists
// (columns "col 1", "col 2", ...) or a `table ... header: "grid"` object
// {"headers": [...], "rows": [[...]]}. Other values are not tables.
func Tables(outputs json.RawMessage) ([]Table, error) {
	if len(outputs) == 0 {
		return nil, nil
	}
	v, err := orderedjson.Decode(outputs)
	if err != nil {
		return nil, fmt.Errorf("outputs: %w", err)
	}
	if t, ok := tableOf("", v); ok {
		return []Table{t}, nil
	}
	o, ok := v.(*orderedjson.Object)
	if !ok {
		return nil, nil
	}
	var out []Table
	for _, k := range o.Keys {
		if t, ok := tableOf(k, o.Vals[k]); ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// tableOf reads v as a table named name.
func tableOf(name string, v any) (Table, bool) {
	t := Table{Name: name}
	switch x := v.(type) {
	case []any:
		if len(x) == 0 {
			return t, false
		}
		if _, ok := x[0].(*orderedjson.Object); ok {
			seen := map[string]bool{}
			for _, r := range x {
				o, ok := r.(*orderedjson.Object)
				if !ok {
					return t, false
				}
				for _, k := range o.Keys {
					if !seen[k] {
						seen[k] = true
						t.Columns = append(t.Columns, k)
					}
				}
			}
			for _, r := range x {
				o := r.(*orderedjson.Object)
				row := make([]any, len(t.Columns))
				for i, c := range t.Columns {
					row[i] = o.Vals[c]
				}
				t.add(row)
			}
			return t, true
		}
		if _, ok := x[0].([]any); ok {
			return t, t.fromLists(nil, x)
		}
	case *orderedjson.Object:
		hs, ok1 := x.Vals["headers"].([]any)
		rows, ok2 := x.Vals["rows"].([]any)
		if ok1 && ok2 && len(x.Keys) == 2 {
			return t, t.fromLists(hs, rows)
		}
	}
	return t, false
}

// fromLists fills t from rows that are lists, with headers hs (nil:
// "col N").
func (t *Table) fromLists(hs []any, rows []any) bool {
	width := len(hs)
	for _, r := range rows {
		l, ok := r.([]any)
		if !ok {
			return false
		}
		width = max(width, len(l))
	}
	for i := 0; i < width; i++ {
		if i < len(hs) {
			t.Columns = append(t.Columns, Cell(hs[i]))
		} else {
			t.Columns = append(t.Columns, fmt.Sprintf("col %d", i+1))
		}
	}
	for _, r := range rows {
		l := r.([]any)
		row := make([]any, width)
		copy(row, l)
		t.add(row)
	}
	return true
}

func (t *Table) add(vals []any) {
	cells := make([]string, len(vals))
	nums := make([]bool, len(vals))
	for i, v := range vals {
		cells[i] = Cell(v)
		_, nums[i] = v.(json.Number)
	}
	t.Rows = append(t.Rows, cells)
	t.Numeric = append(t.Numeric, nums)
}

// Cell is v (a value orderedjson.Decode made) as the text of a table
// cell: a string as it is, a number as its JSON text, true/false, ""
// for null, anything else as compact JSON.
func Cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// PickTable returns the table of ts named name; name "" picks the only
// table. An error says which names there are.
func PickTable(ts []Table, name string) (Table, error) {
	var names []string
	for _, t := range ts {
		if t.Name == name {
			return t, nil
		}
		n := t.Name
		if n == "" {
			n = "(the outputs themselves)"
		}
		names = append(names, n)
	}
	sort.Strings(names)
	switch {
	case len(ts) == 0:
		return Table{}, fmt.Errorf("the run's outputs hold no table (a list of rows)")
	case name == "" && len(ts) == 1:
		return ts[0], nil
	case name == "":
		return Table{}, fmt.Errorf("the outputs hold %d tables (%s): choose one with --output NAME", len(ts), strings.Join(names, ", "))
	}
	return Table{}, fmt.Errorf("the outputs have no table %q (tables: %s)", name, strings.Join(names, ", "))
}

// Rest is the JSON of what outputs hold besides their tables ts (Tables):
// an object's other keys, or the whole value when it holds no table; ""
// when the tables are all there is.
func Rest(outputs json.RawMessage, ts []Table) string {
	if len(ts) == 0 {
		return string(outputs)
	}
	v, err := orderedjson.Decode(outputs)
	if err != nil {
		return string(outputs)
	}
	o, ok := v.(*orderedjson.Object)
	if !ok {
		return "" // the outputs are the table
	}
	table := map[string]bool{}
	for _, t := range ts {
		table[t.Name] = true
	}
	rest := &orderedjson.Object{Vals: map[string]any{}}
	for _, k := range o.Keys {
		if !table[k] {
			rest.Keys = append(rest.Keys, k)
			rest.Vals[k] = o.Vals[k]
		}
	}
	if len(rest.Keys) == 0 {
		return ""
	}
	b, err := json.Marshal(rest)
	if err != nil {
		return ""
	}
	return string(b)
}
