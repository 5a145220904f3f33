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
