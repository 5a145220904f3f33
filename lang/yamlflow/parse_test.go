package yamlflow

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/parse"
)

// TestYAMLMeansFlow: each YAML snippet parses to the same tree as its .flow
// counterpart (both are bodies under a common header).
func TestYAMLMeansFlow(t *testing.T) {
	cases := []struct{ name, yaml, flow string }{
		{"bare no-arg action", "- back", "back"},
		{"null value with as", "- title:\n  as: t", "t = title"},
		{"positional scalar", `- click: "#a"`, `click "#a"`},
		{"list of args", `- fill: ["#a", "{{ x }}"]`, `fill "#a" x`},
		{"map form with args", `- fill: {args: ["#a", v], wait: 2s}`, `fill "#a" "v" wait: 2s`},
		{"args key at step level", "- fill:\n  args: ['#a', 1]", `fill "#a" 1`},
		{"fallback selector list", `- click: [["#a", "text=A"]]`, `click ["#a", "text=A"]`},
		{"options as step keys", "- click: '#a'\n  count: 2\n  force: true", `click "#a" count: 2 force: true`},
		{"no-arg action with options", "- wait: {url: /query}", `wait url: "/query"`},
		{"plain duration in arg position", "- fill: ['#a', 10s]", `fill "#a" 10s`},
		{"quoted duration stays a string", `- fill: ["#a", "10s"]`, `fill "#a" "10s"`},
		{"quoted duration in a duration slot", `- sleep: "2s"`, `sleep 2s`},
		{"interpolation", `- log: "{{ n }} rows"`, `log "{{ n }} rows"`},
		{"exact interpolation lowers", `- log: "{{ a + b }}"`, `log a + b`},
		{"literal braces", `- log: "{{ '{{' }} x"`, `log "{{ '{{' }} x"`},
		{"fail with expression", `- fail: '{{ "no data " + r }}'`, `fail "no data " + r`},
		{"numbers", "- set: {a: 1, b: 2.5, c: -3, d: 0x10}", "a = 1\nb = 2.5\nc = -3\nd = 0x10"},
		{"yaml-only number spellings", "- fill: ['#a', 0o17]\n- fill: ['#a', +5]\n- fill: ['#a', .5]", "fill \"#a\" 15\nfill \"#a\" 5\nfill \"#a\" 0.5"},
		{"set expression string", `- set: {s: '"a {{ x }}"'}`, `s = "a {{ x }}"`},
		{"set null", "- set: {z: null}", "z = null"},
		{"bare return", "- return", "return"},
		{"return null", "- return: null", "return null"},
		{"return map", `- return: '{"a": 1}'`, `return {"a": 1}`},
		{"else if", "- if: a\n  then: [back]\n  else:\n    - if: b\n      then: [reload]\n      else: [forward]",
			"if a {\n    back\n} else if b {\n    reload\n} else {\n    forward\n}"},
		{"for", "- for: r\n  in: rows\n  do:\n    - log: '{{ r }}'\n    - continue", "for r in rows {\n    log r\n    continue\n}"},
		{"while break", "- while: 'true'\n  do: [break]", "while true {\n    break\n}"},
		{"try catch", "- try: [back]\n  catch: {as: e, do: [{log: '{{ e.message }}'}]}", "try {\n    back\n} catch e {\n    log e.message\n}"},
		{"retry", "- retry: 3\n  every: 2s\n  do: [reload]", "retry 3 every: 2s {\n    reload\n}"},
		{"frame", "- frame: ['#f', 'iframe']\n  do: [back]", "frame [\"#f\", \"iframe\"] {\n    back\n}"},
		{"assert message", "- assert: n > 0\n  message: 'need {{ n }}'", "assert n > 0, \"need {{ n }}\""},
		{"until", "- wait: {until: page.exists(\"#x\")}", "wait until: page.exists(\"#x\")"},
		{"call with", "- call: other\n  as: r\n  with: {region: '{{ reg }}', n: 2}", "r = call other with: {\"region\": reg, \"n\": 2}"},
		{"exec list", "- exec: [[ls, -la]]", "exec [\"ls\", \"-la\"]"},
		{"map literal arg", "- llm: hi\n  input: {a: [1, two]}", "llm \"hi\" input: {\"a\": [1, \"two\"]}"},
		{"unicode", "- fill: ['#a', 数据]", "fill \"#a\" \"数据\""},
		{"option named as", "- click: {args: ['#a'], as: 1}\n  as: r", "r = click \"#a\" as: 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			y, ds := Parse("t.yaml", []byte("flow: t\nsteps:\n"+indent(c.yaml)))
			if len(ds) > 0 {
				t.Fatalf("yaml: %v", ds)
			}
			f, ds := parse.Flow("t.flow", []byte("flow t\n"+c.flow+"\n"))
			if len(ds) > 0 {
				t.Fatalf("flow: %v", ds)
			}
			if !ast.Equal(y, f) {
				t.Errorf("differ\nyaml:\n%s\nflow:\n%s", ast.Dump(y), ast.Dump(f))
			}
			// and back through Write
			g, ds := Parse("w.yaml", Write(f))
			if len(ds) > 0 || !ast.Equal(g, f) {
				t.Errorf("Write round trip: %v\n%s", ds, Write(f))
			}
		})
	}
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// TestPositions: YAML nodes keep line:col, and ExprSrc starts where its
// text starts, so expression errors point into the YAML file.
func TestPositions(t *testing.T) {
	src := "flow: p\nsteps:\n  - if: a ==  b\n    then:\n      - log: \"x {{ y }}\"\n  - fill: ['#a', '{{ z }}']\n"
	f, ds := Parse("p.yaml", []byte(src))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	ifs := f.Body[0].(*ast.IfStmt)
	if got := ifs.Range.Start.String() + " " + ifs.Cond.Rng().Start.String(); got != "3:5 3:9" {
		t.Errorf("if at %s", got)
	}
	part := ifs.Then[0].(*ast.LogStmt).Value.(*ast.StringLit).Parts[1].Expr
	if got := part.Range.Start.String(); got != "5:19" {
		t.Errorf("interpolation at %s, want 5:19", got)
	}
	arg := f.Body[1].(*ast.ActionStmt).Args[1].(*ast.ExprSrc)
	if got := arg.Range.Start.String(); got != "6:21" || src[arg.Range.Start.Offset:arg.Range.Start.Offset+1] != " " {
		t.Errorf("arg expr at %s (%q)", got, src[arg.Range.Start.Offset:])
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "t.yaml:1:1: error: empty flow"},
		{"[1]", "t.yaml:1:1: error: a flow is a YAML map with flow:, params:, defaults: and steps:"},
		{"flow: a\nsteps: {}", "t.yaml:2:8: error: steps must be a list, got a map"},
		{"steps: []", "t.yaml:1:1: error: missing flow: NAME"},
		{"flow: a\nx: &v 1\nsteps:\n  - log: *v", "t.yaml:2:1: error: unknown key \"x\"; known keys: flow, description, params, defaults, steps"},
		{"flow: a\nsteps:\n  - log: *v", "t.yaml:1:1: error: unknown anchor 'v' referenced"},
		{"flow: a\nsteps:\n  - click: '#a'\n    as: x\n    as: y", "t.yaml:5:5: error: key \"as\" given twice; first at line 4"},
		{"flow: a\nsteps:\n  - if: x\n    then: []\n    do: []", "t.yaml:5:5: error: if does not take key \"do\"; known keys: then, else"},
		{"flow: a\n---\nflow: b", "t.yaml:2:1: error: a flow file holds one YAML document"},
	} {
		_, ds := Parse("t.yaml", []byte(c.src))
		var got []string
		for _, d := range ds {
			got = append(got, d.OneLine())
		}
		if len(got) == 0 || got[0] != c.want {
			t.Errorf("Parse(%q):\ngot  %q\nwant %q", c.src, got, c.want)
		}
	}
}

func TestBraceBeforeInterpolation(t *testing.T) {
	for _, flow := range []string{`log "\x7b{{ a }}"`, `x = "\x7b{{ a }}" + "b"`, `x = "\x7b{{ a }}"`, `fill "#a" (x + "it's {")`} {
		f, ds := parse.Flow("t.flow", []byte("flow t\n"+flow+"\n"))
		if len(ds) > 0 {
			t.Fatalf("%s: %v", flow, ds)
		}
		y := Write(f)
		g, ds := Parse("t.yaml", y)
		if len(ds) > 0 || !ast.Equal(f, g) {
			t.Errorf("%s: %v\n%s", flow, ds, y)
		}
	}
}
