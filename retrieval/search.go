package retrieval

import "context"

// A Searcher runs the queries of one question against the index; the
// Weaviate store (retrieval/weaviate) implements it. Implementations must be
// safe for concurrent use.
type Searcher interface {
	// Search runs one hybrid (or BM25-only, Alpha 0) query, filters applied
	// inside the index, and returns up to q.Limit hits, best first.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Vectors returns the stored vectors of the chunks with these object
	// ids; ids not found are absent from the map.
	Vectors(ctx context.Context, ids []string) (map[string][]float32, error)
	// DocFreq counts, within q's filters (sources, branch, groups, paths;
	// text and vector are ignored), the chunks whose search text holds any
	// form of each term (terms[i] lists one term's forms), in the order of
	// terms; total is the number of chunks within the filters.
	DocFreq(ctx context.Context, q Query, terms [][]string) (df []int, total int, err error)
}

// A MultiSearcher is a Searcher that can run several independent queries
// in one round trip (the Weaviate store: aliased GraphQL Gets in one
// request); each query's hits are what Search would return for it.
type MultiSearcher interface {
	Searcher
	SearchAll(ctx context.Context, qs []Query) ([][]Hit, error)
}

// searchAll runs qs, in one round trip when s is a MultiSearcher, and
// returns each query's hits in the order of qs.
func searchAll(ctx context.Context, s Searcher, qs []Query) ([][]Hit, error) {
	if m, ok := s.(MultiSearcher); ok && len(qs) > 1 {
		return m.SearchAll(ctx, qs)
	}
	out := make([][]Hit, len(qs))
	for i, q := range qs {
		hits, err := s.Search(ctx, q)
		if err != nil {
			return nil, err
		}
		out[i] = hits
	}
	return out, nil
}

// Query is one hybrid search.
type Query struct {
	Text   string    // the BM25 side: the question, normalised
	Vector []float32 // the vector side: the embedded question (may be nil when Alpha is 0)
	// Semantic is the question's semantic vector (see Pair), searched beside
	// Vector when the store has semantic vectors; nil when there is none.
	Semantic []float32
	// Alpha weights the vector side: 0 is BM25 only, 1 is vectors only
	// (Weaviate's hybrid alpha; Weaviate docs, 'Hybrid search').
	Alpha   float64
	Limit   int      // hits wanted, 1..200
	Sources []string // source ids allowed ("repo:payments"); empty means all
	Branch  string   // only chunks of this branch, plus branchless ones; "" means any
	Groups  []string // the asker's groups for the ACL filter; chunks with an empty acl are always visible
	// Properties the BM25 side reads; nil means searchProperties.
	Properties []string
	// Paths, when set, restricts hits to chunks whose path is one of these.
	Paths []string
	// Refs, when set, restricts hits to chunks that use one of these names
	// (Chunk.Refs), compared case-insensitively.
	Refs []string
}

// A Hit is one retrieved chunk with its scores.
type Hit struct {
	Chunk Chunk
	ID    string
	// Score is Weaviate's fused hybrid score (relativeScoreFusion: each list
	// min-max normalised to 0..1, weighted by alpha, summed), relative to this
	// result set only.
	Score float64
	// BM25 is the raw BM25 score of the keyword side (0 when it did not match).
	BM25 float64
	// Similarity is the raw cosine similarity of the vector side, -1..1
	// (0 when the vector side did not return the hit). With a semantic
	// embedder it is the lexical vector's cosine, which Assess fills from the
	// stored vectors for the top hits.
	Similarity float64
	// Semantic is the cosine similarity (-1..1) of the question's and the
	// chunk's semantic vectors (see Pair), set by Assess for the top hits;
	// 0 when there is no semantic embedder or the chunk has no semantic
	// vector.
	Semantic float64
	// TermCoverage is the IDF-weighted share (0..1) of the question's content
	// terms the chunk contains, set by Asker.Assess for the top hits only.
	TermCoverage float64
	// Debug shows the score parts: `hybrid(0.83) bm25(4.21) vec(0.71)`.
	Debug string
}
