package lang

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/expr-lang/expr"

	"github.com/rpa-dev/rpa/lang/ast"
)

// exprSrcs lists every ExprSrc of f (an independent walk, so the test does
// not trust the checker's own traversal).
func exprSrcs(f *ast.File) []*ast.ExprSrc {
	var out []*ast.ExprSrc
	var ex func(e ast.Expr)
	ex = func(e ast.Expr) {
		switch x := e.(type) {
		case *ast.ExprSrc:
			out = append(out, x)
		case *ast.StringLit:
			for _, p := range x.Parts {
				if p.Expr != nil {
					out = append(out, p.Expr)
				}
			}
		case *ast.ListLit:
			for _, el := range x.Elems {
				ex(el)
			}
		case *ast.MapLit:
			for _, en := range x.Entries {
				ex(en.Key)
				ex(en.Value)
			}
		}
	}
	var st func(ss []ast.Stmt)
	st = func(ss []ast.Stmt) {
		for _, s := range ss {
			switch s := s.(type) {
			case *ast.ActionStmt:
				for _, a := range s.Args {
					ex(a)
				}
				for _, o := range s.Options {
					ex(o.Value)
				}
			case *ast.AssignStmt:
				ex(s.Value)
			case *ast.IfStmt:
				ex(s.Cond)
				st(s.Then)
				st(s.Else)
			case *ast.ForStmt:
				ex(s.Iter)
				st(s.Body)
			case *ast.WhileStmt:
				ex(s.Cond)
				st(s.Body)
			case *ast.TryStmt:
				st(s.Body)
				st(s.Catch)
			case *ast.RetryStmt:
				ex(s.Count)
				ex(s.Every)
				st(s.Body)
			case *ast.FrameStmt:
				ex(s.Selector)
				st(s.Body)
			case *ast.ReturnStmt:
				ex(s.Value)
			case *ast.FailStmt:
				ex(s.Message)
			case *ast.AssertStmt:
				ex(s.Cond)
				ex(s.Message)
			case *ast.LogStmt:
				ex(s.Value)
			}
		}
	}
	st(f.Body)
	return out
}

func TestExamplesLoadCleanWithEveryProgram(t *testing.T) {
	for _, name := range []string{"query_power_data.yaml", "order_logistics.yaml", "query_power_data.flow", "order_logistics.flow"} {
		path := filepath.Join("testdata", "examples", name)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("missing example %s", path)
		}
		f, ds := LoadFile(path)
		if f == nil || len(ds) > 0 {
			t.Fatalf("%s: want clean load, got %v", name, ds)
		}
		srcs := exprSrcs(f.File)
		if len(srcs) < 5 {
			t.Fatalf("%s: only %d expressions found", name, len(srcs))
		}
		for _, e := range srcs {
			if f.Program(e) == nil {
				t.Errorf("%s: no program for %q at %v", name, e.Source, e.Range)
			}
		}
	}
}

const pageFlow = `flow: page_probe
params:
  - {name: sel, type: string}
  - {name: n, type: int, default: 2}
steps:
  - set: {ok: 'page.exists(sel) && page.count(".row") == n && page.url() != "" && page.title() == "T"'}
  - set: {msg: 'trim("{{ sel }} has {{ page.count(sel) }} rows ")'}
  - set: {seen: 'len(dialogs()) > 0 && dialogs()[0].type == "alert"'}
  - for: x
    in: '[1, 2, 3]'
    do:
      - log: '{{ loop.index }}/{{ loop.last }}'
  - try: [{click: "#x"}]
    catch: {as: e, do: [{log: '{{ e.kind + ":" + string(e.line) }}'}]}
  - return: '{"ok": ok, "msg": msg, "seen": seen}'
`

// TestProgramsRunAgainstMapEnv proves the env contract: programs compiled
// against the typed env run against plain map[string]any envs holding
// PageFuncs, dialogs, loop and catch values as documented.
func TestProgramsRunAgainstMapEnv(t *testing.T) {
	f, ds := Load("probe.yaml", []byte(pageFlow))
	if f == nil {
		t.Fatalf("load: %v", ds)
	}
	var asked []string
	page := PageFuncs{
		Exists: func(sel string) (bool, error) { asked = append(asked, "exists "+sel); return sel == "#x", nil },
		Count:  func(sel string) (int, error) { return 2, nil },
		URL:    func() (string, error) { return "http://a/", nil },
		Title:  func() (string, error) { return "T", nil },
	}
	env := map[string]any{
		"sel": "#x", "n": 2, "page": page,
		"dialogs": func() []map[string]any { return []map[string]any{{"type": "alert", "message": "hi"}} },
	}
	run := func(e ast.Expr) any {
		t.Helper()
		src := e.(*ast.ExprSrc)
		out, err := expr.Run(f.Program(src), env)
		if err != nil {
			t.Fatalf("run %q: %v", src.Source, err)
		}
		return out
	}
	body := f.File.Body
	if got := run(body[0].(*ast.AssignStmt).Value); got != true {
		t.Errorf("ok = %v, want true", got)
	}
	if len(asked) != 1 || asked[0] != "exists #x" {
		t.Errorf("page.exists calls = %v", asked)
	}
	if got := run(body[1].(*ast.AssignStmt).Value); got != "#x has 2 rows" {
		t.Errorf("msg = %q", got)
	}
	if got := run(body[2].(*ast.AssignStmt).Value); got != true {
		t.Errorf("seen = %v", got)
	}
	// loop value
	log := body[3].(*ast.ForStmt).Body[0].(*ast.LogStmt).Value.(*ast.StringLit)
	env["loop"] = LoopValue(2, 3)
	if got := Stringify(run(log.Parts[0].Expr)) + "/" + Stringify(run(log.Parts[2].Expr)); got != "2/true" {
		t.Errorf("loop parts = %q", got)
	}
	// catch value
	clog := body[4].(*ast.TryStmt).Catch[0].(*ast.LogStmt).Value.(*ast.ExprSrc)
	env["e"] = CatchValue("boom", "click", 7, -32002, "not_found")
	if got := run(clog); got != "not_found:7" {
		t.Errorf("catch = %q", got)
	}
	// a func error fails the expression with that error
	boom := errors.New("page gone")
	env["page"] = PageFuncs{Exists: func(string) (bool, error) { return false, boom }}
	if _, err := expr.Run(f.Program(body[0].(*ast.AssignStmt).Value.(*ast.ExprSrc)), env); err == nil || !strings.Contains(err.Error(), "page gone") {
		t.Errorf("want page gone error, got %v", err)
	}
}

func TestStringify(t *testing.T) {
	for _, c := range []struct {
		in   any
		want string
	}{
		{nil, ""}, {"a b", "a b"}, {3, "3"}, {int64(-4), "-4"}, {2.0, "2"}, {2.5, "2.5"}, {1e20, "100000000000000000000"},
		{true, "true"}, {[]any{"a", 1}, `["a",1]`}, {map[string]any{"b": 1, "a": "x"}, `{"a":"x","b":1}`},
	} {
		if got := Stringify(c.in); got != c.want {
			t.Errorf("Stringify(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLoadFileResolvesCallsInFolder: one file loaded alone still has its
// `call` targets, `with:` keys and call cycles checked against the flows of
// its folder; a sibling's own errors are not reported.
func TestLoadFileResolvesCallsInFolder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"caller.flow":  "flow caller\nx = call missing_flow with: {\"a\": 1}\n",
		"good.flow":    "flow good\nx = call callee with: {\"region\": \"N\"}\n",
		"badkey.flow":  "flow badkey\nx = call callee with: {\"regoin\": \"N\"}\n",
		"callee.yaml":  "flow: callee\nparams:\n  - {name: region, type: string}\nsteps:\n  - log: '{{ region }}'\n",
		"a.flow":       "flow a\nx = call b\n",
		"b.flow":       "flow b\nx = call a\n",
		"self.flow":    "flow self\nif true {\n  x = call self\n}\n",
		"broken.flow":  "flow broken\nclick (\n",
		"usesbad.flow": "flow usesbad\nx = call broken\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		file string
		want []string // substrings of the one-line diagnostics; nil: clean
		warn bool     // the wants are warnings: the flow still loads
	}{
		{"caller.flow", []string{`caller.flow:2:10: error: unknown flow "missing_flow"`}, false},
		{"good.flow", nil, false},
		{"badkey.flow", []string{`flow "callee" has no param "regoin"`, `missing required param "region"`}, false},
		{"a.flow", []string{"warning: call b makes a call cycle: a → b → a"}, true},
		{"self.flow", []string{"warning: call self makes a call cycle: self → self"}, true},
		{"usesbad.flow", []string{`unknown flow "broken"`}, false},
	}
	for _, tc := range cases {
		f, ds := LoadFile(filepath.Join(dir, tc.file))
		var lines []string
		for _, d := range ds {
			lines = append(lines, d.OneLine())
		}
		all := strings.Join(lines, "\n")
		if tc.want == nil {
			if f == nil || len(ds) > 0 {
				t.Errorf("%s: want clean, got\n%s", tc.file, all)
			}
			continue
		}
		if f != nil && !tc.warn {
			t.Errorf("%s: want no flow (errors), got one", tc.file)
		}
		if f == nil && tc.warn {
			t.Errorf("%s: a call cycle is a warning, but the flow did not load:\n%s", tc.file, all)
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: diagnostics lack %q:\n%s", tc.file, w, all)
			}
		}
		if strings.Contains(all, "broken.flow") {
			t.Errorf("%s: a sibling's errors are reported:\n%s", tc.file, all)
		}
	}
}

// TestCheckHandBuilt: Check makes a Flow of a syntax tree built in memory
// with every expression compiled, and refuses one that does not check.
func TestCheckHandBuilt(t *testing.T) {
	x := &ast.ExprSrc{Source: "n + 1"}
	f := &ast.File{Name: "t",
		Params: []*ast.Param{{Name: "n", Type: &ast.Type{Name: "int"}}},
		Body:   []ast.Stmt{&ast.ReturnStmt{Value: x}}}
	fl, ds := Check("t.flow", f)
	if fl == nil || ds.HasErrors() {
		t.Fatalf("want a flow, got %v", ds)
	}
	if out, err := expr.Run(fl.Program(x), map[string]any{"n": 2}); err != nil || out != 3 {
		t.Errorf("program: %v, %v", out, err)
	}
	bad := &ast.File{Name: "t", Body: []ast.Stmt{&ast.ReturnStmt{Value: &ast.ExprSrc{Source: "nope + 1"}}}}
	if fl, ds := Check("t.flow", bad); fl != nil || !strings.Contains(ds.Error(), `unknown name "nope"`) {
		t.Errorf("bad flow: %v, %v", fl, ds)
	}
	if fl, ds := Check("t.flow", nil); fl != nil || !ds.HasErrors() {
		t.Errorf("nil file: %v, %v", fl, ds)
	}
}
