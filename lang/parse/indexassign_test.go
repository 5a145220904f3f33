package parse

import (
	"strings"
	"testing"
)

// TestIndexAssignment: assigning into a list or map says they are values
// and how to build a new one, instead of "unexpected [".
func TestIndexAssignment(t *testing.T) {
	for _, line := range []string{`y["b"] = 2`, `y.b = 2`, `rows[0].kWh = 1`, `y[k + "x"] = [1, 2]`} {
		_, ds := Flow("t.flow", []byte("flow t\ny = {\"a\": 1}\n"+line+"\nlog y\n"))
		got := ds.Error()
		if !strings.Contains(got, "t.flow:3:1: error: cannot assign to a part of ") || !strings.Contains(got, "lists and maps are values") || !strings.Contains(got, "concat(") {
			t.Errorf("%s:\n%s", line, got)
		}
	}
	// A comparison is not an assignment.
	if _, ds := Flow("t.flow", []byte("flow t\ny = {\"a\": 1}\nif y[\"a\"] == 1 {\n  log y\n}\n")); ds.HasErrors() {
		t.Errorf("comparison: %v", ds)
	}
}
