package check

import (
	"strings"
	"testing"

	"github.com/expr-lang/expr"
)

func TestEscapeHelpers(t *testing.T) {
	c := newCompiler()
	for src, want := range map[string]string{
		`urlquery("a b&c=d#e/é")`:       "a+b%26c%3Dd%23e%2F%C3%A9",
		`urlpath("a b/c?d")`:            "a%20b%2Fc%3Fd",
		`urlquery(42)`:                  "42",
		`cssescape("a.b#c[1]")`:         `a\.b\#c\[1\]`,
		`cssescape("1x")`:               `\31 x`,
		`cssescape("-1x")`:              `-\31 x`,
		`cssescape("-")`:                `\-`,
		`cssescape("say \"hi\"")`:       `say\ \"hi\"`,
		`cssescape("é_ok-1")`:           `é_ok-1`,
		`xpathstring("plain")`:          `'plain'`,
		`xpathstring("it's")`:           `"it's"`,
		`xpathstring("say \"it's\"")`:   `concat('say "it', "'", 's"')`,
		`"#" + cssescape("x y") + " a"`: `#x\ y a`,
	} {
		prog, err := c.run(src)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		got, err := expr.Run(prog, map[string]any{})
		if err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", src, got, err, want)
		}
	}
}

// TestRawInterpolationWarnings: a param put raw into an open URL's query or a CSS/XPath selector
// is warned about, with the helper to use; escaped, literal, path and text= uses are not.
func TestRawInterpolationWarnings(t *testing.T) {
	const head = "flow t\nparam p: string\nparam u: string\nlog p + u\n" // lines 1-4
	for _, c := range []struct {
		name, src string
		want      []string
	}{
		{"query", `open "{{ u }}/find?q={{ p }}"`, []string{
			`t.flow:5:24: warning: param "p" goes into the URL's query unescaped; a & or # in it changes what the URL asks for; write {{ urlquery(p) }}`}},
		{"query escaped", `open "{{ u }}/find?q={{ urlquery(p) }}"`, nil},
		{"path is not the query", `open "{{ u }}/item/{{ p }}"`, nil},
		{"fragment", `open "{{ u }}/a?x=1#{{ p }}"`, nil},
		{"css", `click "#row-{{ p }} .btn"`, []string{
			`t.flow:5:15: warning: param "p" goes into a selector unescaped; a quote, bracket or # in it changes what the selector matches; write {{ cssescape(p) }}`}},
		{"css escaped", `click "#row-{{ cssescape(p) }}"`, nil},
		{"xpath", `click "xpath=//td[text()='{{ p }}']"`, []string{
			`t.flow:5:29: warning: param "p" goes into a selector unescaped; a quote in it changes what the selector matches; write {{ xpathstring(p) }} in place of the quoted string`}},
		{"xpath escaped", `click "xpath=//td[text()={{ xpathstring(p) }}]"`, nil},
		{"whole selector from the caller", `click "{{ p }}"`, nil},
		{"text selector", `click "text={{ p }}"`, nil},
		{"local variable", "x = \"a\"\nclick \"#{{ x }}\"", nil},
		{"fallback list", `click ["#a", "#b-{{ p }}"]`, []string{
			`t.flow:5:20: warning: param "p" goes into a selector unescaped; a quote, bracket or # in it changes what the selector matches; write {{ cssescape(p) }}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := oneLines(checkSrc(t, head+c.src+"\n", nil))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestListPlusWording(t *testing.T) {
	const head = "flow t\nparam l: list\nparam s: string\n"
	for src, want := range map[string]string{
		"x = l + [2]\nlog x + s\n":     `t.flow:4:7: error: + does not join lists: use concat(a, b) (or concat(a, [x]) to add one element)`,
		"x = fromJSON(s) + l\nlog x\n": `t.flow:4:17: error: + does not join lists: use concat(a, b) (or concat(a, [x]) to add one element)`,
	} {
		got := oneLines(checkSrc(t, head+src, nil))
		if len(got) != 1 || got[0] != want {
			t.Errorf("%q: %q, want %q", src, got, want)
		}
	}
	if h, ok := ListPlusHint("invalid operation: []interface {} + []interface {}"); !ok || !strings.Contains(h, "concat") {
		t.Errorf("run-time wording: %q %v", h, ok)
	}
	if _, ok := ListPlusHint("invalid operation: + (mismatched types string and int)"); ok {
		t.Error("a string + int error got the list hint")
	}
}
