package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/rpa-dev/rpa/drivers"
)

func cells(texts ...string) []drivers.Cell {
	out := make([]drivers.Cell, len(texts))
	for i, t := range texts {
		out[i] = drivers.Cell{Text: t}
	}
	return out
}

func TestGridTable(t *testing.T) {
	for _, tc := range []struct {
		name string
		grid drivers.Grid
		want string
	}{
		{"simple", drivers.Grid{Head: [][]drivers.Cell{cells("date", "kWh")}, Body: [][]drivers.Cell{cells("d1", "1"), cells("d2", "2")}},
			`{"headers":["date","kWh"],"rows":[["d1","1"],["d2","2"]]}`},
		{"two header rows, spanned", drivers.Grid{Head: [][]drivers.Cell{cells("Usage", "Usage", "Cost"), cells("peak", "valley", "Cost")},
			Body: [][]drivers.Cell{cells("1", "2", "3")}},
			`{"headers":["Usage / peak","Usage / valley","Cost"],"rows":[["1","2","3"]]}`},
		// As the table action's header: "grid": the first row keys the columns.
		{"no header, empty rows dropped, foot left out", drivers.Grid{Body: [][]drivers.Cell{cells("a", "b"), cells("", " "), cells("c", "d")},
			Foot: [][]drivers.Cell{cells("total", "x")}},
			`{"headers":["a","b"],"rows":[["c","d"]]}`},
		{"empty", drivers.Grid{}, `{"headers":[],"rows":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(gridTable(&tc.grid))
			if string(raw) != tc.want {
				t.Errorf("got  %s\nwant %s", raw, tc.want)
			}
		})
	}
}

func TestMaskValue(t *testing.T) {
	secrets := []string{"hunter2"}
	in := map[string]any{"a": "pw=hunter2", "b": []any{"hunter2", 3}, "c": &Table{Headers: []string{"x"}, Rows: [][]string{{"hunter2!"}}}}
	raw, _ := json.Marshal(maskValue(in, secrets))
	want := `{"a":"pw=***","b":["***",3],"c":{"headers":["x"],"rows":[["***!"]]}}`
	if string(raw) != want {
		t.Errorf("got  %s\nwant %s", raw, want)
	}
	if got := jsonEscaped([]string{`a"b\c`, "ab"}); len(got) != 1 || got[0] != `a\"b\\c` {
		t.Errorf("jsonEscaped = %q", got)
	}
}
