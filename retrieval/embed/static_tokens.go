package embed

import (
	"github.com/ragbot/ragbot/retrieval"
)

// The tokens of the Static embedder: what it looks up, and what
// `ragbot embeddings train` and refinement train on.

// forEachToken calls f with each identifier-like token of text (a maximal
// run of letters, digits, marks and "_", as Terms reads them).
func forEachToken(text string, f func(string)) {
	start := -1
	for i, r := range text {
		switch {
		case retrieval.IsTokenRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			f(text[start:i])
			start = -1
		}
	}
	if start >= 0 {
		f(text[start:])
	}
}

// StaticTokens returns the training tokens of text, the ones Static looks
// up: the lower-case word pieces of each identifier-like token followed,
// for a multi-piece identifier, by the pieces joined ("maxReconnects" ->
// max, reconnects, maxreconnects), as Terms gives them, without numeric
// noise (see numeric): `ragbot embeddings train` and refinement train on
// these tokens.
func StaticTokens(text string) []string { return AppendStaticTokens(nil, text) }

// AppendStaticTokens is StaticTokens appending to dst.
func AppendStaticTokens(dst []string, text string) []string {
	n := len(dst)
	dst = retrieval.AppendTerms(dst, text, true)
	out := dst[:n]
	for _, t := range dst[n:] {
		if !retrieval.NumericLiteral(t) {
			out = append(out, t)
		}
	}
	return out
}
