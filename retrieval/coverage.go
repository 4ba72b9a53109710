package retrieval

import (
	"context"
	"math"
	"slices"
	"strings"
)

// Thresholds decide a question's Coverage from its Evidence (see
// Evidence.Decide). Values are 0..1. Similarities depend on the embedder,
// each with its own scale, so config stores them per embedder name or
// family, and `ragbot eval` with unanswerable questions prints calibrated
// values (see Calibrate and CalibrateFloors).
//
// The answer band: a hit is relevant when its cosine similarity to the
// question reaches MinSimilarity and it contains at least MinTermCoverage of
// the question's content terms, each weighted by its inverse document
// frequency in the asker's scope (see Hit.TermCoverage).
//
// The floor: below it a question is "no coverage"; between the floor and
// the answer band it is "not sure" and the closest matches are shown as
// such. A question in a newcomer's own words shares few terms with the code
// by nature, so low term coverage alone never refuses it.
type Thresholds struct {
	MinSimilarity   float64
	MinTermCoverage float64
	// FloorSimilarity and FloorTermCoverage: a question whose best hits are
	// below both is refused ("far below every signal").
	FloorSimilarity   float64
	FloorTermCoverage float64
	// MaxAbsentShare: a question is refused when more than this share of
	// its IDF-weighted content terms occurs in no indexed chunk at all
	// (Evidence.AbsentShare) and no hit reaches the answer band; 0 disables
	// the rule.
	MaxAbsentShare float64
}

// DefaultThresholds returns the thresholds used when the config has none
// for the embedder (retrieval.thresholds, by name or family): the values
// calibrated for the offline hashing embedder, and a starting point to
// calibrate for any other. The answer band comes from `ragbot eval` on the
// question sets of eight corpora (the public set with
// testdata/eval/unanswerable.jsonl, testdata/eval/heldout and
// testdata/eval/paraphrase; docs/evaluation.md "No-coverage calibration"): the point
// with the fewest questions answered outright wrongly (an answerable one
// without a wanted chunk in its first 5, or an unanswerable one) that keeps
// as many right answers as before (retrieval.CalibrateBand); chosen that
// way leave-one-corpus-out it gave 25 wrong and 127 right answers against
// 29 and 128 for the earlier band (0.23, 0.34). The floor comes from the
// question sets of eight corpora (the public set, testdata/eval/heldout and
// testdata/eval/paraphrase): no floor refuses more of their unanswerable
// questions at <= 5% wrong refusals, leave-one-corpus-out, than refusing
// missing names alone does (docs/evaluation.md "Three outcomes"), so the floors sit
// under every answerable question of all eight (similarity >= 0.16,
// coverage >= 0.02, absent share <= 0.75) and only refuse what is far below
// every signal: an off-topic question. On the generated benchmark
// (testdata/eval/generated: 33 repositories none of these values was
// chosen on) they answer 2.9% of its unanswerable questions outright, refuse
// 0.2% of its answerable ones, and answer 1.7% wrongly and 11.2% "not sure";
// the band and floors chosen there leave-one-repository-out are not used:
// they refused or demoted the questions people wrote (docs/evaluation.md
// "Thresholds and rerank on the generated benchmark").
func DefaultThresholds() Thresholds {
	return Thresholds{MinSimilarity: 0.27, MinTermCoverage: 0.30, FloorSimilarity: 0.10, FloorTermCoverage: 0.05, MaxAbsentShare: 0.9}
}

// Evidence is what the coverage decision reads off a question's retrieval.
// Only Decide turns it into a decision, so `ragbot eval` can replay it
// under other thresholds.
type Evidence struct {
	// Lexical: one of the top hits matches a name from the question exactly:
	// its symbol or endpoint, a file named, or a literal found verbatim
	// (rerank's symbol, path and literal features).
	Lexical bool `json:"lexical"`
	// Missing is a name from the question that no indexed chunk in the
	// asker's scope contains: a plain word that is no everyday English
	// (AbsentNames[0], absence.go), or an identifier, endpoint, path or
	// literal (see Analysis); "" when there is none.
	Missing string `json:"missing,omitempty"`
	// AbsentNames are all the plain words of the question that no chunk in
	// scope holds and that are no everyday English, as asked.
	AbsentNames []string `json:"absent_names,omitempty"`
	// DidYouMean is, when some words of the question were read as typos,
	// their corrections, space-separated ("retry"): the question was
	// searched as corrected (Typos says which word became which), and is
	// answered "not sure" at best.
	DidYouMean string `json:"did_you_mean,omitempty"`
	Typos      []Typo `json:"typos,omitempty"`
	// Approximate is a literal of the question that the hits hold only
	// with its variable parts different (a pasted message's values, a
	// setting's value: literalHeld); "" when there is none. The question
	// is answered "not sure" at best unless the answer shows a hit holding
	// it (HitEvidence.Approximate).
	Approximate string `json:"approximate,omitempty"`
	// Vocabulary is true when the plain words were checked against the
	// sources' vocabularies; false when some source in scope had none and
	// the search's document frequencies were used (no typo correction).
	Vocabulary bool `json:"vocabulary"`
	// Similarity is the best cosine similarity of a top hit to the question.
	Similarity float64 `json:"similarity"`
	// TermCoverage is the best IDF-weighted share (0..1) of the question's
	// content terms found in one top hit (Hit.TermCoverage).
	TermCoverage float64 `json:"term_coverage"`
	// Absent lists the question's content terms that no chunk in the
	// asker's scope contains in any inflection (see inflections).
	Absent []string `json:"absent,omitempty"`
	// AbsentShare is the IDF-weighted share (0..1) of the question's
	// content terms that are Absent (see weighTerms).
	AbsentShare float64 `json:"absent_share"`
	// Semantic is the best cosine similarity of a top hit to the question
	// on the semantic vector (Hit.Semantic); 0 without one. For `ragbot
	// eval` and --explain; the decision does not read it.
	Semantic float64 `json:"semantic,omitempty"`
	// Top holds each top hit's similarity and term coverage, best-ranked
	// first: the answer band needs one hit that clears both thresholds.
	Top []HitEvidence `json:"top,omitempty"`
}

// HitEvidence is what the coverage decision reads of one top hit.
type HitEvidence struct {
	Similarity   float64 `json:"similarity"`
	TermCoverage float64 `json:"term_coverage"`
	// Approximate: the hit holds Evidence.Approximate.
	Approximate bool `json:"approximate,omitempty"`
}

// showsApproximate reports whether a covered answer would show a hit
// holding the approximate literal: the best-ranked hit, which is always
// shown, or another that clears both answer thresholds (Asker.Ask).
func (e Evidence) showsApproximate(th Thresholds) bool {
	for i, h := range e.Top {
		if h.Approximate && (i == 0 || relevant(th, false, h.Similarity, h.TermCoverage)) {
			return true
		}
	}
	return false
}

// inBand reports whether one top hit reaches both answer thresholds. An
// Evidence without Top (made by hand) stands for one hit with its
// Similarity and TermCoverage.
func (e Evidence) inBand(th Thresholds) bool {
	top := e.Top
	if len(top) == 0 {
		top = []HitEvidence{{Similarity: e.Similarity, TermCoverage: e.TermCoverage}}
	}
	return slices.ContainsFunc(top, func(h HitEvidence) bool { return relevant(th, false, h.Similarity, h.TermCoverage) })
}

// Decide makes the coverage decision:
//   - a word of the question that names something the sources lack
//     (AbsentNames) means they do not cover it, even when another name of
//     the question matches exactly: the answer says which is missing
//     instead of answering outright;
//   - an exact match of a named thing covers the question;
//   - another named thing the sources lack (an identifier, path, literal
//     or endpoint: Missing) means they do not cover it (the nearest chunks
//     are about something else, however similar they read);
//   - a top hit that clears both answer thresholds covers it: its weighted
//     term coverage shows the question's distinctive words are there, its
//     similarity that it is not about something else that shares them
//     (requiring both refused the most unanswerable questions of the eval
//     at <= 5% wrong refusals, docs/evaluation.md "No-coverage calibration"). Both in
//     one hit: two weak hits, one similar and one sharing the words, do
//     not make an answer;
//   - best hits below both floors, or a question most of whose weight is in
//     words no chunk contains, are not covered;
//   - anything else is NotSure: the closest matches are shown as such.
//
// A question searched with corrected typos (DidYouMean) is NotSure where it
// would be covered: the asker did not ask it. So is one whose literal the
// hits hold only with its values different (Approximate) where the answer
// would not show one of them: the answer would not show where it is.
func (e Evidence) Decide(th Thresholds) Coverage {
	covered := Covered
	if e.DidYouMean != "" || e.Approximate != "" && !e.showsApproximate(th) {
		covered = NotSure
	}
	switch {
	case len(e.AbsentNames) > 0:
		return NoCoverage
	case e.Lexical:
		return covered
	case e.Missing != "":
		return NoCoverage
	case e.inBand(th):
		return covered
	case e.farFromAll(th):
		return NoCoverage
	}
	return NotSure
}

// farFromAll reports whether the best hits are below both floors, or most
// of the question's weight is in words no chunk has: an off-topic question,
// whose closest matches are no use either.
func (e Evidence) farFromAll(th Thresholds) bool {
	return e.Similarity < th.FloorSimilarity && e.TermCoverage < th.FloorTermCoverage ||
		th.MaxAbsentShare > 0 && e.AbsentShare > th.MaxAbsentShare
}

// relevant reports whether one hit, of a covered question, is worth showing.
func relevant(th Thresholds, lexical bool, sim, cov float64) bool {
	return lexical || (sim >= th.MinSimilarity && cov >= th.MinTermCoverage)
}

// Assess retrieves for r and returns the ranked hits (up to
// max(Candidates, TopK)), the top TopK of them with their Similarity and
// TermCoverage set, and the Evidence about them. Names the hits do not contain are probed
// across the asker's scope with one BM25 query each. Errors are failures
// (Weaviate, the embedder), never "not found".
func (a *Asker) Assess(ctx context.Context, r Request) ([]Hit, Evidence, error) {
	res, ev, _, err := a.assess(ctx, r)
	return res.hits, ev, err
}

// assess is Assess that also returns the whole retrieval (for scoring more hits
// later: answer's "not sure" list) and the question's analysis, made once.
//
// The absence check (absence.go) runs first: a typo is corrected in the
// question searched (Evidence.DidYouMean), and a plain word that names
// something no chunk holds is Evidence.Missing.
func (a *Asker) assess(ctx context.Context, r Request) (retrieved, Evidence, *question, error) {
	abs, err := a.Absence(ctx, r)
	if err != nil {
		return retrieved{}, Evidence{}, nil, err
	}
	if len(abs.Typos) > 0 {
		r.Question = corrected(r.Question, abs.Typos)
	}
	q := newQuestion(r.Question)
	res, err := a.retrieve(ctx, r, q, max(a.Candidates, a.TopK), true)
	if err != nil {
		return retrieved{}, Evidence{}, nil, err
	}
	hits, w := res.hits, res.w
	top := hits[:min(len(hits), a.TopK)]
	if err := a.scoreHits(ctx, r.Question, q, res, top); err != nil {
		return retrieved{}, Evidence{}, nil, err
	}
	ev := Evidence{Absent: w.absent, AbsentShare: w.absentShare(), Vocabulary: abs.Vocabulary, Typos: abs.Typos, AbsentNames: abs.Missing}
	for _, t := range abs.Typos {
		ev.DidYouMean = strings.TrimSpace(ev.DidYouMean + " " + t.Term)
	}
	if !abs.Vocabulary {
		ev.AbsentNames = absentNames(q.Plain, w.absent)
	}
	for i := range top {
		ev.Top = append(ev.Top, HitEvidence{Similarity: top[i].Similarity, TermCoverage: top[i].TermCoverage})
		ev.Similarity = max(ev.Similarity, top[i].Similarity)
		ev.Semantic = max(ev.Semantic, top[i].Semantic)
		ev.TermCoverage = max(ev.TermCoverage, top[i].TermCoverage)
		ev.Lexical = ev.Lexical || lexicalMatch(q.Analysis, top[i].Chunk)
	}
	inPlace := func(h Hit) bool { return pathMatch(q.Paths, h.Chunk.Path) }
	switch {
	case q.Trace && len(q.Paths) > 0:
		// A pasted trace is about its places. The runtime's and libraries'
		// frames, names and words beside the asker's refuse nothing, and a
		// chunk that only quotes its names (a test holding a sample trace)
		// does not answer it: only a chunk of one of its files does.
		ev.AbsentNames = nil
		ev.Lexical = slices.ContainsFunc(top, inPlace)
		if !slices.ContainsFunc(hits, inPlace) {
			ev.Missing = q.Paths[0]
		}
	case len(ev.AbsentNames) > 0:
		ev.Missing = ev.AbsentNames[0]
	case !ev.Lexical:
		if ev.Missing, err = a.missingName(ctx, r, q, hits); err != nil {
			return retrieved{}, Evidence{}, nil, err
		}
		if ev.Missing == "" {
			ev.Approximate = approximate(q.Literals, hits)
			for i := range top {
				ev.Top[i].Approximate = ev.Approximate != "" && literalHeld(ev.Approximate, top[i].Chunk.Content)
			}
		}
	}
	return res, ev, q, nil
}

// approximate returns the first literal that no hit holds verbatim (the
// hits hold it with its variable parts different, when no name is
// missing), or "".
func approximate(literals []string, hits []Hit) string {
	for _, l := range literals {
		if !slices.ContainsFunc(hits, func(h Hit) bool { return literalMatch([]string{l}, h.Chunk.Content) > 0 }) {
			return l
		}
	}
	return ""
}

// lexicalMatch reports whether c matches a name of the analysis exactly:
// symbol or endpoint, a named file, or a literal verbatim.
func lexicalMatch(an Analysis, c Chunk) bool {
	return symbolMatch(an, c.Symbol) > 0 || pathMatch(an.Paths, c.Path) || literalMatch(an.Literals, c.Content) > 0
}

// missingName returns the first identifier, path, literal or endpoint of
// the analysis that neither the hits nor, for one-word identifiers, a BM25
// probe over the asker's scope contain; a literal counts as contained with
// its variable parts different (literalHeld: a pasted message's values, a
// setting's value). (Plain words are the absence check's, absence.go.)
func (a *Asker) missingName(ctx context.Context, r Request, q *question, hits []Hit) (string, error) {
	an := q.Analysis
	inHits := func(match func(Chunk) bool) bool {
		return slices.ContainsFunc(hits, func(h Hit) bool { return match(h.Chunk) })
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
		if !inHits(func(c Chunk) bool { return literalHeld(l, c.Content) || containsFold(l)(c) }) {
			return l, nil
		}
	}
	for _, id := range an.Identifiers {
		one := Analysis{Identifiers: []string{id}}
		if inHits(func(c Chunk) bool { return symbolMatch(one, c.Symbol) > 0 }) || inHits(containsFold(id)) || inHits(containsFold(Unqualified(id))) {
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
	return "", nil
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

// fillerWords are English function words (pronouns, determiners,
// auxiliaries, prepositions, quantifiers), the verbs of asking ("look
// up", "get", "find") and the words asking for documentation ("is there
// documentation about ...", "where do the docs explain ...") that
// questions use whatever they are about. Being absent from the sources
// says nothing, so coverage does not weigh them; weighed, the documentation
// words lifted every section that mentions "documentation" above the one
// asked for (docs/evaluation.md, "Generated benchmark").
var fillerWords = wordSet(`
i me my we us our you your he she his her its them someone something anything everything one ones
some any all each every other another same many much more most few less own about from up down out
off over before after between through via without so than too very just only also already again
still ever whether like have has had been being would could should may might must shall get gets
getting got go goes going look looking find see use using used make need want know tell happen work
works way thing things incl e g etc doc docs documentation documented explain explains explained
describe describes described`)

// termWeights are a question's content terms with their inverse document
// frequencies in the asker's scope.
type termWeights struct {
	forms     [][]string // per term, its inflections (the term first)
	idf       []float64
	sum       float64
	absent    []string // terms with document frequency 0
	absentIDF float64  // the sum of their idf
}

// weighTerms looks up the document frequency of every content term (in any of
// its inflections) in r's scope, from the vocabularies or in one Aggregate
// request for all (docFreq), and weighs each by the BM25 inverse document frequency
// ln(1 + (N - n + 0.5) / (n + 0.5)) (Robertson and Zaragoza, "The Probabilistic
// Relevance Framework: BM25 and Beyond", 2009, in the non-negative form Lucene
// uses). So a hit that
// contains the question's rare words covers it more than one that contains its
// common ones, and a term the sources never mention weighs most: "snooze" in a
// question about snoozing alerts, when nothing indexed says snooze (counted as
// found once, add-one smoothing, so in a small repository an unused word does
// not outweigh the rest). Weaviate's stopwords are left out, as its BM25 leaves
// them out, and so are fillerWords.
func (a *Asker) weighTerms(ctx context.Context, r Request, terms []string) (termWeights, error) {
	var w termWeights
	var kept []string
	for _, t := range terms {
		if !EnglishStopwords[t] && !fillerWords[t] {
			kept = append(kept, t)
			w.forms = append(w.forms, inflections(t))
		}
	}
	if len(kept) == 0 {
		return w, nil
	}
	df, n, err := a.docFreq(ctx, Query{Sources: r.Sources, Groups: r.Groups, Branch: r.Branch}, w.forms)
	if err != nil {
		return w, err
	}
	w.idf = make([]float64, len(df))
	for i, d := range df {
		// add-one: an absent term weighs as one found once; a total counted
		// before the latest chunks were indexed is never below a term's count.
		w.idf[i] = bm25IDF(float64(max(n, d, 1)), float64(max(d, 1)))
		w.sum += w.idf[i]
		if d == 0 {
			w.absent = append(w.absent, kept[i])
			w.absentIDF += w.idf[i]
		}
	}
	return w, nil
}

// docFreq is the document frequencies of terms (each a term's inflections)
// in q's scope and the chunks in it: from the sources' vocabularies
// (Asker.Vocabularies, Vocabulary.DocFreq) when every source in scope has a
// current one, with no request to the store; otherwise, or when a term is
// a numeric literal (12345, 0x3ce0: vocabularies do not count them),
// Store.DocFreq's Aggregate. The forms of a shorter number ("8080s" of
// 8080) are numeric literals too, and count for none. Under load the
// Aggregate over every chunk in scope was the request that passed the
// timeout (docs/deploy.md, "Sizing").
func (a *Asker) docFreq(ctx context.Context, q Query, terms [][]string) ([]int, int, error) {
	if a.Vocabularies != nil && !slices.ContainsFunc(terms, func(forms []string) bool { return NumericLiteral(forms[0]) }) {
		v, ok, err := a.Vocabularies.Vocabulary(ctx, q)
		if err != nil {
			return nil, 0, err
		}
		if ok {
			df, n := v.DocFreq(terms)
			return df, n, nil
		}
	}
	return a.Store.DocFreq(ctx, q, terms)
}

// absentShare is the IDF-weighted share (0..1) of the terms that no chunk
// contains; 0 when there are no terms.
func (w termWeights) absentShare() float64 {
	if w.sum == 0 {
		return 0
	}
	return w.absentIDF / w.sum
}

// bm25IDF is BM25's inverse document frequency of a term found in df of n
// documents: ln(1 + (n - df + 0.5) / (df + 0.5)).
func bm25IDF(n, df float64) float64 {
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// coverage is the IDF-weighted share (0..1) of the terms found, in any
// inflection, among have, the terms of a chunk's symbol, path and content
// (chunkTerms); 0 when there are no terms.
func (w termWeights) coverage(have map[string]bool) float64 {
	if w.sum == 0 {
		return 0
	}
	var got float64
	for i, forms := range w.forms {
		for _, f := range forms {
			if have[f] {
				got += w.idf[i]
				break
			}
		}
	}
	return got / w.sum
}

// inflections returns term followed by the English inflections it may
// share a stem with: the stem with -s, -es, -ed, -d, -ing (and -y/-ies),
// where the stem is term or term without one of those endings, kept when
// at least 3 letters long ("retries" -> retry, retried, retrying...;
// "sharded" -> shard, shards, sharding...). It over-generates on purpose:
// forms that are not words match nothing. Chunk text is not stemmed
// (terms.go), so coverage compares these forms with its terms.
func inflections(term string) []string {
	stems := []string{term}
	if b, ok := strings.CutSuffix(term, "ies"); ok && len(b) >= 2 {
		stems = append(stems, b+"y")
	}
	for _, suf := range []string{"s", "es", "ed", "d", "ing"} {
		if b, ok := strings.CutSuffix(term, suf); ok && len(b) >= 3 {
			stems = append(stems, b)
		}
	}
	var out []string
	for _, b := range stems {
		out = append(out, b)
		for _, suf := range []string{"s", "es", "ed", "d", "ing"} {
			out = append(out, b+suf)
		}
		if y, ok := strings.CutSuffix(b, "y"); ok {
			out = append(out, y+"ies", y+"ied")
		}
		if e, ok := strings.CutSuffix(b, "e"); ok && len(e) >= 3 {
			out = append(out, e+"ing") // snooze -> snoozing
		}
	}
	return dedupe(out)
}
