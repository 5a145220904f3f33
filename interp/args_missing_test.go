package interp

import (
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

// TestArgsMissingAndNull: every missing required param is named at once,
// and null for a required int says "got null" rather than "missing".
func TestArgsMissingAndNull(t *testing.T) {
	f, ds := lang.Load("p.flow", []byte("flow p\nparam a: string\nparam b: string\nparam n: int\nparam d: int = 3\nlog a + b\nlog n + d\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "required params are missing: a (string), b (string), n (int)"},
		{map[string]any{"a": "x"}, "required params are missing: b (string), n (int)"},
		{map[string]any{"a": "x", "b": "y"}, `argument "n": required int param is missing`},
		{map[string]any{"a": "x", "b": "y", "n": nil}, `argument "n": want an integer, got null`},
		{map[string]any{"a": nil, "b": "y", "n": 1}, `argument "a": want a string, got null`},
	} {
		_, err := CheckArgs(f, c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if got, err := CheckArgs(f, map[string]any{"a": "x", "b": "y", "n": 1, "d": nil}); err != nil || got["d"] != 3 {
		t.Errorf("null for a param with a default takes the default: %v %v", got, err)
	}
}
