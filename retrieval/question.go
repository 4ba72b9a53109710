package retrieval

// question is one request's analysis, made once by Asker and read by the
// search, the lookups, the rerank and the coverage decision: what the
// question names (Analysis), its terms, and its BM25 text. It also keeps
// each hit's terms once computed, since the rerank, the weighted coverage
// and the missing-name check all read them. It is used by one goroutine at
// a time, except that weighTerms may read content concurrently.
type question struct {
	Analysis
	raw     string          // as asked
	text    string          // the BM25 side of the query (SearchQuery)
	terms   map[string]bool // every term of the question (Terms)
	content []string        // its content terms (QueryTerms), in order

	hitTerms map[string]map[string]bool // Hit.ID -> the terms of its chunk
}

func newQuestion(q string) *question {
	return &question{Analysis: Analyze(q), raw: q, text: SearchQuery(q), terms: setOf(Terms(q)),
		content: QueryTerms(q), hitTerms: map[string]map[string]bool{}}
}

// chunkTerms returns the terms of h's chunk (see chunkTerms), computed once
// per hit id; a hit without an id is not cached.
func (q *question) chunkTerms(h Hit) map[string]bool {
	if h.ID == "" {
		return chunkTerms(h.Chunk)
	}
	if t, ok := q.hitTerms[h.ID]; ok {
		return t
	}
	t := chunkTerms(h.Chunk)
	q.hitTerms[h.ID] = t
	return t
}

// focus is what FocusSnippet looks for in the question's hits.
func (q *question) focus() FocusTerms { return focusTerms(q.Analysis, q.content) }
