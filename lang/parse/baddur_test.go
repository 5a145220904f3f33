package parse

import (
	"strings"
	"testing"
)

// TestBadDurationMessages: a negative duration or a bad unit in wait:,
// every: or timeout: is said as such at the value, not as an unexpected
// token elsewhere on the line.
func TestBadDurationMessages(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"flow m\ndefaults wait: -1s\n", `t.flow:2:16: error: invalid duration "-1s" for wait: a duration cannot be negative`},
		{"flow m\ndefaults wait: 1s timeout: -1s\n", `t.flow:2:28: error: invalid duration "-1s" for timeout`},
		{"flow m\nclick \"#a\" wait: 1x\n", `t.flow:2:18: error: invalid duration "1x" for wait: the unit must be ms, s, m or h`},
	} {
		_, ds := Flow("t.flow", []byte(c.src))
		if len(ds) != 1 || !strings.HasPrefix(ds[0].OneLine(), c.want) {
			t.Errorf("%q: got %v, want %q", c.src, ds, c.want)
		}
	}
}
