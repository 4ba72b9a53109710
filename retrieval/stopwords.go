package retrieval

import "strings"

// EnglishStopwords is Weaviate's "en" stopword preset, which the chunk
// collection uses (Weaviate docs, "Inverted index: stopwords"): Weaviate
// drops these words from BM25 queries, so a probe for one finds nothing even
// where it occurs, and coverage does not weigh them. A test of
// retrieval/weaviate compares this list with the preset in Weaviate's own
// package, so it cannot drift from the server's; it is copied here so that
// this package, and the chunkers that use its vocabulary, do not compile
// Weaviate's server packages. Read-only.
var EnglishStopwords = wordSet(`
a an and are as at be but by for if in into is it no not of on or such that the their then there
these they this to was will with`)

// wordSet is the set of the space-separated words of list.
func wordSet(list string) map[string]bool { return setOf(strings.Fields(list)) }

// setOf is the set of the elements of s.
func setOf[T comparable](s []T) map[T]bool {
	m := make(map[T]bool, len(s))
	for _, x := range s {
		m[x] = true
	}
	return m
}
