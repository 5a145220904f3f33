package lang

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
)

func mustLoad(t *testing.T, src string) *Flow {
	t.Helper()
	f, ds := Load("t.flow", []byte(src))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	return f
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestArgs: --arg strings are parsed by param type; JSON values are
// converted to the env's shapes; bad ones are an *ArgError naming the field.
func TestArgs(t *testing.T) {
	f := mustLoad(t, `flow t
param s: string
param pw: secret = "x"
param n: int = 1
param f: number = 1.5
param b: bool = false
param e: enum("a", "b") = "a"
param l: list = []
param m: map = {}
return null
`)
	got, err := f.ParseArgs(map[string]string{"s": "hi", "n": "7", "f": "2", "b": "true", "e": "b", "l": `[1,"x"]`, "m": `{"k":1}`})
	if err != nil {
		t.Fatal(err)
	}
	if jsonOf(got.Map()) != `{"b":true,"e":"b","f":2,"l":[1,"x"],"m":{"k":1},"n":7,"pw":"x","s":"hi"}` {
		t.Fatalf("%s", jsonOf(got.Map()))
	}
	if n, _ := got.Value("n"); reflect.TypeOf(n) != reflect.TypeOf(0) {
		t.Fatalf("int param is %T", n)
	}
	if !got.For(f) || got.For(mustLoad(t, "flow t\nparam s: string\nlog s\n")) {
		t.Error("For: the args belong to the flow they were checked for, and only to it")
	}
	bad := []struct {
		kv    map[string]string
		field string
	}{
		{map[string]string{}, "s"},
		{map[string]string{"s": "x", "n": "1.5"}, "n"},
		{map[string]string{"s": "x", "e": "c"}, "e"},
		{map[string]string{"s": "x", "l": "nope"}, "l"},
		{map[string]string{"s": "x", "zz": "1"}, "zz"},
		{map[string]string{"s": "x", "b": "maybe"}, "b"},
		{map[string]string{"s": "x", "profileId": "p1"}, "profileId"}, // a host's own argument is stripped by the host
	}
	for _, tt := range bad {
		_, err := f.ParseArgs(tt.kv)
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Field != tt.field {
			t.Errorf("%v: err %v, want field %s", tt.kv, err, tt.field)
		}
	}
	cg, err := f.CheckArgs(map[string]any{"s": "x", "n": 3.0, "f": 2})
	if n, _ := cg.Value("n"); err != nil || n != 3 {
		t.Fatalf("%v %v", cg.Map(), err)
	}
	if x, _ := cg.Value("f"); x != 2.0 {
		t.Fatalf("number param from an int: %v", x)
	}
	for _, in := range []map[string]any{{"s": 1}, {"s": "x", "n": 1.5}, {"s": "x", "b": "true"}, {"s": "x", "l": "x"}, {"s": "x", "profileId": "p"}} {
		if _, err := f.CheckArgs(in); err == nil {
			t.Errorf("%v accepted", in)
		}
	}
	if _, err := f.CheckArgs(map[string]any{"s": "x", "pw": 12345}); err == nil || strings.Contains(err.Error(), "12345") {
		t.Errorf("a secret of the wrong type: %v (the value must not show)", err)
	}
}

// TestArgsMissingAndNull: every missing required param is named at once,
// and null for a required int says "got null" rather than "missing"; a
// number that is no integer is shown ("got 1.5", not "got a number").
func TestArgsMissingAndNull(t *testing.T) {
	f := mustLoad(t, "flow p\nparam a: string\nparam b: string\nparam n: int\nparam d: int = 3\nlog a + b\nlog n + d\n")
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "required params are missing: a (string), b (string), n (int)"},
		{map[string]any{"a": "x"}, "required params are missing: b (string), n (int)"},
		{map[string]any{"a": "x", "b": "y"}, `argument "n": required int param is missing`},
		{map[string]any{"a": "x", "b": "y", "n": nil}, `argument "n": want an integer, got null`},
		{map[string]any{"a": nil, "b": "y", "n": 1}, `argument "a": want a string, got null`},
		{map[string]any{"a": "x", "b": "y", "n": 1.5}, `argument "n": want an integer, got 1.5`},
		{map[string]any{"a": "x", "b": "y", "n": json.Number("2.25")}, `argument "n": want an integer, got 2.25`},
	} {
		_, err := f.CheckArgs(c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	got, err := f.CheckArgs(map[string]any{"a": "x", "b": "y", "n": 1, "d": nil})
	if d, _ := got.Value("d"); err != nil || d != 3 {
		t.Errorf("null for a param with a default takes the default: %v %v", got.Map(), err)
	}
}

// TestUnknownArgSuggests: an argument close to a param name gets a "did
// you mean", from --arg strings and from JSON args alike.
func TestUnknownArgSuggests(t *testing.T) {
	f := mustLoad(t, "flow t\nparam page_no: int = 1\nparam region: string = \"N\"\nlog \"{{ page_no }} {{ region }}\"\n")
	_, err := f.ParseArgs(map[string]string{"page_np": "3"})
	if err == nil || !strings.Contains(err.Error(), `argument "page_np": no such param; did you mean "page_no"? (params: page_no, region)`) {
		t.Errorf("ParseArgs: %v", err)
	}
	_, err = f.CheckArgs(map[string]any{"regoin": "S"})
	if err == nil || !strings.Contains(err.Error(), `did you mean "region"?`) {
		t.Errorf("CheckArgs: %v", err)
	}
	_, err = f.CheckArgs(map[string]any{"zzzzzz": "S"})
	if err == nil || strings.Contains(err.Error(), "did you mean") || !strings.Contains(err.Error(), "no such param (params: page_no, region)") {
		t.Errorf("CheckArgs far name: %v", err)
	}
	_, err = mustLoad(t, "flow t\nlog 1\n").CheckArgs(map[string]any{"x": 1})
	if err == nil || !strings.Contains(err.Error(), "no such param (the flow takes none)") {
		t.Errorf("a flow without params: %v", err)
	}
}

// TestNonFiniteArgs: a number param refuses NaN and Inf, as strings and as
// values.
func TestNonFiniteArgs(t *testing.T) {
	f := mustLoad(t, "flow t\nparam n: number\nreturn n\n")
	for _, bad := range []string{"NaN", "Inf", "-infinity", "+Inf"} {
		_, err := f.ParseArgs(map[string]string{"n": bad})
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Field != "n" {
			t.Errorf("%s: %v, want an ArgError naming n", bad, err)
		}
	}
	if _, err := f.CheckArgs(map[string]any{"n": math.NaN()}); err == nil {
		t.Error("NaN accepted through CheckArgs")
	}
}

func TestArgsFromJSON(t *testing.T) {
	f := mustLoad(t, "flow a\nparam n: int\nparam x: number = 1\nparam s: string = \"d\"\nparam l: list = []\nreturn [n, x, s, l]\n")
	got, err := f.ArgsFromJSON([]byte(`{"n": 3, "x": 2.5, "l": [1, "a"]}`), nil)
	want := map[string]any{"n": 3, "x": 2.5, "s": "d", "l": []any{1, "a"}}
	if err != nil || !reflect.DeepEqual(got.Map(), want) {
		t.Errorf("JSON only: %v %v", got.Map(), err)
	}
	got, err = f.ArgsFromJSON([]byte(`{"n": 3, "s": null, "l": [1]}`), map[string]string{"n": "4", "s": "o"})
	want = map[string]any{"n": 4, "x": 1.0, "s": "o", "l": []any{1.0}}
	if err != nil || !reflect.DeepEqual(got.Map(), want) {
		t.Errorf("with overrides: %#v %v", got.Map(), err)
	}
	var ae *ArgError
	if _, err := f.ArgsFromJSON([]byte(`{"n": 1.5}`), nil); !errors.As(err, &ae) || ae.Field != "n" {
		t.Errorf("bad int: %v", err)
	}
	for _, bad := range []string{`[1]`, `null`, `{`} {
		if _, err := f.ArgsFromJSON([]byte(bad), nil); err == nil || errors.As(err, &ae) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestArgsFromFile: no file is the overrides alone; a file's object with
// the overrides on top; a bad file names --args; an ArgError stays one.
func TestArgsFromFile(t *testing.T) {
	f := mustLoad(t, "flow a\nparam n: int\nparam s: string = \"d\"\nreturn [n, s]\n")
	dir := t.TempDir()
	good, bad, wrong := filepath.Join(dir, "g.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "w.json")
	os.WriteFile(good, []byte(`{"n": 3, "s": "x"}`), 0o644)
	os.WriteFile(bad, []byte(`[1]`), 0o644)
	os.WriteFile(wrong, []byte(`{"n": "three"}`), 0o644)
	if got, err := f.ArgsFromFile("", map[string]string{"n": "2"}); err != nil || got.Map()["n"] != 2 {
		t.Errorf("no file: %v %v", got.Map(), err)
	}
	if got, err := f.ArgsFromFile(good, map[string]string{"s": "y"}); err != nil || got.Map()["n"] != 3 || got.Map()["s"] != "y" {
		t.Errorf("file + override: %v %v", got.Map(), err)
	}
	var ae *ArgError
	for path, want := range map[string]string{bad: "--args " + bad, filepath.Join(dir, "none.json"): "--args: "} {
		if _, err := f.ArgsFromFile(path, nil); err == nil || !strings.Contains(err.Error(), want) || errors.As(err, &ae) {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := f.ArgsFromFile(wrong, nil); !errors.As(err, &ae) {
		t.Errorf("bad value: %v", err)
	}
}

// TestArgsSecretsAndResolve: Secrets lists the secret params' values;
// Resolve replaces the values of one type and leaves the checked Args as
// they were; its error names the param.
func TestArgsSecretsAndResolve(t *testing.T) {
	f := mustLoad(t, "flow t\nparam user: string\nparam pw: secret\nparam pin: secret = \"\"\nparam site: string = \"a\"\nlog user + pw + pin + site\n")
	a, err := f.CheckArgs(map[string]any{"user": "ann", "pw": "Zq7-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Secrets(); !reflect.DeepEqual(got, []string{"Zq7-pass"}) {
		t.Errorf("Secrets() = %v", got)
	}
	r, err := a.Resolve("string", func(p *ast.Param, v any) (any, error) { return p.Name + "=" + v.(string), nil })
	if err != nil || r.Map()["user"] != "user=ann" || r.Map()["site"] != "site=a" || r.Map()["pw"] != "Zq7-pass" || !r.For(f) {
		t.Errorf("Resolve: %v %v", r.Map(), err)
	}
	if a.Map()["user"] != "ann" {
		t.Errorf("Resolve changed the Args it was called on: %v", a.Map())
	}
	_, err = a.Resolve("string", func(p *ast.Param, v any) (any, error) { return nil, errors.New("no such account") })
	var ae *ArgError
	if !errors.As(err, &ae) || ae.Field != "user" || err.Error() != `argument "user": no such account` {
		t.Errorf("Resolve error: %v", err)
	}
	if !(Args{}).IsZero() || a.IsZero() {
		t.Error("IsZero")
	}
}

// TestLiteral: the one evaluator of literals (defaults, `defaults` values).
func TestLiteral(t *testing.T) {
	f := mustLoad(t, `flow t
param i: int = 3
param x: number = 1.5
param l: list = ["a", 1, true, null]
param m: map = {"k": "v", "n": null, "l": [2]}
defaults wait: 2s
log "x"
`)
	want := []string{`3`, `1.5`, `["a",1,true,null]`, `{"k":"v","l":[2],"n":null}`}
	for i, p := range f.File.Params {
		v, err := Literal(p.Default)
		if err != nil || jsonOf(v) != want[i] {
			t.Errorf("%s: %v %v, want %s", p.Name, jsonOf(v), err, want[i])
		}
	}
	if v, _ := Literal(f.File.Params[0].Default); reflect.TypeOf(v) != reflect.TypeOf(0) {
		t.Errorf("an integer literal is %T, want int", v)
	}
	if v, err := Literal(f.File.Defaults[0].Value); err != nil || v.(interface{ Seconds() float64 }).Seconds() != 2 {
		t.Errorf("duration: %v %v", v, err)
	}
	g := mustLoad(t, "flow t\nparam u: string = \"x\"\nlog \"{{ u }}\"\n")
	body := g.File.Body[0].(*ast.LogStmt)
	if _, err := Literal(body.Value); err == nil || !strings.Contains(err.Error(), "not a literal") {
		t.Errorf("an interpolating string: %v", err)
	}
}

// TestInputSchema: the params' properties in declaration order, then the
// host's; required lists the params without a default; a secret never has
// a default; a param named like a host argument is refused.
func TestInputSchema(t *testing.T) {
	f := mustLoad(t, `flow all_types "Every param type"

param s: string "A string"
param pw: secret = "not-in-schema" "A secret with a default"
param token: secret "A required secret"
param i: int = 3 "An int"
param x: number = 1.5
param b: bool = false "A bool"
param l: list = ["a", 1]
param m: map = {"k": "v", "n": null}
param e: enum("one", "two") = "two" "An enum"

log s
`)
	host := []HostArg{
		{Name: "profileId", Property: Property{Type: "string", Description: "Browser profile ID (optional override)"}},
		{Name: "resumeFrom", Property: Property{Type: "integer"}},
	}
	got, err := f.InputSchema(host...)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"s":{"type":"string","description":"A string"},"pw":{"type":"string","description":"A secret with a default","writeOnly":true,"format":"password"},"token":{"type":"string","description":"A required secret","writeOnly":true,"format":"password"},"i":{"type":"integer","description":"An int","default":3},"x":{"type":"number","default":1.5},"b":{"type":"boolean","description":"A bool","default":false},"l":{"type":"array","default":["a",1]},"m":{"type":"object","default":{"k":"v","n":null}},"e":{"type":"string","description":"An enum","default":"two","enum":["one","two"]},"profileId":{"type":"string","description":"Browser profile ID (optional override)"},"resumeFrom":{"type":"integer"}},"required":["s","token"],"additionalProperties":false}`
	if string(got) != want {
		t.Errorf("InputSchema:\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Error("not JSON")
	}
	if _, err := mustLoad(t, "flow t\nparam resumeFrom: int\nlog resumeFrom\n").InputSchema(host...); err == nil || !strings.Contains(err.Error(), `param "resumeFrom": the name is reserved`) {
		t.Errorf("a param named like a host argument: %v", err)
	}
	if got, _ := mustLoad(t, "flow t\nlog 1\n").InputSchema(); string(got) != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("no params: %s", got)
	}
}
