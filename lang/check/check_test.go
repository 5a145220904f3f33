package check

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/diag"
	"github.com/rpa-dev/rpa/lang/parse"
)

func checkSrc(t *testing.T, src string, folder map[string]*ast.File) diag.Diagnostics {
	t.Helper()
	f, ds := parse.Flow("t.flow", []byte(src))
	if ds.HasErrors() {
		t.Fatalf("parse errors in test source:\n%v\n%s", ds, src)
	}
	_, cds := File(f, &Options{Folder: folder})
	return cds
}

func oneLines(ds diag.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.OneLine())
	}
	return out
}

// TestMessages has one case per checker message: the body below the
// header and the exact diagnostics in one-line form.
func TestMessages(t *testing.T) {
	const head = "flow t\nparam p: string\nlog p\n" // lines 1-3
	cases := []struct {
		name string
		src  string // appended to head (starts on line 4) unless it starts with "flow"
		want []string
	}{
		{"clean", ``, nil},
		{"unknown action", `clik "#a"`,
			[]string{`t.flow:4:1: error: unknown action "clik"; did you mean "click"?`}},
		{"unknown action far from any", `frobnicate "#a"`,
			[]string{`t.flow:4:1: error: unknown action "frobnicate"`}},
		{"unknown option", `click "#a" forse: true`,
			[]string{`t.flow:4:12: error: click has no option "forse"; did you mean "force"?`}},
		{"unknown option no suggestion", `hover "#a" zzzzzz: 1`,
			[]string{`t.flow:4:12: error: hover has no option "zzzzzz"; options: wait, retries, every, timeout, optional`}},
		{"duplicate option", `click "#a" force: true force: false`,
			[]string{`t.flow:4:24: error: duplicate option "force"`}},
		{"too few args", `fill "#a"`,
			[]string{`t.flow:4:1: error: fill expects 2 arguments, got 1; usage: fill SELECTOR VALUE`}},
		{"too many args", `back "#a"`,
			[]string{`t.flow:4:6: error: back expects no arguments, got 1; usage: back`}},
		{"optional arg range", `html "#a" "#b"`,
			[]string{`t.flow:4:11: error: html expects 0 to 1 argument, got 2; usage: html [SELECTOR]`}},
		{"selector kind", `click 5`,
			[]string{`t.flow:4:7: error: click selector expects a string or a list of strings, got the number 5`}},
		{"selector list element", `click ["#a", 5]`,
			[]string{`t.flow:4:14: error: click selector expects strings in its list, got the number 5`}},
		{"int option", `click "#a" count: "2"`,
			[]string{`t.flow:4:19: error: click count: expects an integer, got the string "2"`}},
		{"float for int", `click "#a" retries: 1.5`,
			[]string{`t.flow:4:21: error: click retries: expects an integer, got the number 1.5`}},
		{"bool option", `click "#a" force: "yes"`,
			[]string{`t.flow:4:19: error: click force: expects true or false, got the string "yes"`}},
		{"duration arg", `sleep 5`,
			[]string{`t.flow:4:7: error: sleep duration expects a duration, got the number 5; ` + durationHelp}},
		{"bad duration string", `sleep "1.5s"`,
			[]string{`t.flow:4:7: error: sleep duration expects a duration, got "1.5s"; ` + durationHelp}},
		{"enum option", `click "#a" button: "lefty"`,
			[]string{`t.flow:4:20: error: click button expects one of "left", "right", "middle", got "lefty"; did you mean "left"?`}},
		{"enum option no suggestion", `wait "#a" state: "gone"`,
			[]string{`t.flow:4:18: error: wait state expects one of "visible", "hidden", "attached", "detached", got "gone"`}},
		{"map option", `x = call other with: 5`,
			[]string{`t.flow:4:22: error: call with expects a map, got the number 5`}},
		{"call bare name", `call "{{ p }}"`,
			[]string{`t.flow:4:9: error: call expects a bare flow name, got an expression`}},
		{"duplicate param", "flow t\nparam a: string\nparam a: int\nlog a\n",
			[]string{`t.flow:3:7: error: duplicate param "a"; first declared at 2:7`}},
		{"param default type", "flow t\nparam a: int = \"x\"\nparam b: bool = 1\nparam c: number = true\nparam d: list = {}\nparam e: map = []\nparam f: string = 3\nlog [a, b, c, d, e, f]\n",
			[]string{
				`t.flow:2:16: error: the default of param "a" must be an integer, got the string "x"`,
				`t.flow:3:17: error: the default of param "b" must be true or false, got the number 1`,
				`t.flow:4:19: error: the default of param "c" must be a number, got true`,
				`t.flow:5:17: error: the default of param "d" must be a list, got a map`,
				`t.flow:6:16: error: the default of param "e" must be a map, got a list`,
				`t.flow:7:19: error: the default of param "f" must be a string, got the number 3`,
			}},
		{"int default float", "flow t\nparam a: int = 1.5\nlog a\n",
			[]string{`t.flow:2:16: error: the default of param "a" must be an integer, got the number 1.5`}},
		{"enum default", "flow t\nparam a: enum(\"x\", \"y\") = \"z\"\nlog a\n",
			[]string{`t.flow:2:27: error: the default "z" of param "a" is not one of its values; values: "x", "y"`}},
		{"reserved param", "flow t\nparam page: string\nparam len: int\nlog 1\n",
			[]string{
				`t.flow:2:7: error: "page" is reserved and cannot name a param`,
				`t.flow:3:7: error: "len" is reserved and cannot name a param`,
			}},
		{"reserved variable", `loop = 1`,
			[]string{`t.flow:4:1: error: "loop" is reserved and cannot name a variable`}},
		{"reserved bound name", `count = text "#a"`,
			[]string{`t.flow:4:1: error: "count" is reserved and cannot name a variable`}},
		{"reserved loop var", "for page in [1] {\n    log 1\n}",
			[]string{`t.flow:4:5: error: "page" is reserved and cannot name a loop variable`}},
		{"reserved catch var", "try {\n    back\n} catch dialogs {\n    log 1\n}",
			[]string{`t.flow:6:9: error: "dialogs" is reserved and cannot name a catch variable`}},
		{"assign to param", `p = "x"`,
			[]string{`t.flow:4:1: error: cannot assign to param "p"; params are read-only; bind a new name`}},
		{"bind param from action", `p = title`,
			[]string{`t.flow:4:1: error: cannot assign to param "p"; params are read-only; bind a new name`}},
		{"break outside loop", "break",
			[]string{`t.flow:4:1: error: break outside a loop`}},
		{"continue outside loop", "if true {\n    continue\n}",
			[]string{`t.flow:5:5: error: continue outside a loop`}},
		{"break inside try inside loop", "while true {\n    try {\n        break\n    } catch e {\n        continue\n    }\n}", nil},
		{"unreachable", "return\nlog 1",
			[]string{`t.flow:5:1: warning: unreachable code`}},
		{"unreachable after fail", "if true {\n    fail \"x\"\n    log 1\n    log 2\n}",
			[]string{`t.flow:6:5: warning: unreachable code`}},
		{"unused param", "flow t\nparam used: string\nparam unused: int\nlog used\n",
			[]string{`t.flow:3:7: warning: param "unused" is never used`}},
		{"param used only in interpolation", "flow t\nparam a: string\nopen \"x/{{ a }}\"\n", nil},
		{"secret default", "flow t\nparam s: secret = \"hunter2\"\nlog s\n",
			[]string{`t.flow:2:19: warning: secret param "s" has a default; a secret's default is stored in the flow file in clear text`}},
		{"defaults key", "flow t\ndefaults wiat: 5s\n",
			[]string{`t.flow:2:10: error: defaults has no option "wiat"; did you mean "wait"?`}},
		{"defaults optional is not a key", "flow t\ndefaults optional: true\n",
			[]string{`t.flow:2:10: error: defaults has no option "optional"; options: wait, retries, every, timeout, on_timeout, profile, max_loops, evidence, login, logged_in, heal`}},
		{"defaults value kind", "flow t\ndefaults retries: \"2\" on_timeout: \"later\"\n",
			[]string{
				`t.flow:2:19: error: defaults retries expects an integer, got the string "2"`,
				`t.flow:2:35: error: defaults on_timeout expects one of "fail", "skip", got "later"`,
			}},
		{"duplicate defaults key", "flow t\ndefaults wait: 1s\ndefaults wait: 2s\n",
			[]string{`t.flow:3:10: error: duplicate option "wait"`}},
		{"unknown name", `log usr`,
			[]string{`t.flow:4:5: error: unknown name "usr"`}},
		{"unknown name suggestion", "user = \"a\"\nlog usr + \"x\"",
			[]string{`t.flow:5:5: error: unknown name "usr"; did you mean "user"?`}},
		{"misspelt builtin", `log lenn(p)`,
			[]string{`t.flow:4:5: error: unknown name "lenn"; did you mean "len"?`}},
		{"unknown name in arg path", `fill "#a" row.kWh`,
			[]string{`t.flow:4:11: error: unknown name "row"`}},
		{"unknown name in interpolation", `open "http://x/{{ ur }}/y"`,
			[]string{`t.flow:4:19: error: unknown name "ur"`}},
		{"unknown name in expression string interpolation", `log "a" + "b {{ nope }}"`,
			[]string{`t.flow:4:17: error: unknown name "nope"`}},
		{"interpolation in expression string ok", `log "a" + "b {{ p }} {{ len(p) }}"`, nil},
		{"type error between known types", `x = p + 1`,
			[]string{`t.flow:4:7: error: invalid operation: + (mismatched types string and int)`}},
		{"condition not bool", "if p {\n    log 1\n}",
			[]string{`t.flow:4:4: error: expected bool, but got string`}},
		{"literal condition", "if 1 {\n    log 1\n}",
			[]string{`t.flow:4:4: error: condition expects a bool, got a number`}},
		{"any is not an error", "x = text \"#a\"\nlog x + 1\nlog len(x)", nil},
		{"action result type", "u = url\nlog u + 1",
			[]string{`t.flow:5:7: error: invalid operation: + (mismatched types string and int)`}},
		{"block scope", "if true {\n    inner = 1\n}\nlog inner",
			[]string{`t.flow:7:5: error: unknown name "inner"`}},
		{"update outer binding", "n = 0\nif true {\n    n = n + 1\n}\nlog n + 1", nil},
		{"mixed types widen to any", "x = 1\nlog x + \"a\"\nx = \"s\"", nil},
		{"loop and loop var", "for r in [1, 2] {\n    log r + loop.index\n}\nlog loop",
			[]string{`t.flow:7:5: error: unknown name "loop"`}},
		{"loop over string", "for c in p {\n    log c\n}",
			[]string{`t.flow:4:10: error: cannot iterate over string`}},
		{"loop over int", "for i in 3 {\n    log i + 1\n}", nil},
		{"catch fields", "try {\n    back\n} catch e {\n    log e.message + e.kind + e.action\n    log e.line + e.code\n}", nil},
		{"catch unknown field", "try {\n    back\n} catch e {\n    log e.mesage\n}",
			[]string{`t.flow:7:11: error: unknown field mesage`}},
		{"page funcs", `assert page.exists("#a") && page.count("#b") > 1 && page.url() != page.title()`, nil},
		{"page func arg type", `assert page.exists(1)`,
			[]string{`t.flow:4:20: error: cannot use int as argument (type string) to call exists`}},
		{"dialogs", `assert len(dialogs()) == 0 || dialogs()[0].type == "alert"`, nil},
		{"until option compiles as bool", `wait until: (len(p))`,
			[]string{`t.flow:4:14: error: expected bool, but got int`}},
		{"retry count kind", "retry \"3\" {\n    back\n}",
			[]string{`t.flow:4:7: error: retry count expects an integer, got the string "3"`}},
		{"frame selector kind", "frame 3 {\n    back\n}",
			[]string{`t.flow:4:7: error: frame selector expects a string or a list of strings, got the number 3`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := c.src
			if !strings.HasPrefix(src, "flow") {
				src = head + src + "\n"
			}
			got := oneLines(checkSrc(t, src, nil))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("source:\n%s\ngot:\n  %s\nwant:\n  %s", src, strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
}

func TestCallInFolder(t *testing.T) {
	callee, ds := parse.Flow("callee.flow", []byte("flow callee\nparam region: string\nparam limit: int = 5\nlog region + string(limit)\n"))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	folder := map[string]*ast.File{"callee": callee}
	cases := []struct {
		name, src string
		want      []string
	}{
		{"ok", `x = call callee with: {"region": "a"}`, nil},
		{"unknown flow", `call calee`, []string{`t.flow:4:6: error: unknown flow "calee"; did you mean "callee"?`}},
		{"unknown flow no suggestion", `call zzzzzz`, []string{`t.flow:4:6: error: unknown flow "zzzzzz"; no flow of this folder has that name`}},
		{"unknown with key", `call callee with: {"regoin": "a"}`, []string{
			`t.flow:4:19: error: call callee is missing required param "region"`,
			`t.flow:4:20: error: flow "callee" has no param "regoin"; did you mean "region"?`,
		}},
		{"missing required", `call callee`, []string{`t.flow:4:6: error: call callee is missing required param "region"`}},
		{"with expression unchecked", `call callee with: p`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := oneLines(checkSrc(t, "flow t\nparam p: map\nlog p\n"+c.src+"\n", folder))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(c.want, "\n  "))
			}
		})
	}
	// Without a folder, call targets are not resolved.
	if got := oneLines(checkSrc(t, "flow t\ncall nowhere\n", nil)); len(got) != 0 {
		t.Errorf("single-file check resolved a call: %v", got)
	}
}

func TestRewriteInterp(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`"a"`, `"a"`},
		{`"a {{ x }} b"`, `("a " + __str( x ) + " b")`},
		{`"{{ x }}"`, `( x )`},
		{`'{{ x }}!'`, `(__str( x ) + '!')`},
		{`"{{ upper('a') }}" + "{{ '{{' }}"`, `( upper('a') ) + ( '{{' )`},
		{`"{{ {"a": 1}.a }}"`, `"{{ {"a": 1}.a }}"`}, // a " inside ends the string: left to expr
		{`"{{ {'a': 1}.a }}-"`, `(__str( {'a': 1}.a ) + "-")`},
		{`"{{ unclosed"`, `"{{ unclosed"`},
	} {
		got, m := rewriteInterp(c.in)
		if got != c.want {
			t.Errorf("rewriteInterp(%s) = %s, want %s", c.in, got, c.want)
		}
		if m != nil && len(m) != len([]rune(got)) {
			t.Errorf("offset map of %s has %d entries for %d runes", c.in, len(m), len([]rune(got)))
		}
	}
}

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{{"500ms", true}, {"10s", true}, {"1m30s", true}, {"2h", true}, {"1.5s", false}, {"", false}, {"10", false}, {"s", false},
		{"10sec", false}, {"99999999999999999999h", false}, {"10s ", false}} {
		if _, err := ParseDuration(c.in); (err == nil) != c.ok {
			t.Errorf("ParseDuration(%q) err = %v", c.in, err)
		}
	}
}

// TestHandBuiltTrees: trees no front end makes (nil parts, missing types,
// odd literals) give diagnostics, never a panic.
func TestHandBuiltTrees(t *testing.T) {
	r := ast.Range{File: "h.flow", Start: ast.Pos{Line: 1, Col: 1}}
	files := []*ast.File{
		nil,
		{},
		{Name: "Bad Name", Params: []*ast.Param{{Name: "a"}, nil, {Name: "b", Type: &ast.Type{Name: "enum"}}, {Name: "c", Type: &ast.Type{Name: "strnig"}}}},
		{Name: "x", Defaults: []*ast.Option{{Name: "wait"}, nil}, Body: []ast.Stmt{
			nil,
			&ast.ActionStmt{Range: r, Action: "click", Args: []ast.Expr{nil}},
			&ast.ActionStmt{Range: r, Action: "fill", Args: []ast.Expr{&ast.ListLit{}, &ast.MapLit{Entries: []*ast.MapEntry{nil, {Key: &ast.ExprSrc{}, Value: &ast.NullLit{}}}}}},
			&ast.ActionStmt{Range: r, Action: "click", Args: []ast.Expr{&ast.StringLit{}}, Options: []*ast.Option{nil, {Name: "wait"}}},
			&ast.IfStmt{Range: r},
			&ast.ForStmt{Range: r},
			&ast.WhileStmt{Range: r},
			&ast.TryStmt{Range: r},
			&ast.RetryStmt{Range: r},
			&ast.FrameStmt{Range: r},
			&ast.FailStmt{Range: r},
			&ast.AssertStmt{Range: r},
			&ast.LogStmt{Range: r, Value: &ast.StringLit{Parts: []ast.StringPart{{Expr: &ast.ExprSrc{Source: "1 +"}}}}},
			&ast.AssignStmt{Range: r, Name: "", Value: &ast.DurationLit{Raw: "1s"}},
			&ast.ActionStmt{Range: r, Action: "call", Args: []ast.Expr{&ast.NumberLit{Raw: "1", Value: int64(1)}}},
		}},
	}
	for i, f := range files {
		_, ds := File(f, &Options{Folder: map[string]*ast.File{"y": nil}})
		if !ds.HasErrors() {
			t.Errorf("tree %d: no errors", i)
		}
		for _, d := range ds {
			if strings.Contains(d.Summary, "internal error in the checker") {
				t.Errorf("tree %d: %s", i, d.Summary)
			}
		}
	}
}

// TestContext: a diagnostic's Context is the innermost statement around
// its subject that is larger than it (the step call of a bad argument,
// the block of a bad statement), and none for a whole top-level statement.
func TestContext(t *testing.T) {
	src := "flow t\nparam p: list\nfor row in p {\n  if row != nil {\n    click \"#a\" forse: true\n  }\n}\nif len(p) > 0 {\n  break\n}\nclik \"#b\"\nbreak\n"
	ds := checkSrc(t, src, nil)
	got := map[string]string{}
	for _, d := range ds {
		ctx := "none"
		if d.Context != nil {
			ctx = d.Context.Start.String() + "-" + d.Context.End.String()
		}
		got[d.Subject.Start.String()+" "+d.Summary] = ctx
	}
	want := map[string]string{
		`5:16 click has no option "forse"`: "5:5-5:27",   // the step call
		`9:3 break outside a loop`:         "8:1-10:2",   // the block around it
		`11:1 unknown action "clik"`:       "11:1-11:10", // the step call
		`12:1 break outside a loop`:        "none",       // a whole top-level statement
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: context %s, want %s (all: %v)", k, got[k], v, got)
		}
	}
	var b strings.Builder
	if err := diag.Render(&b, ds, func(string) []byte { return []byte(src) }); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "t.flow:9:3: error: break outside a loop\n    if len(p) > 0 {\n      break\n      ^~~~~\n") ||
		!strings.Contains(b.String(), "t.flow:12:1: error: break outside a loop\n    break\n") {
		t.Errorf("rendered:\n%s", b.String())
	}
}
