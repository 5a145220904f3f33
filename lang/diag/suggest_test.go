package diag

import "testing"

func TestSuggest(t *testing.T) {
	names := []string{"click", "check", "close", "fill"}
	for _, c := range []struct{ in, want string }{{"clik", "click"}, {"chek", "check"}, {"xyzzy", ""}, {"fil", "fill"}, {"c", ""}} {
		if got := Suggest(c.in, names); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := SuggestWithin("fil", names, 0); got != "" {
		t.Errorf("SuggestWithin 0 = %q", got)
	}
	if d := Distance("héllo", "hello"); d != 1 {
		t.Errorf("Distance over runes = %d", d)
	}
}
