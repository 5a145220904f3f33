package ast

import "testing"

func TestIsFlowName(t *testing.T) {
	for s, want := range map[string]bool{"a": true, "query_power_data": true, "a1_b": true, "": false, "A": false, "1a": false, "_a": false, "a-b": false, "aé": false, "a b": false} {
		if got := IsFlowName(s); got != want {
			t.Errorf("IsFlowName(%q) = %v", s, got)
		}
	}
}
