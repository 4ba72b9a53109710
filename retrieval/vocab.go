package retrieval

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// A SourceVocabulary is every term of one source's chunks on one branch
// (the words of their search_text, see SearchText), with the number of
// chunks holding each. ingest counts it at index time and stores it beside
// the source's SourceState; the absence check reads it (absence.go).
type SourceVocabulary struct {
	Source string // source id, "repo:payments"
	Branch string // "" for sources without branches
	// CommitSHA and IndexedAt are those of the SourceState the vocabulary
	// was counted for: it describes the chunks while the state still has
	// them (Current).
	CommitSHA string
	IndexedAt time.Time
	ACL       []string       // the source's ACL groups; empty means everyone
	Chunks    int            // chunks counted
	Terms     map[string]int // term -> chunks holding it; never 0
}

// NewSourceVocabulary returns an empty vocabulary of source and branch.
func NewSourceVocabulary(source, branch string, acl []string) *SourceVocabulary {
	return &SourceVocabulary{Source: source, Branch: branch, ACL: acl, Terms: map[string]int{}}
}

// Count adds the chunk whose search text is searchText (n = 1) or takes it
// away (n = -1): each of its distinct terms, but for numeric literals
// (NumericLiteral), which no question is checked for, changes by n. A term
// whose count reaches 0 is dropped.
func (v *SourceVocabulary) Count(searchText string, n int) {
	v.Chunks += n
	seen := map[string]bool{}
	for _, t := range strings.Fields(searchText) {
		if seen[t] || NumericLiteral(t) {
			continue
		}
		seen[t] = true
		if c := v.Terms[t] + n; c > 0 {
			v.Terms[t] = c
		} else {
			delete(v.Terms, t)
		}
	}
}

// Current reports whether v describes the chunks of st: counted for its
// commit and index run.
func (v *SourceVocabulary) Current(st SourceState) bool {
	return v.Source == st.Source && v.Branch == st.Branch && v.CommitSHA == st.CommitSHA && v.IndexedAt.Equal(st.IndexedAt)
}

// InScope reports whether a query with q's Sources, Branch and Groups
// searches the chunks v describes: for the groups, as the search filter has
// it, v's ACL is empty or shares one with them.
func (v *SourceVocabulary) InScope(q Query) bool {
	return (len(q.Sources) == 0 || slices.Contains(q.Sources, v.Source)) &&
		(q.Branch == "" || v.Branch == "" || v.Branch == q.Branch) &&
		(len(v.ACL) == 0 || slices.ContainsFunc(v.ACL, func(g string) bool { return slices.Contains(q.Groups, g) }))
}

// A Vocabulary is the vocabularies of every source and branch one question
// searches. It is read-only.
type Vocabulary []*SourceVocabulary

// DF is how many chunks in the vocabulary hold term.
func (v Vocabulary) DF(term string) int {
	n := 0
	for _, s := range v {
		n += s.Terms[term]
	}
	return n
}

// DocFreq is Searcher.DocFreq's answer from the vocabulary: for each entry
// of terms (a question term's word forms, inflections), an estimate of the
// chunks holding any of its forms, and the chunks counted. The sources'
// chunks are disjoint, so their counts add up. A term no chunk holds in
// any form is 0, and a term with one form present is exact, as DocFreq
// counts them; otherwise see unionEstimate. Numeric literals are not
// counted (Count): ask DocFreq for a term that is one; as a form of
// another term ("8080s") one counts for none.
func (v Vocabulary) DocFreq(terms [][]string) (df []int, total int) {
	df = make([]int, len(terms))
	for _, s := range v {
		total += s.Chunks
		for i, forms := range terms {
			df[i] += unionEstimate(s, forms)
		}
	}
	return df, total
}

// unionEstimate estimates the chunks of s holding any of forms. A
// vocabulary counts each word alone, and chunks holding one form of a term
// often hold another ("retry" and "retries"), so the union lies between
// the largest form's count (every chunk of one form holds the others) and
// the sum of the counts, at most the chunks (no chunk holds two): it is
// their midpoint, rounded up. Measured against the Aggregate's exact
// counts on the held-out, paraphrase and fresh sets it moved the ranking
// least of the largest count, the sum and the midpoint (docs/retrieval.md,
// "Term weights"). Stopwords count for nothing ("not" among the forms of
// "notes"): Weaviate's filter, as its BM25, matches none.
func unionEstimate(s *SourceVocabulary, forms []string) int {
	top, sum := 0, 0
	for _, f := range forms {
		if !EnglishStopwords[f] { // a numeric literal is not counted: 0
			top = max(top, s.Terms[f])
			sum += s.Terms[f]
		}
	}
	return (top + min(sum, s.Chunks) + 1) / 2
}

// Has reports whether any chunk holds term in one of its inflections
// (inflections), as DocFreq counts a question's terms: a stopword among
// them counts for nothing ("notes" is not held by chunks holding "not").
func (v Vocabulary) Has(term string) bool {
	return slices.ContainsFunc(inflections(term), func(f string) bool { return !EnglishStopwords[f] && v.DF(f) > 0 })
}

// A VocabularySource gives the vocabulary of the chunks a query searches;
// the Weaviate store implements it, with a cache, so that the absence
// check reads memory. It must be safe for concurrent use.
type VocabularySource interface {
	// Vocabulary returns the vocabularies of the sources and branches
	// within q's Sources, Branch and Groups (q's text and vectors are
	// ignored). ok is false when one of them has none that is Current (an
	// index built before vocabularies were stored, or by an older ragbot)
	// or none is in scope: the caller then finds absent terms another way.
	// Errors are the store's.
	Vocabulary(ctx context.Context, q Query) (v Vocabulary, ok bool, err error)
}

// ID is the vocabulary's object id: the UUIDv5 of "vocab|<source>|<branch>"
// in the namespace of chunk ids, one per source and branch as for states.
func (v *SourceVocabulary) ID() string {
	return uuid.NewSHA1(idNamespace, []byte("vocab|"+v.Source+"|"+v.Branch)).String()
}
