package retrieval

import (
	"context"
	"sort"
)

// Pseudo-relevance feedback sizes (RM3: Lavrenko and Croft, "Relevance-Based
// Language Models", SIGIR 2001; Abdul-Jaleel et al., "UMass at TREC 2004",
// whose usual settings are 10 feedback documents and 10-20 terms; a chunk is
// smaller than a TREC document, and fewer of a code search's top hits are
// relevant, hence fewer of each).
const (
	prfDocs = 5 // top hits of the first pass, after the rerank, read as relevant
	// prfCandidates is how many terms, by relevance-model weight, have their
	// document frequency looked up; prfTerms of them, by weight times idf,
	// are added.
	prfCandidates = 30
	prfTerms      = 8
)

// feedbackTerms picks the expansion terms of pseudo-relevance feedback: the
// first pass's hits are reranked (without the features in without) and the
// top prfDocs are taken as relevant. Each term t of their symbol, path and
// content weighs sum over those hits D of P(D|Q) * tf(t, D) / |D| (the
// relevance model RM1, with P(D|Q) each hit's reranked score over their
// sum), then times its BM25 idf in r's scope, which RM1 lacks and code
// needs (every Go chunk says "err", every Python one "self"). Terms of the
// question, stopwords, filler and question words, digits-only and
// shorter than 3 are never added.
func (e *Expander) feedbackTerms(ctx context.Context, s Searcher, r Request, q *question, w termWeights, hits []Hit, without []string) ([]expandTerm, error) {
	top := rerank(q, w, hits, without...)
	top = top[:min(len(top), prfDocs)]
	var sum float64
	for _, h := range top {
		sum += max(h.Score, 0)
	}
	if sum == 0 {
		return nil, nil
	}
	rm := map[string]float64{}
	for _, h := range top {
		ts := Terms(h.Chunk.Symbol + " " + h.Chunk.Path + " " + h.Chunk.Content)
		if len(ts) == 0 {
			continue
		}
		p := max(h.Score, 0) / sum / float64(len(ts))
		for _, t := range ts {
			rm[t] += p
		}
	}
	type cand struct {
		term string
		w    float64
	}
	var cands []cand
	for t, v := range rm {
		if !q.terms[t] && feedbackTerm(t) {
			cands = append(cands, cand{t, v})
		}
	}
	byWeight := func(i, j int) bool {
		if cands[i].w != cands[j].w {
			return cands[i].w > cands[j].w
		}
		return cands[i].term < cands[j].term
	}
	sort.Slice(cands, byWeight)
	cands = cands[:min(len(cands), prfCandidates)]
	if len(cands) == 0 {
		return nil, nil
	}
	words := make([]string, len(cands))
	for i, c := range cands {
		words[i] = c.term
	}
	df, n, err := e.df.lookup(ctx, s, r, words)
	if err != nil {
		return nil, err
	}
	for i := range cands {
		d := max(df[i], 1)
		cands[i].w *= bm25IDF(float64(max(n, d)), float64(d))
	}
	sort.Slice(cands, byWeight)
	out := make([]expandTerm, 0, prfTerms)
	for _, c := range cands[:min(len(cands), prfTerms)] {
		out = append(out, expandTerm{c.term, ExpandPRF})
	}
	return out, nil
}

// feedbackTerm reports whether t may be added by feedback: at least 3
// bytes, some letter, not a stopword, filler or question word.
func feedbackTerm(t string) bool {
	if len(t) < 3 || EnglishStopwords[t] || fillerWords[t] || questionWords[t] {
		return false
	}
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < '0' || c > '9' {
			return true
		}
	}
	return false
}
