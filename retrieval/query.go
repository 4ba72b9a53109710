package retrieval

import "slices"

// questionWords are words of how people ask, not of what they ask about; they
// carry no evidence that a chunk is relevant.
var questionWords = map[string]bool{
	"a": true, "an": true, "the": true, "is": true, "are": true, "was": true, "be": true, "it": true,
	"where": true, "what": true, "which": true, "how": true, "why": true, "who": true, "when": true,
	"do": true, "does": true, "did": true, "can": true, "i": true, "we": true, "you": true, "our": true,
	"of": true, "to": true, "in": true, "for": true, "on": true, "and": true, "or": true, "with": true,
	"that": true, "this": true, "there": true, "s": true, "me": true, "show": true,
	"defined": true, "define": true, "implemented": true, "implement": true, "handled": true,
	"located": true, "code": true, "happens": true, "done": true,
}

// QueryTerms returns the content terms of a question: its word pieces and
// joined identifiers (see Terms) without question words, each once.
func QueryTerms(q string) []string {
	return dedupe(slices.DeleteFunc(Terms(q), func(t string) bool { return questionWords[t] }))
}

// chunkTerms is the set of the terms (see Terms) of c's symbol, path and
// content: what the rerank's coverage and the coverage decision look for.
func chunkTerms(c Chunk) map[string]bool {
	have := map[string]bool{}
	for _, t := range Terms(c.Symbol + " " + c.Path + " " + c.Content) {
		have[t] = true
	}
	return have
}
