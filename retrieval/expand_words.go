package retrieval

import (
	"context"
	"strings"

	"github.com/ragbot/ragbot/retrieval/expand"
)

// Word expansion sizes.
const (
	// gloveMinCosine is the least cosine similarity (0..1) of a GloVe
	// neighbour to the question's word for it to be added.
	gloveMinCosine = 0.6
	// wordsPerTerm is how many neighbours or synonyms of one question word
	// are added at most, per kind, nearest (or most frequent sense) first,
	// among those the sources in scope contain.
	wordsPerTerm = 2
)

// wordLists are the word lists of the enabled kinds (nil when off).
type wordLists struct {
	glove   map[string][]expand.Neighbour
	wordnet map[string][]string
}

// wordLists loads (once per process) the word lists of e's kinds.
func (e *Expander) wordLists() (wordLists, error) {
	var l wordLists
	var err error
	if e.has(ExpandGloVe) {
		if l.glove, err = expand.GloVe(); err != nil {
			return l, err
		}
	}
	if e.has(ExpandWordNet) {
		if l.wordnet, err = expand.WordNet(); err != nil {
			return l, err
		}
	}
	return l, nil
}

// wordTerms returns, for each content word of q (letters only, 3 or more,
// not a stopword, filler or question word), up to wordsPerTerm GloVe
// neighbours (cosine at least gloveMinCosine) and up to wordsPerTerm
// WordNet synonyms, as the kinds enable, keeping only words that some
// chunk in r's scope contains: a word the sources never use cannot match.
// One DocFreq request counts the candidates not cached.
func (e *Expander) wordTerms(ctx context.Context, s Searcher, r Request, q *question) ([]expandTerm, error) {
	lists, err := e.wordLists()
	if err != nil {
		return nil, err
	}
	var cands []expandTerm
	for _, t := range q.content {
		if !expandable(t) {
			continue
		}
		if lists.glove != nil {
			ns, ok := lists.glove[t]
			if !ok {
				ns = lists.glove[lemma(t, func(w string) bool { _, ok := lists.glove[w]; return ok })]
			}
			for _, n := range ns {
				if n.Cosine >= gloveMinCosine && expandable(n.Word) {
					cands = append(cands, expandTerm{n.Word, ExpandGloVe + ":" + t})
				}
			}
		}
		if lists.wordnet != nil {
			for _, w := range lists.wordnet[lemma(t, func(w string) bool { _, ok := lists.wordnet[w]; return ok })] {
				if expandable(w) {
					cands = append(cands, expandTerm{w, ExpandWordNet + ":" + t})
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	words := make([]string, len(cands))
	for i, c := range cands {
		words[i] = c.term
	}
	df, _, err := e.df.lookup(ctx, s, r, words)
	if err != nil {
		return nil, err
	}
	var out []expandTerm
	per := map[string]int{} // from -> terms kept
	for i, c := range cands {
		if df[i] > 0 && per[c.from] < wordsPerTerm && !q.terms[c.term] {
			per[c.from]++
			out = append(out, c)
		}
	}
	return out, nil
}

// expandable reports whether w may be expanded or added: lower-case
// letters only, at least 3, and not a stopword, filler or question word.
func expandable(w string) bool {
	if len(w) < 3 || EnglishStopwords[w] || fillerWords[w] || questionWords[w] {
		return false
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// morphRules are WordNet's detachment rules for regular inflections
// (morphy(7WN)): suffix -> replacement, nouns, then verbs, then
// adjectives.
var morphRules = [][2]string{
	{"s", ""}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"},
	{"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""},
	{"er", ""}, {"est", ""}, {"er", "e"}, {"est", "e"},
}

// lemma returns the first base form of w that known accepts, trying w
// itself and then morphRules in order; w when none is known.
func lemma(w string, known func(string) bool) string {
	if known(w) {
		return w
	}
	for _, r := range morphRules {
		if b, ok := strings.CutSuffix(w, r[0]); ok && len(b)+len(r[1]) >= 3 && known(b+r[1]) {
			return b + r[1]
		}
	}
	return w
}
