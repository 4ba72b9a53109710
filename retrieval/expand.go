package retrieval

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Query expansion kinds (Expander.Kinds, config retrieval.expansion,
// `ragbot eval --expand`).
const (
	// ExpandPRF adds the strongest terms of the first pass's top hits:
	// pseudo-relevance feedback, RM3-style (expand_prf.go).
	ExpandPRF = "prf"
	// ExpandGloVe adds GloVe nearest neighbours of the question's words
	// that the indexed sources contain (expand_words.go).
	ExpandGloVe = "glove"
	// ExpandWordNet adds WordNet synonyms of the question's words that the
	// indexed sources contain (expand_words.go).
	ExpandWordNet = "wordnet"
)

// ExpansionKinds lists the valid query expansion kinds.
var ExpansionKinds = []string{ExpandPRF, ExpandGloVe, ExpandWordNet}

// Expansion weights and sizes.
const (
	// expandOrigRepeat is how many times the question's own terms are
	// repeated in the expanded BM25 query, against once for each
	// expansion term: Weaviate multiplies a query term's idf by its count
	// in the query (Weaviate v1.39, adapters/repos/db/inverted/
	// bm25_searcher.go, duplicateTextBoost), so an original term weighs
	// twice an added one: a query-side stand-in for RM3's interpolation of
	// the original query with the feedback model (Abdul-Jaleel et al.,
	// "UMass at TREC 2004"). Not tuned: expansion is off by default
	// (README, "Query expansion").
	expandOrigRepeat = 2
	// expandFuse is the share (0..1) of the expanded query's fused hybrid
	// score in a hit's merged score; the first pass's has the rest
	// (CombSUM of the two relativeScoreFusion scores, each 0..1; Fox and
	// Shaw, "Combination of Multiple Searches", TREC-2, 1994).
	expandFuse = 0.5
)

// An Expander adds terms to a question's search (see Asker.Expand): one
// more hybrid query, its text the question's terms repeated
// expandOrigRepeat times plus the expansion terms once, whose hits are
// fused with the first pass's before the rerank. Kinds lists which
// expansions run (ExpansionKinds). The document frequencies it looks up
// are cached per access scope (dfCache). Safe for concurrent use.
type Expander struct {
	Kinds []string
	df    dfCache
}

// NewExpander returns an Expander running kinds, each one of
// ExpansionKinds, after loading the word lists they read (package
// retrieval/expand); nil for no kinds. Errors name an unknown kind or a
// word list that does not parse.
func NewExpander(kinds []string) (*Expander, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	for _, k := range kinds {
		if !slices.Contains(ExpansionKinds, k) {
			return nil, fmt.Errorf("query expansion %q, want among %s", k, strings.Join(ExpansionKinds, ", "))
		}
	}
	e := &Expander{Kinds: slices.Clone(kinds)}
	if _, err := e.wordLists(); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Expander) has(kind string) bool { return e != nil && slices.Contains(e.Kinds, kind) }

// expandTerm is one term added to a question's search, with where it came
// from, for Debug.
type expandTerm struct {
	term string
	from string // "prf", "glove:boss", "wordnet:boss"
}

// expand runs the expanded query for q when a.Expand has any kinds, and
// returns hits (the first pass, best first) fused with its hits (see
// fuseHits); otherwise hits as they are. base is the first pass's query; w
// the question's term weights.
func (a *Asker) expand(ctx context.Context, r Request, q *question, base Query, w termWeights, hits []Hit) ([]Hit, error) {
	e := a.Expand
	if e == nil || len(e.Kinds) == 0 {
		return hits, nil
	}
	terms, err := e.terms(ctx, a.Store, r, q, w, hits, a.Without)
	if err != nil || len(terms) == 0 {
		return hits, err
	}
	eq := base
	eq.Text = expandedText(q.text, terms)
	more, err := a.Store.Search(ctx, eq)
	if err != nil {
		return nil, err
	}
	return fuseHits(hits, more, expandFuse, terms), nil
}

// terms gathers the expansion terms of every kind, each once, none a term
// of the question.
func (e *Expander) terms(ctx context.Context, s Searcher, r Request, q *question, w termWeights, hits []Hit, without []string) ([]expandTerm, error) {
	var out []expandTerm
	seen := map[string]bool{}
	add := func(ts []expandTerm) {
		for _, t := range ts {
			if !seen[t.term] && !q.terms[t.term] {
				seen[t.term] = true
				out = append(out, t)
			}
		}
	}
	if e.has(ExpandGloVe) || e.has(ExpandWordNet) {
		ts, err := e.wordTerms(ctx, s, r, q)
		if err != nil {
			return nil, err
		}
		add(ts)
	}
	if e.has(ExpandPRF) {
		ts, err := e.feedbackTerms(ctx, s, r, q, w, hits, without)
		if err != nil {
			return nil, err
		}
		add(ts)
	}
	return out, nil
}

// expandedText is the BM25 text of the expanded query: text (the question's
// SearchQuery) expandOrigRepeat times, then each expansion term once.
func expandedText(text string, terms []expandTerm) string {
	parts := make([]string, 0, expandOrigRepeat+len(terms))
	for range expandOrigRepeat {
		parts = append(parts, text)
	}
	for _, t := range terms {
		parts = append(parts, t.term)
	}
	return strings.Join(parts, " ")
}

// fuseHits merges the first pass's hits with the expanded query's: each
// hit scores (1-share) times its first-pass score plus share times its
// expanded-query score (0 where a list lacks it), and the union is sorted
// best first (stable: first-pass order breaks ties). Hits keep their
// first-pass BM25 and Similarity when they have them; Debug gains
// `expand(0.42)`.
func fuseHits(first, expanded []Hit, share float64, terms []expandTerm) []Hit {
	at := make(map[string]int, len(first))
	out := make([]Hit, 0, len(first)+len(expanded))
	for _, h := range first {
		at[h.ID] = len(out)
		h.Score *= 1 - share
		out = append(out, h)
	}
	for _, h := range expanded {
		i, ok := at[h.ID]
		if !ok {
			h.Debug = "expanded " + h.Debug
			h.Score *= share
			out = append(out, h)
			continue
		}
		out[i].Score += share * h.Score
		out[i].Debug += fmt.Sprintf(" expand(%.3f)", h.Score)
		if out[i].Similarity == 0 {
			out[i].Similarity = h.Similarity
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// ExpansionTerms returns the terms that a.Expand adds to the search of r's
// question, each as `term(kind)` or `term(kind:question word)`, in the
// order they are added: the first pass (the hybrid query alone, Candidates
// hits) is run to find them, as Retrieve runs it. Nil when a.Expand is
// nil. Errors are failures of Weaviate or the embedder.
func (a *Asker) ExpansionTerms(ctx context.Context, r Request) ([]string, error) {
	if a.Expand == nil {
		return nil, nil
	}
	q := newQuestion(r.Question)
	w, err := a.weighTerms(ctx, r, q.content)
	if err != nil {
		return nil, err
	}
	alpha := a.Alpha
	if q.IdentifierHeavy() {
		alpha = min(alpha, identifierAlpha)
	}
	base := Query{Text: q.text, Alpha: alpha, Limit: max(a.TopK, a.Candidates), Sources: r.Sources, Groups: r.Groups, Branch: r.Branch}
	if alpha > 0 {
		vec, err := a.embedQuestion(ctx, r.Question)
		if err != nil {
			return nil, err
		}
		base.Vector, base.Semantic = a.splitVector(vec) // a Pair's vector holds both parts
	}
	hits, err := a.Store.Search(ctx, base)
	if err != nil {
		return nil, err
	}
	terms, err := a.Expand.terms(ctx, a.Store, r, q, w, hits, a.Without)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(terms))
	for i, t := range terms {
		out[i] = t.term + "(" + t.from + ")"
	}
	return out, nil
}
