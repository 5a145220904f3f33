package interp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/stdlib"
)

// usagePage has a table whose columns are not in alphabetical order.
func usagePage(p *fake.Page) {
	p.Add("#usage", &fake.Element{Grid: &drivers.Grid{
		Head: [][]drivers.Cell{{{Text: "date", Header: true}, {Text: "region", Header: true}, {Text: "kWh", Header: true}, {Text: "cost", Header: true}}},
		Body: [][]drivers.Cell{
			{{Text: "2024-01"}, {Text: "北京"}, {Text: "120"}, {Text: "60.5"}},
			{{Text: "2024-02"}, {Text: "上海"}, {Text: "90"}, {Text: "45"}},
		},
	}})
}

// TestRowsKeepColumnOrder: a table's rows reach the result's JSON (what
// `rpa run --json`, MCP structuredContent and the run store get) in the
// page's column order, in outputs and in the table step's output; a map
// the flow builds with the same keys follows it too, other maps stay
// sorted.
func TestRowsKeepColumnOrder(t *testing.T) {
	f := load(t, `flow t
rows = table "#usage"
picked = []
for r in rows {
    picked = concat(picked, [{"cost": r.cost, "date": r.date}])
}
return {"rows": rows, "first": rows[0], "picked": picked, "other": {"z": 1, "a": 2}, "n": len(rows)}
`)
	res := run(t, f, Options{Browser: newBrowser(usagePage)})
	if !res.Success {
		t.Fatalf("failed: %+v", res.Error)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{
		`"outputs":{"first":{"date":"2024-01","region":"北京","kWh":"120","cost":"60.5"},"n":2,"other":{"a":2,"z":1},` +
			`"picked":[{"date":"2024-01","cost":"60.5"},{"date":"2024-02","cost":"45"}],` +
			`"rows":[{"date":"2024-01","region":"北京","kWh":"120","cost":"60.5"},{"date":"2024-02","region":"上海","kWh":"90","cost":"45"}]}`,
		`"output":[{"date":"2024-01","region":"北京","kWh":"120","cost":"60.5"},{"date":"2024-02","region":"上海","kWh":"90","cost":"45"}]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("result JSON lacks\n%s\ngot\n%s", want, got)
		}
	}
	// The Go value: rows are Rows, the map around them a map.
	out := res.Outputs.(map[string]any)
	first, ok := out["first"].(Row)
	if !ok || first.Get("kWh") != "120" || strings.Join(first.Keys, ",") != "date,region,kWh,cost" {
		t.Errorf("first = %#v", out["first"])
	}
}

// TestColumnBookFit: which maps a column list orders, and how.
func TestColumnBookFit(t *testing.T) {
	book := columnBook{{"b", "a", "c"}}
	for _, tt := range []struct {
		in   map[string]any
		want string
	}{
		{map[string]any{"a": 1, "b": 2, "c": 3}, `{"b":2,"a":1,"c":3}`},
		{map[string]any{"c": 3, "a": 1}, `{"a":1,"c":3}`},                             // a subset of the columns
		{map[string]any{"a": 1, "b": 2, "c": 3, "x": 0}, `{"b":2,"a":1,"c":3,"x":0}`}, // the columns and more
		{map[string]any{"a": 1, "x": 0}, `{"a":1,"x":0}`},                             // neither: as encoding/json does
		{map[string]any{}, `{}`},
	} {
		if got := jsonOf(book.ordered(tt.in)); got != tt.want {
			t.Errorf("%v: got %s, want %s", tt.in, got, tt.want)
		}
	}
	// The value handed in is never changed.
	in := map[string]any{"rows": []any{map[string]any{"c": 1, "b": 2}}}
	_ = book.ordered(in)
	if _, ok := in["rows"].([]any)[0].(map[string]any); !ok {
		t.Fatal("ordered changed its input")
	}
}

// TestMaskRow: a secret inside a Row is masked, its order kept.
func TestMaskRow(t *testing.T) {
	m := &Mask{}
	m.Add("s3cr3t-value")
	r := Row{Keys: []string{"b", "a"}, Values: map[string]any{"b": "x s3cr3t-value", "a": "1"}}
	if got := jsonOf(m.Value(r)); got != `{"b":"x ***","a":"1"}` {
		t.Fatalf("got %s", got)
	}
	if r.Values["b"] != "x s3cr3t-value" {
		t.Fatal("Mask.Value changed its input")
	}
}

// TestSummaryLineLang: rpa run's summary line follows LANG (zh_* is Chinese).
func TestSummaryLineLang(t *testing.T) {
	f := load(t, "flow greet\nlog \"x\"\n")
	res := &Result{TotalActions: 3, CompletedActions: 2, FailedActions: 1, DurationMs: 845}
	t.Setenv("RPA_LANG", "")
	t.Setenv("LC_ALL", "")
	t.Setenv("LC_MESSAGES", "")
	t.Setenv("LANG", "zh_CN.UTF-8")
	if got := SummaryLine(f, res); got != "失败  greet：3 个动作（2 个成功，1 个失败或跳过），用时 845 ms" {
		t.Errorf("zh: %q", got)
	}
	t.Setenv("LANG", "en_US.UTF-8")
	res.Success = true
	if got := SummaryLine(f, res); got != "ok  greet: 3 actions (2 ok, 1 failed or skipped) in 845 ms" {
		t.Errorf("en: %q", got)
	}
}

// TestHealLines: rpa run names the candidate healing found (the packet's) and the command that
// proposes the patch.
func TestHealLines(t *testing.T) {
	t.Setenv("RPA_LANG", "en")
	f := load(t, "flow greet\nlog \"x\"\n")
	f.Path = "flows/greet.flow"
	res := &Result{Results: []*StepResult{
		{Line: 14, Action: "fill", Status: StatusFailed, Heal: &stdlib.HealInfo{Status: stdlib.HealSuggested,
			Candidates: []drivers.HealCandidate{{Score: 0.59, Desc: "textbox 'Customer 客户'", Selectors: []string{"#cust"}}}}},
		{Line: 3, Action: "click", Status: StatusOK, Heal: &stdlib.HealInfo{Status: stdlib.HealHealed, Desc: "button 'Go'", Score: 0.91}},
		{Line: 5, Action: "click", Status: StatusFailed, Heal: &stdlib.HealInfo{Status: stdlib.HealRefused}},
	}}
	got := strings.Join(HealLines(f, res), "\n")
	want := "line 14: textbox 'Customer 客户' matched with 0.59; `rpa heal flows/greet.flow` proposes the patch\n" +
		"line 3: healed to button 'Go' (0.91); `rpa heal flows/greet.flow` proposes keeping it"
	if got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	t.Setenv("RPA_LANG", "zh")
	if got := HealLines(f, res)[0]; got != "第 14 行：textbox 'Customer 客户' 的匹配度为 0.59；`rpa heal flows/greet.flow` 会给出补丁" {
		t.Fatalf("zh: %q", got)
	}
}
