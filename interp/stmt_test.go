package interp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/core"
	"github.com/rpa-dev/rpa/drivers"
	"github.com/rpa-dev/rpa/drivers/fake"
	"github.com/rpa-dev/rpa/lang"
)

// load loads .flow source through lang.Load.
func load(t testing.TB, src string) *lang.Flow {
	t.Helper()
	f, ds := lang.Load("t.flow", []byte(src))
	if f == nil {
		t.Fatalf("load: %v", ds)
	}
	return f
}

// argsOf is f's arguments checked from m (lang.Flow.CheckArgs); a bad
// argument fails the test.
func argsOf(t testing.TB, f *lang.Flow, m map[string]any) lang.Args {
	t.Helper()
	a, err := f.CheckArgs(m)
	if err != nil {
		t.Fatalf("args: %v", err)
	}
	return a
}

func jsonOf(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return string(b)
}

// stdPage is the fake page most statement tests use.
func stdPage(p *fake.Page) {
	p.Add("#a", &fake.Element{Txt: "A"})
	p.Add("#b", &fake.Element{Txt: "B"})
	p.Add("#cb", &fake.Element{Toggle: true})
	p.Add("#tbl", &fake.Element{Grid: &drivers.Grid{
		Head: [][]drivers.Cell{{{Text: "Date", Header: true}, {Text: "kWh", Header: true}}},
		Body: [][]drivers.Cell{{{Text: "d1"}, {Text: "10"}}, {{Text: "d2"}, {Text: "20"}}},
	}})
	f := p.AddFrame("#outer", "outer")
	f.Add("#in", &fake.Element{Txt: "inside"})
	f.AddFrame("#inner", "inner").Add("#deep", &fake.Element{Txt: "deep"})
}

func TestStatements(t *testing.T) {
	tests := []struct {
		name string
		src  string
		args map[string]any
		out  string    // JSON of outputs, when it succeeds
		kind core.Kind // error kind, when it fails
		line int       // error line
		log  string    // the run log joined with "|", when set
	}{
		{name: "assign and return", src: "x = 1 + 2\nreturn x * 2", out: `6`},
		{name: "params typed", src: "param n: int = 4\nparam s: string = \"a\"\nreturn {\"n\": n + 1, \"s\": s + \"b\"}", out: `{"n":5,"s":"ab"}`},
		{name: "interpolation keeps type", src: "param n: int = 4\nx = \"{{ n }}\"\ny = \"n={{ n }}\"\nreturn [x + 1, y]", out: `[5,"n=4"]`},
		{name: "if else if else", src: "x = 5\nr = \"\"\nif x > 10 {\n  r = \"big\"\n} else if x > 3 {\n  r = \"mid\"\n} else {\n  r = \"small\"\n}\nreturn r", out: `"mid"`},
		{name: "block scope: new names stay inside", src: "x = 1\nif true {\n  x = 2\n  y = 3\n}\nreturn x", out: `2`},
		{name: "for list with loop", src: "out = []\nfor v in [\"a\", \"b\", \"c\"] {\n  out = concat(out, [v + string(loop.index) + (loop.first ? \"F\" : \"\") + (loop.last ? \"L\" : \"\")])\n}\nreturn out", out: `["a0F","b1","c2L"]`},
		{name: "for map keys sorted", src: "m = {\"b\": 2, \"a\": 1, \"c\": 3}\nks = \"\"\nfor k in m {\n  ks = ks + k + string(m[k])\n}\nreturn ks", out: `"a1b2c3"`},
		{name: "for int", src: "s = 0\nfor i in 4 {\n  s = s + i\n}\nreturn s", out: `6`},
		{name: "break continue", src: "s = 0\nfor i in 10 {\n  if i == 2 {\n    continue\n  }\n  if i == 5 {\n    break\n  }\n  s = s + i\n}\nreturn s", out: `8`},
		{name: "while", src: "i = 0\nwhile i < 5 {\n  i = i + 1\n}\nreturn i", out: `5`},
		{name: "while bounded by max_loops", src: "defaults max_loops: 10\ni = 0\nwhile true {\n  i = i + 1\n}", kind: "fail", line: 3},
		{name: "try catch fields", src: "try {\n  fail \"boom\"\n} catch e {\n  return [e.message, e.kind, e.line, e.code]\n}", out: `["boom","fail",3,-32002]`},
		{name: "try catch action error", src: "try {\n  click \"#nope\" wait: 10ms retries: 0\n} catch e {\n  return [e.action, e.kind, e.line]\n}", out: `["click","not_found",3]`},
		{name: "assert message", src: "x = 1\nassert x == 2, \"x is {{ x }}\"", kind: "assertion", line: 2},
		{name: "assert ok", src: "assert 1 < 2\nreturn true", out: `true`},
		{name: "fail", src: "param region: string = \"11\"\nfail \"no data for region \" + region", kind: "fail", line: 2},
		{name: "log", src: "log \"a\"\nx = {\"k\": 1}\nlog x\nlog \"v={{ x.k }}\"\nreturn null", out: `null`, log: `a|{"k":1}|v=1`},
		{name: "retry re-runs the block", src: "n = 0\nretry 3 every: 1ms {\n  n = n + 1\n  assert n >= 3\n}\nreturn n", out: `3`},
		{name: "retry gives up", src: "retry 2 every: 1ms {\n  fail \"always\"\n}", kind: "fail", line: 2},
		{name: "frame nesting", src: "a = \"\"\nb = a\nc = a\nframe \"#outer\" {\n  a = text \"#in\"\n  frame \"#inner\" {\n    b = text \"#deep\"\n  }\n  c = text \"#in\"\n}\nd = text \"#a\"\nreturn [a, b, c, d]", out: `["inside","deep","inside","A"]`},
		{name: "frame missing", src: "defaults wait: 20ms\nframe \"#nope\" {\n  click \"#a\"\n}", kind: "not_found", line: 2},
		{name: "action results bound", src: "t = text \"#a\"\nrows = table \"#tbl\"\nreturn {\"t\": t, \"n\": len(rows), \"k\": rows[1].kWh}", out: `{"k":"20","n":2,"t":"A"}`},
		{name: "check clicks only when needed", src: "check \"#cb\"\ncheck \"#cb\"\nuncheck \"#cb\"\nreturn page.count(\"#cb\")", out: `1`},
		{name: "page funcs", src: "open \"http://x/p\"\nreturn [page.exists(\"#a\"), page.exists(\"#zz\"), page.url()]", out: `[true,false,"http://x/p"]`},
		{name: "expression error positioned", src: "x = \"abc\"\ny = int(x)", kind: "expression", line: 2},
		{name: "return ends flow", src: "return 1\nfail \"not reached\"", out: `1`},
		{name: "nested loops and return from inside", src: "for i in 3 {\n  for j in 3 {\n    if i * j == 2 {\n      return [i, j]\n    }\n  }\n}", out: `[1,2]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := load(t, "flow t\n"+tt.src+"\n")
			b := newBrowser(stdPage)
			res := run(t, f, Options{Browser: b, Args: argsOf(t, f, tt.args)})
			if tt.kind != "" {
				if res.Success || res.Error == nil || res.Error.Kind != tt.kind || res.Error.Line != tt.line+1 {
					t.Fatalf("want %s at line %d, got %+v", tt.kind, tt.line+1, res.Error)
				}
				if res.Error.Code != FlowFailedCode {
					t.Fatalf("code %d", res.Error.Code)
				}
				return
			}
			if !res.Success {
				t.Fatalf("failed: %+v", res.Error)
			}
			if got := jsonOf(res.Outputs); got != tt.out {
				t.Fatalf("outputs %s, want %s", got, tt.out)
			}
			if tt.log != "" {
				if got := strings.Join(res.Log, "|"); got != tt.log {
					t.Fatalf("log %q, want %q", got, tt.log)
				}
			}
		})
	}
}
