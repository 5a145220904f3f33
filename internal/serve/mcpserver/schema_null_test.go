package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/rpa-dev/rpa/lang"
)

// TestValidateNull: null for a typed param says "got null" in plain words.
func TestValidateNull(t *testing.T) {
	f, ds := lang.LoadFile("testdata/schema/all_types.flow")
	if f == nil {
		t.Fatal(ds)
	}
	s, err := InputSchema(f.File)
	if err != nil {
		t.Fatal(err)
	}
	for field, want := range map[string]string{
		"i": `invalid argument "i": want an integer, got null`,
		"s": `invalid argument "s": want a string, got null`,
		"l": `invalid argument "l": want a list, got null`,
	} {
		args := map[string]any{"s": "a", "token": "t"}
		raw, _ := json.Marshal(map[string]any{field: nil})
		var n map[string]any
		json.Unmarshal(raw, &n)
		args[field] = n[field]
		if err := s.Validate(args); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", field, err, want)
		}
	}
}
