package diag

import "fmt"

// Count is how many of ds have severity s.
func (ds Diagnostics) Count(s Severity) int {
	n := 0
	for _, d := range ds {
		if d.Severity == s {
			n++
		}
	}
	return n
}

// Plural is "N word" with an s after word unless N is 1 ("1 error", "2
// warnings"): the counts of a summary line.
func Plural(n int, word string) string {
	if n != 1 {
		word += "s"
	}
	return fmt.Sprintf("%d %s", n, word)
}
