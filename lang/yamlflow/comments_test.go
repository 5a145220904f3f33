package yamlflow

import "testing"

func TestCountComments(t *testing.T) {
	src := "# head\nflow: a # line\nsteps:\n  # inside\n  - log: 1\n# foot\n"
	if n := CountComments([]byte(src)); n != 4 {
		t.Errorf("CountComments = %d, want 4", n)
	}
	if n := CountComments([]byte("a: [")); n != 0 {
		t.Errorf("not YAML: %d", n)
	}
}
