package check

import (
	"strings"
	"testing"
)

// TestAssignedActionTypo: `NAME = WORD ARG` with WORD close to an action
// name says "unknown action" with a suggestion, not expr's "unexpected
// token"; real expressions are left alone.
func TestAssignedActionTypo(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"flow t\nx = txt \"#a\"\nlog x\n", `t.flow:2:5: error: unknown action "txt"; did you mean "text"?`},
		{"flow t\nx = clik \"#a\" wait: 2s\nlog x\n", `t.flow:2:5: error: unknown action "clik"; did you mean "click"?`},
		{"flow t\nx = not true\nlog x\n", ""},
		{"flow t\nn = 2\nx = n + 1\nlog x\n", ""},
	} {
		got := strings.Join(oneLines(checkSrc(t, c.src, nil)), "\n")
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}

// TestOpenLiteralURL: a literal open URL must be absolute (http(s) with a
// host, file:, about:, data:); an interpolated one is left to run time.
func TestOpenLiteralURL(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"flow t\nopen \"notaurl/login\"\n", `t.flow:2:6: error: open: "notaurl/login" is not an absolute URL`},
		{"flow t\nopen \"http:///x\"\n", `t.flow:2:6: error: open: "http:///x" has no host`},
		{"flow t\nopen \"ftp://h/x\"\n", `t.flow:2:6: error: open: "ftp://h/x": scheme "ftp" is not one open loads`},
		{"flow t\nopen \"https://example.test/login\"\n", ""},
		{"flow t\nopen \"about:blank\"\n", ""},
		{"flow t\nopen \"file:///tmp/x.html\"\n", ""},
		{"flow t\nparam a: string\nopen \"x/{{ a }}\"\n", ""},
	} {
		got := strings.Join(oneLines(checkSrc(t, c.src, nil)), "\n")
		if c.want == "" && got != "" || !strings.HasPrefix(got, c.want) {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
		}
	}
}
