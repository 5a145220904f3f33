package mcpserver

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/rpa-dev/rpa/lang"
)

// TestFlowCallNull: null for a required param says "got null" in plain
// words; null for a param with a default takes the default (as a left-out
// argument does).
func TestFlowCallNull(t *testing.T) {
	f, ds := lang.LoadFile("testdata/schema/all_types.flow")
	if f == nil {
		t.Fatal(ds)
	}
	call := func(field string) (*flowCall, error) {
		args := map[string]any{"s": "a", "token": "t"}
		raw, _ := json.Marshal(map[string]any{field: nil})
		var n map[string]any
		json.Unmarshal(raw, &n)
		args[field] = n[field]
		return (&Server{}).takeFlowCall(nil, newFlowEntry("all_types.flow", f), args)
	}
	for field, want := range map[string]string{
		"s":     `invalid argument "s": want a string, got null`,
		"token": `invalid argument "token": want a string, got null`,
	} {
		_, err := call(field)
		var je *jsonrpc.Error
		if !errors.As(err, &je) || je.Message != want {
			t.Errorf("%s: %v, want %q", field, err, want)
		}
	}
	for field, want := range map[string]any{"i": 3, "l": []any{"a", 1}} {
		fc, err := call(field)
		if err != nil {
			t.Fatalf("%s: %v", field, err)
		}
		if got, _ := fc.args.Value(field); lang.Stringify(got) != lang.Stringify(want) {
			t.Errorf("%s: null gave %v, want the default %v", field, got, want)
		}
	}
}
