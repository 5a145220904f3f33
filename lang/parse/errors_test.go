package parse_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rpa-dev/rpa/lang/ast"
	"github.com/rpa-dev/rpa/lang/parse"
)

// TestErrors pins every parse error message with its exact file:line:col.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []string
	}{
		{"flow a\nif x { log 1 }\n", []string{"e.flow:2:6: error: one-line blocks are not allowed: `{` must be the last token of its line and `}` must start a line"}},
		{"flow a\nfor x in rows { log x }\n", []string{"e.flow:2:15: error: one-line blocks are not allowed: `{` must be the last token of its line and `}` must start a line"}},
		{"flow a\nif x\n", []string{"e.flow:2:5: error: expected `{` at the end of the if line"}},
		{"flow a\nif x {\n} else\n", []string{"e.flow:3:7: error: expected `{` at the end of the } else line"}},
		{"flow a\nif x {\n}\nelse {\n}\n", []string{"e.flow:4:1: error: else must follow } on the same line: `} else {`"}},
		{"flow a\ntry {\n}\ncatch e {\n}\n", []string{"e.flow:3:1: error: try needs a catch: write `} catch NAME {`", "e.flow:4:1: error: catch must follow } on the same line: `} catch NAME {`"}},
		{"flow a\n} foo\n", []string{"e.flow:2:3: error: unexpected \"foo\" after }: only `} else {`, `} else if COND {` or `} catch NAME {` may follow"}},
		{"flow a\n} else {\n", []string{"e.flow:2:1: error: unexpected }: no block is open"}},
		{"flow a\n}\n", []string{"e.flow:2:1: error: unexpected }: no block is open"}},
		{"flow a\nlog x }\n", []string{"e.flow:2:7: error: unexpected }: a block's } must start a line"}},
		{"flow a\nif x {\n", []string{"e.flow:2:6: error: block is never closed: no `}` matches this `{`"}},
		{"flow a\ntry {\n}\n", []string{"e.flow:3:1: error: try needs a catch: write `} catch NAME {`"}},
		{"flow a\nif x {\n} catch e {\n}\n", []string{"e.flow:3:3: error: catch without try"}},
		{"flow a\ntry {\n} else {\n}\n", []string{"e.flow:3:3: error: else without if"}},
		{"flow a\nclick \"#a\n", []string{"e.flow:2:7: error: string not terminated"}},
		{"flow a\nx = \"a\" + \"b\n", []string{"e.flow:2:11: error: string not terminated"}},
		{"flow a\nx = f('abc)\n", []string{"e.flow:2:6: error: ( is never closed (no matching ))", "e.flow:2:7: error: string not terminated"}},
		{"flow a\nlog \"{{ x\"\n", []string{"e.flow:2:6: error: {{ is never closed with }}"}},
		{"flow a\nlog \"{{ }}\"\n", []string{"e.flow:2:6: error: empty {{ }}"}},
		{"flow a\nlog \"a\\q\"\n", []string{"e.flow:2:7: error: invalid escape \"\\\\q\" in string"}},
		{"flow a\nx = f(a,\nlog x\n", []string{"e.flow:2:6: error: ( is never closed (no matching ))"}},
		{"flow a\nx = f(a]\n", []string{"e.flow:2:8: error: unexpected ]: ( at 2:6 is still open"}},
		{"flow a\nx = a)\n", []string{"e.flow:2:6: error: unexpected ): nothing to close"}},
		{"flow a\n\x00\n", []string{"e.flow:2:1: error: invalid character U+0000"}},
		{"flow a\n\xff\n", []string{"e.flow:2:1: error: invalid UTF-8 byte 0xff"}},
		{"flow a\nlog \"\xff\"\n", []string{"e.flow:2:5: error: invalid UTF-8 in string"}},
		{"flow a\n# \xff\n", []string{"e.flow:2:1: error: invalid UTF-8 in comment"}},
		{"flow a\nlog é\n", []string{"e.flow:2:5: error: invalid character U+00E9 'é' outside a string or comment"}},
		{"log 1\n", []string{"e.flow:1:1: error: a flow starts with `flow NAME`"}},
		{"\n\n", []string{"e.flow:1:1: error: empty file: a flow starts with `flow NAME`"}},
		{"", []string{"e.flow:1:1: error: empty file: a flow starts with `flow NAME`"}},
		{"# only a comment\n", []string{"e.flow:1:1: error: a flow starts with `flow NAME`"}},
		{"flow A\n", []string{"e.flow:1:6: error: flow name \"A\" must match [a-z][a-z0-9_]*"}},
		{"flow a\nflow b\n", []string{"e.flow:2:1: error: a flow has one `flow` line"}},
		{"param x: int\nflow a\n", []string{"e.flow:1:1: error: a flow starts with `flow NAME`", "e.flow:2:1: error: `flow NAME` must be the first line"}},
		{"flow a \"{{ x }}\"\n", []string{"e.flow:1:8: error: a description cannot interpolate {{ }}"}},
		{"flow a\nlog 1\nparam x: int\n", []string{"e.flow:3:1: error: param lines belong to the header, before the first statement"}},
		{"flow a\nif x {\n  param y: int\n}\n", []string{"e.flow:3:3: error: param lines belong to the header, before the first statement"}},
		{"flow a\nlog 1\ndefaults wait: 1s\n", []string{"e.flow:3:1: error: defaults lines belong to the header, before the first statement"}},
		{"flow a\nparam x: enum = \"a\"\n", []string{"e.flow:2:10: error: enum needs its values: enum(\"a\", \"b\")"}},
		{"flow a\nparam x: string(\"a\")\n", []string{"e.flow:2:10: error: only enum takes values, not string"}},
		{"flow a\nparam x int\n", []string{"e.flow:2:9: error: unexpected \"int\""}},
		{"flow a\nparam x: int = y\n", []string{"e.flow:2:16: error: a param default must be a literal: a string, number, bool, null, or a list or map of those"}},
		{"flow a\nparam x: string = \"{{ y }}\"\n", []string{"e.flow:2:19: error: a param default must be a literal: it cannot interpolate {{ }}"}},
		{"flow a\nretry 3 timeout: 1s {\n}\n", []string{`e.flow:2:9: error: retry has no option "timeout"; options: every`}},
		{"flow a\nretry 3 every: 1s every: 2s {\n}\n", []string{`e.flow:2:19: error: duplicate option "every"`}},
		{"flow a\nclick \"#a\" timeout:\n", []string{"e.flow:2:20: error: unexpected end of line"}},
		{"flow a\nclick \"#a\" 5x\n", []string{"e.flow:2:13: error: missing space before \"x\""}},
		{"flow a\nclick\"#a\"\n", []string{"e.flow:2:6: error: missing space before string \"#a\""}},
		{"flow a\nclick .x\n", []string{"e.flow:2:7: error: unexpected \".\""}},
		{"flow a\nsleep 99999999999h\n", []string{"e.flow:2:7: error: duration 99999999999h out of range"}},
		{"flow a\nx = 99999999999999999999\n", []string{"e.flow:2:5: error: bad number 99999999999999999999"}},
		{"flow a\nclick ()\n", []string{"e.flow:2:7: error: empty ( )"}},
		{"flow a\nfor x rows {\n}\n", []string{"e.flow:2:7: error: unexpected \"rows\""}},
		{"flow a\nassert\n", []string{"e.flow:2:7: error: unexpected end of line"}},
		{"flow a\n\"abc\"\n", []string{"e.flow:2:1: error: unexpected string \"abc\""}},
		{"flow a\nx = #\n", []string{"e.flow:2:4: error: unexpected end of line"}},
		{"flow a\nlog (a # b\n)\n", []string{"e.flow:2:8: error: a comment cannot stand inside ( ) or [ ]: there # is expr's closure name"}},
		{"flow a\nx = f(1,\n  # note\n  2)\n", []string{"e.flow:3:3: error: a comment cannot stand inside ( ) or [ ]: there # is expr's closure name"}},
		{"flow a\nx = #y\n", []string{"e.flow:2:4: error: unexpected end of line"}},
		// an operator between an action's arguments: one value, {{ }} joins text
		{"flow a\nask \"Pick for \" + region\n", []string{`e.flow:2:17: error: unexpected "+"; an action's argument is one value: to join text write one string with {{ }} inside: "Pick for {{ region }}"`}},
		{"flow a\nx = ask \"Pick \" + r.name + \" of \" + n timeout: 5s\n", []string{`e.flow:2:17: error: unexpected "+"; an action's argument is one value: to join text write one string with {{ }} inside: "Pick {{ r.name }} of {{ n }}"`}},
		{"flow a\nfill \"#q\" n + 1\n", []string{`e.flow:2:13: error: unexpected "+"; an action's argument is one value: put an expression in parentheses, ( ); text is joined inside one string with {{ }} ("Region {{ region }}")`}},
		{"flow a\nselect \"#q\" \"x\" == r\n", []string{`e.flow:2:17: error: unexpected "=="; an action's argument is one value: put an expression in parentheses, ( ); text is joined inside one string with {{ }} ("Region {{ region }}")`}},
		// several errors in one file, each line resynchronised
		{"flow a\nclick \"#a\n\"b\"\nlog )\nif x\n}\n", []string{
			"e.flow:2:7: error: string not terminated",
			"e.flow:3:1: error: unexpected string \"b\"",
			"e.flow:4:5: error: unexpected ): nothing to close",
			"e.flow:5:5: error: expected `{` at the end of the if line",
			"e.flow:6:1: error: unexpected }: no block is open",
		}},
		// a bad block header still opens a block, so its } matches
		{"flow a\nif (x {\n  log 1\n}\nlog 2\n", []string{"e.flow:2:4: error: ( is never closed (no matching ))"}},
	} {
		_, ds := parse.Flow("e.flow", []byte(tc.src))
		var got []string
		for _, d := range ds {
			got = append(got, d.OneLine())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%q:\n got: %q\nwant: %q", tc.src, got, tc.want)
		}
	}
}

// TestRobust feeds hostile inputs: each must finish quickly with a clear
// diagnostic or a clean parse, never a panic or an internal error.
func TestRobust(t *testing.T) {
	nested := func(n int) string {
		var b strings.Builder
		b.WriteString("flow deep\n")
		for i := 0; i < n; i++ {
			b.WriteString("if true {\n")
		}
		b.WriteString("log 1\n")
		for i := 0; i < n; i++ {
			b.WriteString("}\n")
		}
		return b.String()
	}
	big := func() string {
		var b strings.Builder
		b.WriteString("flow big\n")
		for b.Len() < 10<<20 {
			b.WriteString("click \"#button-with-a-long-selector\" timeout: 5s # and a comment\n")
		}
		return b.String()
	}
	garbage := func(n int) string {
		b := make([]byte, n)
		x := uint32(2463534242)
		for i := range b {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b[i] = byte(x)
		}
		return string(b)
	}
	for _, tc := range []struct {
		name, src string
		want      string // substring of the first diagnostic; "" = must parse cleanly
	}{
		{"empty", "", "empty file"},
		{"garbage", garbage(1 << 16), "error"},
		{"10MB", big(), ""},
		{"nested 100", nested(100), ""},
		{"nested 10000", nested(10000), "blocks nested too deeply (more than 100 levels)"},
		{"brackets 10000", "flow a\nx = " + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000) + "\n", "expression nested too deeply (more than 100 brackets)"},
		{"unclosed 10000", "flow a\nx = " + strings.Repeat("(", 10000) + "\n", "is never closed"},
		{"many unclosed lines", "flow a\n" + strings.Repeat("x = f(\n", 5000), "is never closed"},
		{"unterminated string", "flow a\nlog \"abc", "string not terminated"},
		{"unterminated interpolation", "flow a\nlog \"{{ abc\"", "{{ is never closed"},
		{"tabs", "flow a\n\tif x {\n\t\tlog\t1\n\t}\n", ""},
		{"crlf", "flow a\r\nif x {\r\n    log \"a\" # c\r\n}\r\n", ""},
		{"bom", "\xef\xbb\xbfflow a\nlog 1\n", ""},
		{"chinese", "flow a \"查询电力数据\"\n# 注释\nlog \"区域 {{ region }} 的数据\" # 尾注\n", ""},
		{"nul bytes", "flow a\n\x00\x00\x00\n", "invalid character U+0000"},
		{"only braces", strings.Repeat("}", 5000), "error"},
		{"many errors", "flow a\n" + strings.Repeat("log )\n", 1000), "too many errors"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			f, ds := parse.Flow("r.flow", []byte(tc.src))
			// Only a hang: a quadratic parse of 10 MB would take hours, and a
			// loaded machine under -race takes over a minute for the linear one.
			if d := time.Since(start); d > 5*time.Minute {
				t.Errorf("took %v", d)
			}
			if f == nil {
				t.Fatal("nil File")
			}
			for _, d := range ds {
				if strings.Contains(d.Summary, "internal error") {
					t.Fatalf("internal error: %s", d.OneLine())
				}
			}
			if tc.want == "" {
				if len(ds) > 0 {
					t.Fatalf("unexpected diagnostics: %s", ds.Error())
				}
				if err := rangeErrors(tc.src, f); err != "" {
					t.Error(err)
				}
				return
			}
			all := ""
			for _, d := range ds {
				all += d.OneLine() + "\n"
			}
			if !strings.Contains(all, tc.want) {
				t.Fatalf("want a diagnostic containing %q, got:\n%.2000s", tc.want, all)
			}
		})
	}
}

// TestCRLFPositions checks columns on CRLF and BOM files.
func TestCRLFPositions(t *testing.T) {
	f, ds := parse.Flow("c.flow", []byte("\xef\xbb\xbfflow a\r\nlog x # c\r\n"))
	if len(ds) > 0 {
		t.Fatal(ds)
	}
	log := f.Body[0].(*ast.LogStmt)
	if got := fmt.Sprint(log.Range.Start, "-", log.Range.End); got != "2:1-2:6" {
		t.Errorf("log range %s", got)
	}
	if f.NameRange.Start.Col != 6 || f.NameRange.Start.Offset != 8 {
		t.Errorf("name after BOM at %v offset %d", f.NameRange.Start, f.NameRange.Start.Offset)
	}
	if c := f.Comments[0]; c.Text != "# c" || !c.Trailing {
		t.Errorf("comment %+v", c)
	}
}

// TestTemplate checks the exported interpolation splitter used by the YAML
// front end.
func TestTemplate(t *testing.T) {
	e, d := parse.Template("y.yaml", "Region {{ region }}!", ast.Pos{Line: 3, Col: 9, Offset: 40}, false)
	if d != nil {
		t.Fatal(d)
	}
	s := e.(*ast.StringLit)
	if len(s.Parts) != 3 || s.Parts[0].Text != "Region " || s.Parts[1].Expr.Source != " region " || s.Parts[2].Text != "!" {
		t.Fatalf("parts %+v", s.Parts)
	}
	if r := s.Parts[1].Expr.Range; r.Start.Col != 18 || r.End.Col != 26 || r.Start.Offset != 49 {
		t.Errorf("part range %+v", r)
	}
	e, _ = parse.Template("y.yaml", "{{ n }}", ast.Pos{Line: 1, Col: 1}, false)
	if src, ok := e.(*ast.ExprSrc); !ok || src.Source != " n " {
		t.Errorf("exactly {{ E }} should be E, got %#v", e)
	}
	e, _ = parse.Template("y.yaml", `a\n{{ '{{' }}`, ast.Pos{Line: 1, Col: 1}, false)
	if v, ok := e.(*ast.StringLit).Value(); !ok || v != `a\n{{` {
		t.Errorf("unquoted template: %q", v)
	}
	if _, d := parse.Template("y.yaml", "a {{ b", ast.Pos{Line: 1, Col: 1}, false); d == nil || d.Subject.Start.Col != 3 {
		t.Errorf("unterminated {{: %v", d)
	}
}

// TestExpression checks the exported normalisation of full expressions.
func TestExpression(t *testing.T) {
	r := ast.Range{File: "y.yaml", Start: ast.Pos{Line: 2, Col: 5, Offset: 10}, End: ast.Pos{Line: 2, Col: 10, Offset: 15}}
	for src, want := range map[string]string{
		"len(rows)": "Expr",
		"42":        "Number",
		"-1":        "Number",
		"true":      "Bool",
		"nil":       "Null",
		`"x"`:       "String",
		`"{{ a }}"`: "Expr",
		"a b":       "Expr",
	} {
		e, d := parse.Expression(src, r)
		if d != nil {
			t.Errorf("%s: %v", src, d)
		}
		dump := ast.Dump(&ast.File{Body: []ast.Stmt{&ast.LogStmt{Value: e}}})
		if !strings.Contains(dump, "  "+want+" ") {
			t.Errorf("%s: got %s", src, dump)
		}
	}
	if e, _ := parse.Expression("7", r); e.Rng().Start != r.Start {
		t.Errorf("literal range %v, want start %v", e.Rng(), r.Start)
	}
}

func TestIsNamePath(t *testing.T) {
	for src, want := range map[string]bool{
		"row":                 true,
		"row.kWh":             true,
		"rows[0]":             true,
		"rows[i + 1].x":       true,
		`page.exists("#x")`:   true,
		"f()":                 true,
		"a + b":               false,
		"a .b":                false,
		"a[0] [1]":            false,
		"true":                false,
		"1":                   false,
		`"s"`:                 false,
		"a.":                  false,
		"a[":                  false,
		" row.kWh ":           true,
		"filter(rows, # > 1)": true,
	} {
		if got := parse.IsNamePath(src); got != want {
			t.Errorf("IsNamePath(%q) = %v", src, got)
		}
	}
	_ = bytes.MinRead
}
