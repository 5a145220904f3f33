package diag

import "sort"

// Suggest returns the candidate closest to name by Levenshtein distance
// (over runes) when that distance is at most 2 and below the length of
// name, else "". Ties go to the first candidate in sorted order; name
// itself is never suggested. It feeds the `did you mean "x"?` details of
// unknown actions, options, params, names and commands (HCL's
// nameSuggestion uses the same bound).
func Suggest(name string, candidates []string) string {
	return SuggestWithin(name, candidates, 2)
}

// SuggestWithin is Suggest with a maximum distance maxD.
func SuggestWithin(name string, candidates []string, maxD int) string {
	best, bestD := "", maxD+1
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	n := len([]rune(name))
	for _, cand := range sorted {
		if cand == name {
			continue
		}
		if d := Distance(name, cand); d < bestD && d < n {
			best, bestD = cand, d
		}
	}
	return best
}

// Distance is the Levenshtein edit distance between a and b, counted in
// runes (insertions, deletions and substitutions cost 1 each).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
