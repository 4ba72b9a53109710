package retrieval

import "context"

// OnlySources restricts the searches of s to the sources ids (source ids,
// "repo:payments"): a query that names no source gets ids as its source
// filter, inside the one query, so that the chunks of a source taken out
// of the config are never an answer, nor counted in the coverage
// statistics (DocFreq), before they are pruned. A query that names
// sources is passed on as it is. The result is a Searcher only: a
// MultiSearcher's SearchAll is not passed on, so its queries go one by one.
func OnlySources(s Searcher, ids []string) Searcher {
	return sourceScoped{Searcher: s, ids: ids}
}

// sourceScoped is OnlySources' Searcher.
type sourceScoped struct {
	Searcher
	ids []string
}

// scoped is q with ids as its sources when it names none.
func scoped(q Query, ids []string) Query {
	if len(q.Sources) == 0 {
		q.Sources = ids
	}
	return q
}

func (c sourceScoped) Search(ctx context.Context, q Query) ([]Hit, error) {
	return c.Searcher.Search(ctx, scoped(q, c.ids))
}

func (c sourceScoped) DocFreq(ctx context.Context, q Query, terms [][]string) ([]int, int, error) {
	return c.Searcher.DocFreq(ctx, scoped(q, c.ids), terms)
}

// OnlySourcesVocabulary is OnlySources for the vocabularies the absence check
// reads (Asker.Vocabularies): a query that names no source reads those of the
// sources ids, so that a source taken out of the config neither makes a word
// present nor, lacking a vocabulary, turns the check off.
func OnlySourcesVocabulary(v VocabularySource, ids []string) VocabularySource {
	return vocabScoped{v: v, ids: ids}
}

// vocabScoped is OnlySourcesVocabulary's VocabularySource.
type vocabScoped struct {
	v   VocabularySource
	ids []string
}

func (c vocabScoped) Vocabulary(ctx context.Context, q Query) (Vocabulary, bool, error) {
	return c.v.Vocabulary(ctx, scoped(q, c.ids))
}
