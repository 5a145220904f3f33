package stdlib

import (
	"encoding/json"
	"testing"

	"github.com/rpa-dev/rpa/drivers"
)

func row(texts ...string) []drivers.Cell {
	out := make([]drivers.Cell, len(texts))
	for i, t := range texts {
		out[i] = drivers.Cell{Text: t}
	}
	return out
}

func hrow(texts ...string) []drivers.Cell {
	r := row(texts...)
	for i := range r {
		r[i].Header = true
	}
	return r
}

func js(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestTableShapes(t *testing.T) {
	tests := []struct {
		name             string
		g                drivers.Grid
		auto, grid, none string
	}{
		{
			name: "simple",
			g:    drivers.Grid{Head: [][]drivers.Cell{hrow("Date", "kWh")}, Body: [][]drivers.Cell{row("2024-01", "12"), row("2024-02", "15")}},
			auto: `[{"Date":"2024-01","kWh":"12"},{"Date":"2024-02","kWh":"15"}]`,
			grid: `{"headers":["Date","kWh"],"rows":[["2024-01","12"],["2024-02","15"]]}`,
			none: `[["Date","kWh"],["2024-01","12"],["2024-02","15"]]`,
		},
		{
			name: "two header rows joined, rowspan kept once",
			g: drivers.Grid{Head: [][]drivers.Cell{hrow("Date", "Usage", "Usage"), hrow("Date", "kWh", "Cost")},
				Body: [][]drivers.Cell{row("d1", "1", "2")}},
			auto: `[{"Date":"d1","Usage / Cost":"2","Usage / kWh":"1"}]`,
			grid: `{"headers":["Date","Usage / kWh","Usage / Cost"],"rows":[["d1","1","2"]]}`,
			none: `[["Date","Usage","Usage"],["Date","kWh","Cost"],["d1","1","2"]]`,
		},
		{
			name: "repeated keys, empty header, empty rows dropped, foot left out",
			g: drivers.Grid{Head: [][]drivers.Cell{hrow("", "Name", "Name", "Name")},
				Body: [][]drivers.Cell{row("1", "a", "b", "c"), row("", " ", "", ""), row("2", "d")},
				Foot: [][]drivers.Cell{row("total", "x", "y", "z")}},
			auto: `[{"Name":"a","Name 2":"b","Name 3":"c","col 1":"1"},{"Name":"d","Name 2":"","Name 3":"","col 1":"2"}]`,
			grid: `{"headers":["col 1","Name","Name 2","Name 3"],"rows":[["1","a","b","c"],["2","d","",""]]}`,
			none: `[["","Name","Name","Name"],["1","a","b","c"],["2","d","",""]]`,
		},
		{
			name: "no header rows: the first row is the header",
			g:    drivers.Grid{Body: [][]drivers.Cell{row("区域", "用电量"), row("北京", "42")}},
			auto: `[{"区域":"北京","用电量":"42"}]`,
			grid: `{"headers":["区域","用电量"],"rows":[["北京","42"]]}`,
			none: `[["区域","用电量"],["北京","42"]]`,
		},
		{
			name: "empty table",
			g:    drivers.Grid{},
			auto: `[]`, grid: `{"headers":[],"rows":[]}`, none: `[]`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := js(TableAuto(&tt.g)); got != tt.auto {
				t.Errorf("auto:\n got %s\nwant %s", got, tt.auto)
			}
			if got := js(TableGrid(&tt.g)); got != tt.grid {
				t.Errorf("grid:\n got %s\nwant %s", got, tt.grid)
			}
			if got := js(TableNone(&tt.g)); got != tt.none {
				t.Errorf("none:\n got %s\nwant %s", got, tt.none)
			}
		})
	}
}

// TestTableGrid: the shape of `table` with header: "grid", which MCP's
// browser_read returns for a table (Read, readOpts there).
func TestTableGrid(t *testing.T) {
	for _, tc := range []struct {
		name string
		grid drivers.Grid
		want string
	}{
		{"simple", drivers.Grid{Head: [][]drivers.Cell{row("date", "kWh")}, Body: [][]drivers.Cell{row("d1", "1"), row("d2", "2")}},
			`{"headers":["date","kWh"],"rows":[["d1","1"],["d2","2"]]}`},
		{"two header rows, spanned", drivers.Grid{Head: [][]drivers.Cell{row("Usage", "Usage", "Cost"), row("peak", "valley", "Cost")},
			Body: [][]drivers.Cell{row("1", "2", "3")}},
			`{"headers":["Usage / peak","Usage / valley","Cost"],"rows":[["1","2","3"]]}`},
		// As the table action's header: "grid": the first row keys the columns.
		{"no header, empty rows dropped, foot left out", drivers.Grid{Body: [][]drivers.Cell{row("a", "b"), row("", " "), row("c", "d")},
			Foot: [][]drivers.Cell{row("total", "x")}},
			`{"headers":["a","b"],"rows":[["c","d"]]}`},
		{"empty", drivers.Grid{}, `{"headers":[],"rows":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(TableGrid(&tc.grid))
			if string(raw) != tc.want {
				t.Errorf("got  %s\nwant %s", raw, tc.want)
			}
		})
	}
}
