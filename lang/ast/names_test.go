package ast

import "testing"

func TestIsFlowName(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "query_power_data": true, "a1_b": true, "": false, "A": false, "1a": false, "_a": false, "a-b": false, "aé": false, "a b": false} {
		if got := IsFlowName(s); got != want {
			t.Errorf("IsFlowName(%q) = %v", s, got)
		}
	}
}

func TestKeyword(t *testing.T) {
	for _, c := range []struct {
		s    Stmt
		want string
	}{
		{&ActionStmt{Action: "click"}, "click"},
		{&AssignStmt{Name: "x"}, "set"},
		{&IfStmt{}, "if"}, {&ForStmt{}, "for"}, {&WhileStmt{}, "while"},
		{&BreakStmt{}, "break"}, {&ContinueStmt{}, "continue"}, {&TryStmt{}, "try"},
		{&RetryStmt{}, "retry"}, {&FrameStmt{}, "frame"}, {&ReturnStmt{}, "return"},
		{&FailStmt{}, "fail"}, {&AssertStmt{}, "assert"}, {&LogStmt{}, "log"},
		{nil, ""},
	} {
		if got := Keyword(c.s); got != c.want {
			t.Errorf("Keyword(%T) = %q, want %q", c.s, got, c.want)
		}
	}
}
