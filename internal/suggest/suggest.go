// Package suggest finds the known word closest to a mistyped one, for "did
// you mean" hints on unknown commands and config keys (as git and cobra do:
// cobra's `SuggestionsMinimumDistance` defaults to 2 edits).
package suggest

import "strings"

// Closest returns the candidate with the fewest edits (see distance) from
// word, and whether it is close enough to suggest: at most 2 edits, and
// fewer than half of word's length, so "xyz" suggests nothing.
// Ties go to the earlier candidate.
func Closest(word string, candidates []string) (string, bool) {
	best, bestD := "", -1
	for _, c := range candidates {
		if d := distance(word, c); bestD < 0 || d < bestD {
			best, bestD = c, d
		}
	}
	if bestD < 0 || bestD > 2 || 2*bestD >= len([]rune(word)) {
		return "", false
	}
	return best, true
}

// Name is Closest for names that carry more than what people type (source
// names such as "go.etcd.io/bbolt@v1.4.3"): the closest candidate when one
// is close, else the only candidate containing word (3 or more runes,
// ignoring case), which is too many edits away for Closest.
func Name(word string, candidates []string) (string, bool) {
	if near, ok := Closest(word, candidates); ok {
		return near, true
	}
	if len([]rune(word)) < 3 {
		return "", false
	}
	var found []string
	for _, c := range candidates {
		if strings.Contains(strings.ToLower(c), strings.ToLower(word)) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// distance is the optimal string alignment distance of a and b in runes:
// Levenshtein's insertions, deletions and substitutions plus the swap of two
// adjacent runes, the commonest typo ("aks" for "ask")
// (https://en.wikipedia.org/wiki/Damerau%E2%80%93Levenshtein_distance).
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}
