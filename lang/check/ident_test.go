package check

import "testing"

// TestIsIdent: the language's identifiers, ASCII letters, digits and _,
// not starting with a digit.
func TestIsIdent(t *testing.T) {
	for name, want := range map[string]bool{
		"a": true, "_": true, "user_2": true, "A9": true,
		"": false, "1abc": false, "a-b": false, "bad name": false, "é": false, "a.b": false,
	} {
		if got := IsIdent(name); got != want {
			t.Errorf("IsIdent(%q) = %v, want %v", name, got, want)
		}
	}
}
