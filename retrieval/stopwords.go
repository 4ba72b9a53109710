package retrieval

// EnglishStopwords is Weaviate's "en" stopword preset, which the chunk
// collection uses (Weaviate docs, "Inverted index: stopwords"): Weaviate
// drops these words from BM25 queries, so a probe for one finds nothing even
// where it occurs, and coverage does not weigh them. A test of
// retrieval/weaviate compares this list with the preset in Weaviate's own
// package, so it cannot drift from the server's; it is copied here so that
// this package, and the chunkers that use its vocabulary, do not compile
// Weaviate's server packages. Read-only.
var EnglishStopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "but": true, "by": true,
	"for": true, "if": true, "in": true, "into": true, "is": true, "it": true, "no": true, "not": true, "of": true,
	"on": true, "or": true, "such": true, "that": true, "the": true, "their": true, "then": true, "there": true,
	"these": true, "they": true, "this": true, "to": true, "was": true, "will": true, "with": true,
}
