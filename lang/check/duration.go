package check

import (
	"fmt"
	"time"
)

// ParseDuration parses a flow duration literal: one or more groups of
// DIGITS followed by ms, s, m or h, with no space and no fraction ("500ms",
// "10s", "1m30s"). It returns an error naming the literal otherwise,
// including on overflow.
func ParseDuration(s string) (time.Duration, error) {
	if s == "" {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	var total time.Duration
	i := 0
	for i < len(s) {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		var n int64
		for _, ch := range s[i:j] {
			n = n*10 + int64(ch-'0')
			if n > int64(1<<62) {
				return 0, fmt.Errorf("bad duration %q: too large", s)
			}
		}
		var unit time.Duration
		switch {
		case len(s) >= j+2 && s[j:j+2] == "ms":
			unit, j = time.Millisecond, j+2
		case j < len(s) && s[j] == 's':
			unit, j = time.Second, j+1
		case j < len(s) && s[j] == 'm':
			unit, j = time.Minute, j+1
		case j < len(s) && s[j] == 'h':
			unit, j = time.Hour, j+1
		default:
			return 0, fmt.Errorf("bad duration %q", s)
		}
		if n > int64((1<<63-1)/unit) {
			return 0, fmt.Errorf("bad duration %q: too large", s)
		}
		d := time.Duration(n) * unit
		if total > (1<<63-1)-d {
			return 0, fmt.Errorf("bad duration %q: too large", s)
		}
		total += d
		i = j
	}
	return total, nil
}
