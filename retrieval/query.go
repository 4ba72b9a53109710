package retrieval

import "slices"

// questionWords are words of how people ask, not of what they ask about; they
// carry no evidence that a chunk is relevant.
var questionWords = wordSet(`
a an the is are was be it where what which how why who when do does did can i we you our of to in
for on and or with that this there s me show defined define implemented implement handled located
code happens done`)

// QueryTerms returns the content terms of a question: its word pieces and
// joined identifiers (see Terms) without question words, each once.
func QueryTerms(q string) []string {
	return dedupe(slices.DeleteFunc(Terms(q), func(t string) bool { return questionWords[t] }))
}

// chunkTerms is the set of the terms (see Terms) of c's symbol, path and
// content: what the rerank's coverage and the coverage decision look for.
func chunkTerms(c Chunk) map[string]bool {
	return setOf(Terms(c.Symbol + " " + c.Path + " " + c.Content))
}
