package retrieval

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
)

// Retrieval modes, for ablation (`ragbot eval --mode`).
const (
	ModeBM25         = "bm25"          // keyword side only (alpha 0)
	ModeVector       = "vector"        // vector side only (alpha 1)
	ModeHybrid       = "hybrid"        // one hybrid query at Alpha, Weaviate's order
	ModeHybridRerank = "hybrid+rerank" // query analysis, lookups by name, path and literal, rerank (the default)
)

// Modes lists the valid retrieval modes.
var Modes = []string{ModeBM25, ModeVector, ModeHybrid, ModeHybridRerank}

// identifierAlpha is the hybrid alpha for questions that are mostly names:
// exact tokens matter more than meaning there (docs/architecture.md,
// "Answering flow", step 2).
const identifierAlpha = 0.3

// Lookup sizes: how many BM25 hits each lookup adds to the candidates.
// Lookups only need to bring the named chunk in; the rerank places it.
const (
	symbolLookupLimit  = 10 // BM25 on the symbol field for the identifiers named
	pathLookupLimit    = 20 // the question's BM25 text within the files named
	literalLookupLimit = 10 // BM25 of each literal over search_text
)

// Retrieve runs the search for a request and returns up to limit hits, best
// first, with no coverage decision (ragbot eval ranks these). In the default
// mode it analyses the question, runs the hybrid query over Candidates hits
// plus BM25 lookups of the names, paths and literals it found, and reranks
// the union (see rerank).
func (a *Asker) Retrieve(ctx context.Context, r Request, limit int) ([]Hit, error) {
	res, err := a.retrieve(ctx, r, newQuestion(r.Question), limit, false)
	return res.hits, err
}

// retrieved is what retrieve found for one question.
type retrieved struct {
	hits []Hit
	vec  []float32   // the question's vector; nil when the mode reads no vectors
	w    termWeights // the question's term weights; zero unless the rerank or the caller needed them
}

// retrieve is Retrieve for the analysed question q. The term weights
// (weighTerms) are looked up while the search runs when the rerank needs
// them or weights is set.
func (a *Asker) retrieve(ctx context.Context, r Request, q *question, limit int, weights bool) (retrieved, error) {
	if a.rewriting(ctx) {
		return a.retrieveRewritten(ctx, r, q, limit, weights)
	}
	an, text := q.Analysis, q.text
	if text == "" {
		return retrieved{}, fmt.Errorf("empty question")
	}
	mode := a.Mode
	if mode == "" {
		mode = ModeHybridRerank
	}
	alpha := a.Alpha
	switch mode {
	case ModeBM25:
		alpha = 0
	case ModeVector:
		alpha = 1
	case ModeHybridRerank:
		if an.IdentifierHeavy() {
			alpha = min(alpha, identifierAlpha)
		}
	}
	// The term weights do not depend on the hits: look them up (one
	// Aggregate request) while the search runs.
	var wait func() (termWeights, error)
	if weights || mode == ModeHybridRerank {
		wait = background(func() (termWeights, error) { return a.weighTerms(ctx, r, q.content) })
	}
	var res retrieved
	if alpha > 0 {
		var err error
		if res.vec, err = a.embedQuestion(ctx, r.Question); err != nil {
			return res, err
		}
	}
	lex, sem := a.splitVector(res.vec)
	base := Query{Text: text, Vector: lex, Semantic: sem, Alpha: alpha, Limit: limit, Sources: r.Sources, Groups: r.Groups, Branch: r.Branch}
	if mode != ModeHybridRerank {
		var err error
		if res.hits, err = a.Store.Search(ctx, base); err != nil {
			return res, err
		}
		if wait != nil {
			res.w, err = wait()
		}
		return res, err
	}
	base.Limit = max(limit, a.Candidates)
	found, err := searchAll(ctx, a.Store, append([]Query{base}, lookups(base, an)...))
	if err != nil {
		return res, err
	}
	if res.w, err = wait(); err != nil {
		return res, err
	}
	hits := rerank(q, res.w, mergeHits(found[0], slices.Concat(found[1:]...)), a.Without...)
	if len(hits) > limit {
		hits = hits[:limit]
	}
	res.hits = hits
	return res, nil
}

// embedQuestion embeds the question. With a Pair and SemanticFallback, a
// failure of the semantic embedder (its error, its query budget, or its open breaker:
// see Breaker) does not fail the question: the vector is the lexical part
// alone, which the store searches without the semantic vector, and the
// answer says so (semanticDegraded).
func (a *Asker) embedQuestion(ctx context.Context, q string) ([]float32, error) {
	p, ok := a.Embedder.(Pair)
	if !ok || !a.SemanticFallback {
		vs, err := EmbedQueries(ctx, a.Embedder, []string{q})
		if err != nil {
			return nil, fmt.Errorf("embed question: %w", err)
		}
		return vs[0], nil
	}
	lex, err := EmbedQueries(ctx, p.Lexical, []string{q})
	if err != nil {
		return nil, fmt.Errorf("embed question: %w", err)
	}
	sem, err := p.EmbedSemanticQueries(ctx, []string{q})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("embed question: %w", err)
		}
		a.logger().Debug("semantic embedder failed; searching without it", "err", err)
		markDegraded(ctx)
		return lex[0], nil
	}
	return append(append(make([]float32, 0, len(lex[0])+len(sem[0])), lex[0]...), sem[0]...), nil
}

// degradedKey carries, in an Ask's context, the flag that a search of the
// question went without its semantic vector.
type degradedKey struct{}

// withDegraded returns ctx carrying a fresh flag, and the flag.
func withDegraded(ctx context.Context) (context.Context, *atomic.Bool) {
	f := new(atomic.Bool)
	return context.WithValue(ctx, degradedKey{}, f), f
}

func markDegraded(ctx context.Context) {
	if f, ok := ctx.Value(degradedKey{}).(*atomic.Bool); ok {
		f.Store(true)
	}
}

// splitVector returns the lexical and semantic parts of a question vector
// of a.Embedder: a Pair's two parts, or v whole and nil for an embedder
// of one vector.
func (a *Asker) splitVector(v []float32) (lexical, semantic []float32) {
	if p, ok := a.Embedder.(Pair); ok && v != nil {
		return p.Split(v)
	}
	return v, nil
}

// lookups are the extra BM25 queries for what the question names: symbols
// (on the symbol field), files (restricted to those paths) and literals.
func lookups(base Query, an Analysis) []Query {
	bm25 := func(text string, props []string, limit int) Query {
		q := base
		q.Text, q.Vector, q.Semantic, q.Alpha, q.Properties, q.Limit = text, nil, nil, 0, props, limit
		return q
	}
	var qs []Query
	var names []string
	for _, id := range an.Identifiers {
		names = AppendPieces(append(names, id), id)
	}
	if an.Endpoint != "" {
		names = append(names, an.Endpoint)
	}
	if len(names) > 0 {
		qs = append(qs, bm25(strings.Join(names, " "), []string{"symbol"}, symbolLookupLimit))
	}
	if len(an.Paths) > 0 {
		q := bm25(base.Text, nil, pathLookupLimit)
		q.Paths = PathTails(an.Paths)
		qs = append(qs, q)
	}
	for _, l := range an.Literals {
		qs = append(qs, bm25(SearchQuery(l), []string{"search_text"}, literalLookupLimit))
	}
	return qs
}

// mergeHits appends to the hybrid hits the lookup hits they lack. A lookup
// hit enters with score 0: its BM25 score is relative to its own small
// result set, so only the rerank bonuses that it matched may lift it.
func mergeHits(hybrid, lookup []Hit) []Hit {
	seen := make(map[string]bool, len(hybrid))
	for _, h := range hybrid {
		seen[h.ID] = true
	}
	out := hybrid
	for _, h := range lookup {
		if seen[h.ID] {
			continue
		}
		seen[h.ID] = true
		h.Score = 0
		h.Debug = "lookup " + h.Debug
		out = append(out, h)
	}
	return out
}

// fillSimilarity sets the cosine similarity to the question of each hit
// that has none because the vector side of its query did not return it
// (BM25-only hits, lookups, or every hit when the vector side searched
// both vectors of a Pair), reading the stored vectors; with a Pair it also
// sets each hit's Semantic, the cosine of the semantic parts. vec is the
// question's vector, or nil to embed it now.
func (a *Asker) fillSimilarity(ctx context.Context, question string, vec []float32, hits []Hit) error {
	_, pair := a.Embedder.(Pair)
	var ids []string
	for _, h := range hits {
		if h.Similarity == 0 || pair && h.Semantic == 0 {
			ids = append(ids, h.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	if vec == nil {
		var err error
		if vec, err = a.embedQuestion(ctx, question); err != nil {
			return err
		}
	}
	vecs, err := a.Store.Vectors(ctx, ids)
	if err != nil {
		return err
	}
	qLex, qSem := a.splitVector(vec)
	for i := range hits {
		v, ok := vecs[hits[i].ID]
		if !ok {
			continue
		}
		lex, sem := a.splitVector(v)
		if hits[i].Similarity == 0 {
			hits[i].Similarity = Cosine(qLex, lex)
		}
		if hits[i].Semantic == 0 && qSem != nil && sem != nil {
			hits[i].Semantic = Cosine(qSem, sem)
		}
	}
	return nil
}

// Cosine is the cosine similarity (-1..1) of two vectors, 0 when their
// lengths differ or one is zero.
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / (math.Sqrt(na) * math.Sqrt(nb))
}

// RetrieveScored is Retrieve with every hit's Similarity, Semantic and
// TermCoverage filled, for analysing the rerank on a deep candidate list
// (`ragbot eval --depth N --candidates FILE`); Assess fills them for the
// top hits only. It costs one more Weaviate request than Retrieve (the
// stored vectors of the hits).
func (a *Asker) RetrieveScored(ctx context.Context, r Request, limit int) ([]Hit, error) {
	q := newQuestion(r.Question)
	res, err := a.retrieve(ctx, r, q, limit, true)
	if err != nil {
		return nil, err
	}
	return res.hits, a.scoreHits(ctx, r.Question, q, res, res.hits)
}

// scoreHits sets the Similarity, Semantic (fillSimilarity: one request
// for the stored vectors of the hits that lack them) and TermCoverage of
// hits, which are some of res's, for the analysed question q.
func (a *Asker) scoreHits(ctx context.Context, question string, q *question, res retrieved, hits []Hit) error {
	if err := a.fillSimilarity(ctx, question, res.vec, hits); err != nil {
		return err
	}
	for i := range hits {
		hits[i].TermCoverage = res.w.coverage(q.chunkTerms(hits[i]))
	}
	return nil
}

// background runs f in a goroutine and returns a function that waits for
// its result. The goroutine never blocks, even when nobody waits.
func background[T any](f func() (T, error)) func() (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	return func() (T, error) { r := <-ch; return r.v, r.err }
}
