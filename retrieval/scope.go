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

func (c sourceScoped) Search(ctx context.Context, q Query) ([]Hit, error) {
	if len(q.Sources) == 0 {
		q.Sources = c.ids
	}
	return c.Searcher.Search(ctx, q)
}

func (c sourceScoped) DocFreq(ctx context.Context, q Query, terms [][]string) ([]int, int, error) {
	if len(q.Sources) == 0 {
		q.Sources = c.ids
	}
	return c.Searcher.DocFreq(ctx, q, terms)
}
