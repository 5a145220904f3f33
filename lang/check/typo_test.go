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
