package runs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/internal/orderedjson"
)

// orderedRows is rows whose JSON keeps the page's column order (what
// interp.Row gives the store).
func orderedRows(n int) []any {
	rows := make([]any, n)
	for i := range rows {
		rows[i] = &orderedjson.Object{Keys: []string{"date", "region", "kWh", "cost"},
			Vals: map[string]any{"date": fmt.Sprintf("2024-%02d", i%12+1), "region": "北京市", "kWh": json.Number(fmt.Sprint(100 + i)), "cost": "60.5"}}
	}
	return rows
}

// TestOutputsKept: a run's outputs are kept as given (key order too),
// shown by Show (text and JSON), and removed with the run.
func TestOutputsKept(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	r := &Run{Flow: "usage"}
	if _, err := s.Begin(r); err != nil {
		t.Fatal(err)
	}
	if o, err := s.Outputs(r.ID); o != nil || err != nil {
		t.Fatalf("before: %v %v", o, err)
	}
	out := &orderedjson.Object{Keys: []string{"rows", "count"}, Vals: map[string]any{"rows": orderedRows(30), "count": 30}}
	if err := s.SetOutputs(r.ID, out, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(r.ID, Outcome{Status: StatusOK}); err != nil {
		t.Fatal(err)
	}
	o, err := s.Outputs(r.ID)
	if err != nil || o == nil || o.Truncated {
		t.Fatalf("outputs %+v %v", o, err)
	}
	if !strings.HasPrefix(string(o.JSON), `{"rows":[{"date":"2024-01","region":"北京市","kWh":100,"cost":"60.5"}`) {
		t.Fatalf("JSON %s", o.JSON[:80])
	}
	got, _ := s.Get(r.ID)
	var text bytes.Buffer
	if err := s.Show(&text, got, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\noutputs\n", "rows: 30 rows", "date     region  kWh  cost", "2024-01  北京市", "... 10 more rows; export: rpa runs export " + r.ID + " -o rows.xlsx"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := s.Show(&js, got, true); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"outputs": {`) || !strings.Contains(js.String(), `"date": "2024-01",`) {
		t.Errorf("show --json: %s", js.String())
	}
	if err := s.Delete(r.ID); err != nil {
		t.Fatal(err)
	}
	if o, err := s.Outputs(r.ID); o != nil || err != nil {
		t.Fatalf("after delete: %v %v", o, err)
	}
}

// TestOutputsCapped: outputs over the cap keep the first rows that fit,
// marked truncated with the whole size; a value that cannot be cut keeps
// null.
func TestOutputsCapped(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	r := &Run{Flow: "usage"}
	if _, err := s.Begin(r); err != nil {
		t.Fatal(err)
	}
	full, _ := json.Marshal(map[string]any{"rows": orderedRows(1000)})
	if err := s.SetOutputs(r.ID, map[string]any{"rows": orderedRows(1000)}, 4096); err != nil {
		t.Fatal(err)
	}
	o, _ := s.Outputs(r.ID)
	if !o.Truncated || o.Bytes != len(full) || len(o.JSON) > 4096 {
		t.Fatalf("truncated %v bytes %d (want %d) kept %d", o.Truncated, o.Bytes, len(full), len(o.JSON))
	}
	ts, err := Tables(o.JSON)
	if err != nil || len(ts) != 1 || len(ts[0].Rows) < 40 || len(ts[0].Rows) >= 1000 {
		t.Fatalf("tables %v %v", ts, err)
	}
	if strings.Join(ts[0].Columns, ",") != "date,region,kWh,cost" {
		t.Fatalf("columns %v", ts[0].Columns)
	}
	if err := s.SetOutputs(r.ID, strings.Repeat("x", 5000), 4096); err != nil {
		t.Fatal(err)
	}
	if o, _ := s.Outputs(r.ID); !o.Truncated || string(o.JSON) != "null" {
		t.Fatalf("long string: %+v", o)
	}
}

// TestTables: which outputs are tables, their columns and cells.
func TestTables(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		want     string // name|columns|rows, one table per line
	}{
		{"list of objects", `[{"b":1,"a":"x"},{"a":"y","c":null}]`, `|b,a,c|1,x,;,y,`},
		{"keys of an object", `{"count":2,"rows":[{"d":"1"}],"other":[1,2],"grid":{"headers":["h1","h2"],"rows":[["a","b"]]}}`,
			"rows|d|1\ngrid|h1,h2|a,b"},
		{"lists", `[["a","b"],["c"]]`, `|col 1,col 2|a,b;c,`},
		{"nested values as JSON", `[{"a":{"x":1},"b":[1,2],"c":true}]`, `|a,b,c|{"x":1},[1,2],true`},
		{"no table", `{"n":1}`, ``},
		{"empty list", `[]`, ``},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ts, err := Tables(json.RawMessage(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, tb := range ts {
				var rows []string
				for _, r := range tb.Rows {
					rows = append(rows, strings.Join(r, ","))
				}
				lines = append(lines, tb.Name+"|"+strings.Join(tb.Columns, ",")+"|"+strings.Join(rows, ";"))
			}
			if got := strings.Join(lines, "\n"); got != tt.want {
				t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
	ts, _ := Tables(json.RawMessage(`{"a":[{"x":1}],"b":[{"y":2}]}`))
	if _, err := PickTable(ts, ""); err == nil || !strings.Contains(err.Error(), "choose one with --output NAME") {
		t.Fatalf("two tables, no name: %v", err)
	}
	if tb, err := PickTable(ts, "b"); err != nil || tb.Columns[0] != "y" {
		t.Fatalf("pick b: %v %v", tb, err)
	}
	if _, err := PickTable(ts, "c"); err == nil || !strings.Contains(err.Error(), `no table "c" (tables: a, b)`) {
		t.Fatalf("pick c: %v", err)
	}
}
