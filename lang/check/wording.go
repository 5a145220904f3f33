package check

import (
	"regexp"
	"strings"
)

// listPlus matches expr-lang's wording of `+` with a list on either side, at check time
// ("invalid operation: + (mismatched types []interface {} and ...)") and at run time
// ("invalid operation: []interface {} + []interface {}").
var listPlus = regexp.MustCompile(`^invalid operation: (?:\+ \(mismatched types (\S+(?: \{\})?) and (\S+(?: \{\})?)\)|(\S+(?: \{\})?) \+ (\S+(?: \{\})?))`)

// ListPlusHint rewrites expr-lang's error for `+` on a list into the flow's terms: lists are
// joined with concat(), not +. ok is false for any other message.
func ListPlusHint(msg string) (hint string, ok bool) {
	m := listPlus.FindStringSubmatch(msg)
	if m == nil {
		return "", false
	}
	for _, t := range m[1:] {
		if strings.HasPrefix(t, "[]") {
			return "+ does not join lists: use concat(a, b) (or concat(a, [x]) to add one element)", true
		}
	}
	return "", false
}
