package ast

import "fmt"

// MaxFlowName is the longest flow NAME in bytes (characters: a NAME is
// ASCII): its tool, workflow_NAME, then has MCP's limit of 128 characters
// for a tool name (2025-11-25, "Tool names"), and NAME.flow fits every file
// system's 255.
const MaxFlowName = 128 - len("workflow_")

// IsFlowName reports whether s is a valid flow NAME (LANGUAGE.md: lower-case
// ASCII letters, digits and _, starting with a letter; `[a-z][a-z0-9_]*`, at
// most MaxFlowName long). The tool of flow NAME is workflow_NAME.
func IsFlowName(s string) bool {
	if s == "" || len(s) > MaxFlowName || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// FlowNameTooLong is the reason a NAME longer than MaxFlowName is refused,
// "" for a shorter one: its length, never the name (it may be megabytes).
func FlowNameTooLong(s string) string {
	if len(s) <= MaxFlowName {
		return ""
	}
	return fmt.Sprintf("too long (%d characters; at most %d, so that its tool name workflow_NAME has at most MCP's 128)", len(s), MaxFlowName)
}

// Keyword is the word a statement starts with (LANGUAGE.md): "if", "for", "while", "break",
// "continue", "try", "retry", "frame", "return", "fail", "assert", "log"; an action statement's
// action name ("click", "fill", ...); "set" for an assignment (YAML's word for it); "" for a
// statement of no kind above.
func Keyword(s Stmt) string {
	switch x := s.(type) {
	case *ActionStmt:
		return x.Action
	case *AssignStmt:
		return "set"
	case *IfStmt:
		return "if"
	case *ForStmt:
		return "for"
	case *WhileStmt:
		return "while"
	case *BreakStmt:
		return "break"
	case *ContinueStmt:
		return "continue"
	case *TryStmt:
		return "try"
	case *RetryStmt:
		return "retry"
	case *FrameStmt:
		return "frame"
	case *ReturnStmt:
		return "return"
	case *FailStmt:
		return "fail"
	case *AssertStmt:
		return "assert"
	case *LogStmt:
		return "log"
	}
	return ""
}
