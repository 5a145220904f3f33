package check_test

import (
	"strings"
	"testing"

	"github.com/rpa-dev/rpa/lang"
	"github.com/rpa-dev/rpa/lang/check"
)

// TestNestingLimitInsideExpressions: a flow nesting an expression a
// million levels deep (a 2 MB file), inside `{{ }}` or a condition, is an
// error with its position, never a stack overflow that kills the process
// reading it (rpa check, the console's /api/check, rpa serve).
func TestNestingLimitInsideExpressions(t *testing.T) {
	// A million levels overflow expr-lang's parser; the other forms are
	// checked just past the limit (what a million would do to the stack
	// is the same recursion).
	const n, few = 1_000_000, check.MaxExprDepth + 1
	for _, c := range []struct{ name, src string }{
		{"parentheses in {{ }}", `x = "{{ ` + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + ` }}"`},
		{"negations in a condition", "if " + strings.Repeat("!", n) + "true {\n}"},
		{"brackets in {{ }}", `x = "{{ ` + strings.Repeat("[", few) + "1" + strings.Repeat("]", few) + ` }}"`},
		{"{{ inside {{", `x = "` + strings.Repeat("{{ ", few) + "1" + strings.Repeat(" }}", few) + `"`},
		{"unary minus in {{ }}", `x = "{{ ` + strings.Repeat("-", few) + `1 }}"`},
		{"ternaries", `x = "{{ ` + strings.Repeat("true ? 1 : ", few) + `1 }}"`},
		{"right-associative powers", `x = "{{ ` + strings.Repeat("2 ** ", few) + `1 }}"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := "flow deep \"nests\"\n\n" + c.src + "\n"
			f, ds := lang.Load("deep.flow", []byte(src))
			if f != nil || !ds.HasErrors() {
				t.Fatalf("loaded: %v", ds)
			}
			if msg := ds.Error(); !strings.Contains(msg, "nested too deeply") || !strings.Contains(msg, "deep.flow:3:") {
				t.Fatalf("diagnostics: %.300s", msg)
			}
		})
	}
	// Real flows nest a few levels: untouched.
	ok := "flow fine \"nests a little\"\n\nparam a: bool = true\nx = \"{{ (a ? -1 : !(a) ? 2 ** 3 : [[1], [(2)]][0][0]) }}\"\nlog x\n"
	if _, ds := lang.Load("fine.flow", []byte(ok)); ds.HasErrors() {
		t.Fatalf("a shallow expression: %v", ds)
	}
}
