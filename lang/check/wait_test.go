package check

import (
	"strings"
	"testing"
)

// TestWaitBeyondTimeout: a wait longer than the timeout in effect (the
// action's, else the defaults', else 30s) is a warning at the value that
// makes it so; defaults are warned about once, at the defaults.
func TestWaitBeyondTimeout(t *testing.T) {
	cases := []struct {
		src  string
		want []string // one-line diagnostics (prefix match); nil: none
	}{
		{"flow w\ndefaults wait: 8s timeout: 3s retries: 0\nclick \"#a\"\n",
			[]string{"t.flow:2:16: warning: defaults wait 8s is longer than the timeout 3s"}},
		{"flow w\ndefaults wait: 45s\nclick \"#a\"\n",
			[]string{"t.flow:2:16: warning: defaults wait 45s is longer than the timeout 30s"}},
		{"flow w\nclick \"#a\" wait: 2s timeout: 1s\n",
			[]string{"t.flow:2:18: warning: wait 2s is longer than the timeout 1s"}},
		{"flow w\ndefaults wait: 8s\nclick \"#a\" timeout: 5s\n",
			[]string{"t.flow:3:21: warning: wait 8s is longer than the timeout 5s"}},
		{"flow w\ndefaults timeout: 3s\nclick \"#a\" wait: 4s\n",
			[]string{"t.flow:2:19: warning: the built-in wait 10s is longer than the timeout 3s",
				"t.flow:3:18: warning: wait 4s is longer than the timeout 3s"}},
		{"flow w\ndefaults wait: 3s timeout: 3s\nclick \"#a\" wait: 2s\n", nil},
		{"flow w\nclick \"#a\" wait: 20s\n", nil},
		// sleep is not a page action: its wait does not race a selector
		{"flow w\nsleep 1s timeout: 1ms wait: 1s\n", nil},
	}
	for _, c := range cases {
		got := oneLines(checkSrc(t, c.src, nil))
		if len(got) != len(c.want) {
			t.Errorf("%q: got %q, want %q", c.src, got, c.want)
			continue
		}
		for i := range got {
			if !strings.HasPrefix(got[i], c.want[i]) {
				t.Errorf("%q: got %q, want prefix %q", c.src, got[i], c.want[i])
			}
		}
	}
}
