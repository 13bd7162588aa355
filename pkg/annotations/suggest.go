package annotations

import "strings"

// Did-you-mean for unknown annotations and ConfigMap keys: the known names
// closest by edit distance, only when they are close.

// maxSuggestions is how many names a did-you-mean offers at most.
const maxSuggestions = 2

// suggestionDistance is the largest edit distance at which a known name is
// offered for name: 1 for short names, 2 from 8 bytes on, none below 4
// bytes (every short name is close to some other).
func suggestionDistance(name string) int {
	switch {
	case len(name) >= 8:
		return 2
	case len(name) >= 4:
		return 1
	}
	return 0
}

// suggest returns at most maxSuggestions names of known closest to name by
// edit distance (ties in the order of known), or none when none is within
// suggestionDistance.
func suggest(name string, known []string) []string {
	limit := suggestionDistance(name)
	if limit == 0 {
		return nil
	}
	lname := strings.ToLower(name)
	type cand struct {
		name string
		d    int
	}
	var best []cand
	for _, k := range known {
		d := editDistance(lname, k, limit)
		if d > limit {
			continue
		}
		i := len(best)
		for i > 0 && best[i-1].d > d {
			i--
		}
		if i >= maxSuggestions {
			continue
		}
		best = append(best, cand{})
		copy(best[i+1:], best[i:])
		best[i] = cand{k, d}
		if len(best) > maxSuggestions {
			best = best[:maxSuggestions]
		}
	}
	var out []string
	for _, c := range best {
		out = append(out, c.name)
	}
	return out
}

// didYouMean renders the suggestions of name among known as
// " (did you mean a or b?)", or " (check the spelling)" when there is none.
func didYouMean(name string, known []string) string {
	s := suggest(name, known)
	if len(s) == 0 {
		return " (check the spelling)"
	}
	return " (did you mean " + strings.Join(s, " or ") + "?)"
}

// editDistance is the Levenshtein distance of a and b (bytes), or any
// value above limit once it is sure to exceed it.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
