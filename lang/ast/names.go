package ast

// IsFlowName reports whether s is a valid flow NAME (LANGUAGE.md: lower-case
// ASCII letters, digits and _, starting with a letter; `[a-z][a-z0-9_]*`).
// The tool of flow NAME is workflow_NAME.
func IsFlowName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
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
