package ast

import (
	"strings"
	"testing"
)

func TestIsFlowName(t *testing.T) {
	long := "a" + strings.Repeat("b", MaxFlowName-1) // workflow_NAME: 128 characters
	for s, want := range map[string]bool{long: true, long + "c": false, "a": true, "query_power_data": true, "a1_b": true, "": false, "A": false, "1a": false, "_a": false, "a-b": false, "aé": false, "a b": false} {
		if got := IsFlowName(s); got != want {
			t.Errorf("IsFlowName(%q) = %v", s, got)
		}
		if got := FlowNameTooLong(s) != ""; got != (len(s) > MaxFlowName) {
			t.Errorf("FlowNameTooLong(%d characters) = %v", len(s), got)
		}
	}
	if got := FlowNameTooLong(long + "c"); got != "too long (120 characters; at most 119, so that its tool name workflow_NAME has at most MCP's 128)" {
		t.Errorf("FlowNameTooLong: %s", got)
	}
	if len("workflow_"+long) != 128 {
		t.Errorf("the longest tool name has %d characters", len("workflow_"+long))
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
