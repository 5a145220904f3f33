package ui

import (
	"regexp"
	"strings"
	"testing"
)

// tagRE matches an HTML tag.
var tagRE = regexp.MustCompile(`<[^>]+>`)

// TestRunErrorText: a run's error line leaves out the parts the run store lacks (the tester saw
// "fail at line 21 ():" for a `fail` with no action).
func TestRunErrorText(t *testing.T) {
	for _, c := range []struct {
		lg, kind    string
		line        int
		action, msg string
		want        string
	}{
		{"en", "not_found", 7, "click", "no element matches", "not_found at line 7 (click): no element matches"},
		{"en", "fail", 21, "", "the account is locked", "fail at line 21: the account is locked"},
		{"en", "fail", 0, "", "boom", "fail: boom"},
		{"en", "", 0, "", "boom", "boom"},
		{"en", "timeout", 3, "wait", "", "timeout at line 3 (wait)"},
		{"en", "", 0, "", "", ""},
		{"zh", "fail", 21, "", "账户已锁定", "流程报错，第 21 行：账户已锁定"},
		{"zh", "not_found", 7, "click", "x", "找不到元素，第 7 行（click）：x"},
		{"zh", "odd_kind", 0, "", "x", "odd_kind：x"},
	} {
		if got := tagRE.ReplaceAllString(string(runErrorText(c.lg, c.kind, c.line, c.action, c.msg)), ""); got != c.want {
			t.Errorf("%+v: %q", c, got)
		}
	}
	// The engine's message in Chinese where the catalog has it (then not marked).
	if got := string(runErrorText("zh", "not_found", 7, "click", `no element matches "#go"`)); !strings.Contains(got, `：没有元素匹配 &#34;#go&#34;`) || strings.Count(got, "translate") != 1 {
		t.Errorf("a known engine message: %s", got)
	}
	// The engine's message is data: escaped, and marked translate="no".
	if got := runErrorText("zh", "fail", 0, "", "<b>"); !strings.Contains(string(got), `<span translate="no">&lt;b&gt;</span>`) {
		t.Errorf("message: %s", got)
	}
}
