package retrieval

import (
	"context"
	"strings"
)

// Thresholds decide "no coverage" for questions that name nothing the top
// hits match (see Evidence.Covered): a hit is relevant when its cosine
// similarity to the question reaches MinSimilarity or it contains at least
// MinTermCoverage of the question's content terms (see QueryTerms). Values
// are 0..1. They depend on the embedder, whose similarities have their own
// scale, so config stores them per embedder name and `ragbot eval` with
// unanswerable questions prints the values that balance wrong answers
// against wrong refusals (see Calibrate).
type Thresholds struct {
	MinSimilarity   float64
	MinTermCoverage float64
}

// DefaultThresholds returns the thresholds for an embedder by name: the
// calibrated values for the offline embedder (OfflineName), and the same
// values, a starting point to calibrate, for any other. The offline values
// come from `ragbot eval` on ../shared/eval plus testdata/eval/unanswerable.jsonl
// (README "No-coverage calibration"): the point with the most unanswerable
// questions refused while at most 5% of the answerable ones are.
func DefaultThresholds(embedder string) Thresholds {
	return Thresholds{MinSimilarity: 0.30, MinTermCoverage: 0.6}
}

// Evidence is what the coverage decision reads off a question's retrieval.
// Only Covered turns it into a decision, so `ragbot eval` can replay it
// under other thresholds.
type Evidence struct {
	// Lexical: one of the top hits matches a name from the question exactly:
	// its symbol or endpoint, a file named, or a literal found verbatim
	// (rerank's symbol, path and literal features).
	Lexical bool
	// Missing is a name from the question (identifier, endpoint, path,
	// literal or product name, see Analysis) that no indexed chunk in the
	// asker's scope contains; "" when there is none.
	Missing string
	// Similarity is the best cosine similarity of a top hit to the question.
	Similarity float64
	// TermCoverage is the best share (0..1) of the question's content terms
	// found in one top hit (TermCoverage).
	TermCoverage float64
}

// Covered decides coverage: an exact match of a named thing covers the
// question; a named thing the sources lack means they do not cover it (the
// nearest chunks are about something else, however similar they read);
// otherwise a top hit must clear one of the thresholds.
func (e Evidence) Covered(th Thresholds) bool {
	switch {
	case e.Lexical:
		return true
	case e.Missing != "":
		return false
	}
	return e.Similarity >= th.MinSimilarity || e.TermCoverage >= th.MinTermCoverage
}

// relevant reports whether one hit, of a covered question, is worth showing.
func relevant(th Thresholds, lexical bool, sim, cov float64) bool {
	return lexical || sim >= th.MinSimilarity || cov >= th.MinTermCoverage
}

// Assess retrieves for r and returns the ranked hits (up to
// max(Candidates, TopK)), the top TopK of them with their Similarity set,
// and the Evidence about them. Names the hits do not contain are probed
// across the asker's scope with one BM25 query each. Errors are failures
// (Weaviate, the embedder), never "not found".
func (a *Asker) Assess(ctx context.Context, r Request) ([]Hit, Evidence, error) {
	hits, an, vec, err := a.retrieve(ctx, r, max(a.Candidates, a.TopK))
	if err != nil {
		return nil, Evidence{}, err
	}
	top := hits[:min(len(hits), a.TopK)]
	if err := a.fillSimilarity(ctx, r.Question, vec, top); err != nil {
		return nil, Evidence{}, err
	}
	var ev Evidence
	terms := QueryTerms(r.Question)
	for _, h := range top {
		ev.Similarity = max(ev.Similarity, h.Similarity)
		ev.TermCoverage = max(ev.TermCoverage, TermCoverage(terms, h.Chunk))
		ev.Lexical = ev.Lexical || lexicalMatch(an, h.Chunk)
	}
	if !ev.Lexical {
		if ev.Missing, err = a.missingName(ctx, r, an, hits); err != nil {
			return nil, Evidence{}, err
		}
	}
	return hits, ev, nil
}

// lexicalMatch reports whether c matches a name of the analysis exactly:
// symbol or endpoint, a named file, or a literal verbatim.
func lexicalMatch(an Analysis, c Chunk) bool {
	return symbolMatch(an, c.Symbol) > 0 || pathMatch(an.Paths, c.Path) || literalMatch(an.Literals, c.Content) > 0
}

// missingName returns the first name of the analysis that neither the hits
// nor, for one-word names, a BM25 probe over the asker's scope contain.
func (a *Asker) missingName(ctx context.Context, r Request, an Analysis, hits []Hit) (string, error) {
	inHits := func(match func(Chunk) bool) bool {
		for _, h := range hits {
			if match(h.Chunk) {
				return true
			}
		}
		return false
	}
	containsFold := func(s string) func(Chunk) bool {
		s = strings.ToLower(s)
		return func(c Chunk) bool {
			return strings.Contains(strings.ToLower(c.Content), s) || strings.Contains(strings.ToLower(c.Symbol), s)
		}
	}
	if e := an.Endpoint; e != "" && !inHits(func(c Chunk) bool { return strings.EqualFold(c.Symbol, e) }) {
		return e, nil
	}
	for _, p := range an.Paths {
		if !inHits(func(c Chunk) bool { return pathMatch([]string{p}, c.Path) }) {
			return p, nil
		}
	}
	for _, l := range an.Literals {
		if !inHits(containsFold(l)) {
			return l, nil
		}
	}
	for _, id := range an.Identifiers {
		one := Analysis{Identifiers: []string{id}}
		if inHits(func(c Chunk) bool { return symbolMatch(one, c.Symbol) > 0 }) || inHits(containsFold(id)) {
			continue
		}
		if strings.Contains(id, ".") { // Type.Method: found only as a symbol or verbatim
			return id, nil
		}
		ok, err := a.termIndexed(ctx, r, strings.Join(SplitIdentifier(id), ""))
		if err != nil || !ok {
			return id, err
		}
	}
	for _, n := range an.Names {
		term := strings.ToLower(n)
		if weaviateStopwords[term] || inHits(func(c Chunk) bool { return hasTerm(c, term) }) {
			continue
		}
		ok, err := a.termIndexed(ctx, r, term)
		if err != nil || !ok {
			return n, err
		}
	}
	return "", nil
}

// hasTerm reports whether term is one of the terms (see Terms) of c's
// symbol, path or content.
func hasTerm(c Chunk, term string) bool {
	for _, t := range Terms(c.Symbol + " " + c.Path + " " + c.Content) {
		if t == term {
			return true
		}
	}
	return false
}

// termIndexed reports whether any chunk in r's scope has term in its
// search_text: one BM25 query for the single term, limit 1.
func (a *Asker) termIndexed(ctx context.Context, r Request, term string) (bool, error) {
	if term == "" {
		return true, nil
	}
	hits, err := a.Store.Search(ctx, Query{Text: term, Limit: 1, Sources: r.Sources, Groups: r.Groups, Branch: r.Branch,
		Properties: []string{"search_text"}})
	return len(hits) > 0, err
}

// weaviateStopwords is Weaviate's "en" stopword preset, which the chunk
// collection uses (schema.go): Weaviate drops these words from BM25 queries,
// so a probe for one finds nothing even where it occurs
// (weaviate v1.35.2 adapters/repos/db/inverted/stopwords/presets.go).
var weaviateStopwords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "but": true, "by": true,
	"for": true, "if": true, "in": true, "into": true, "is": true, "it": true, "no": true, "not": true, "of": true,
	"on": true, "or": true, "such": true, "that": true, "the": true, "their": true, "then": true, "there": true,
	"these": true, "they": true, "this": true, "to": true, "was": true, "will": true, "with": true,
}
