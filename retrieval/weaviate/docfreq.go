package weaviate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"
)

// DocFreq counts, in one GraphQL request, the chunks visible to q (its
// Sources, Branch, Groups and Paths filters; q.Text and q.Vector are
// ignored) and, for each entry of terms, the chunks among them whose
// search_text holds any of the entry's words (Weaviate's ContainsAny on the
// word-tokenized property, so the counts are the document frequencies BM25
// itself uses). It returns the counts in the order of terms and the total.
// Errors are Weaviate failures.
//
// The total is counted at most once per totalTTL for the same filter:
// counting every chunk of a large scope is the slow part (about 25 ms for
// 3,754 chunks, against 2-9 ms per term), and a total a minute old only
// moves the weights by the share of chunks indexed since.
func (s *Store) DocFreq(ctx context.Context, q retrieval.Query, terms [][]string) (df []int, total int, err error) {
	scope := where(q).String()
	s.totalsMu.Lock()
	cached, ok := s.totals[scope]
	s.totalsMu.Unlock()
	ok = ok && time.Since(cached.at) < totalTTL
	var b strings.Builder
	b.WriteString("{Aggregate{")
	if !ok {
		fmt.Fprintf(&b, "total: %s(%s){meta{count}} ", s.chunk, scope)
	}
	inScope := where(q)
	for i, words := range terms {
		w := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
			inScope,
			filters.Where().WithPath([]string{"search_text"}).WithOperator(filters.ContainsAny).WithValueText(words...),
		})
		fmt.Fprintf(&b, "t%d: %s(%s){meta{count}} ", i, s.chunk, w.String())
	}
	b.WriteString("}}")
	resp, err := s.client.GraphQL().Raw().WithQuery(b.String()).Do(ctx)
	if err == nil {
		err = gqlErrors(resp)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("weaviate: document frequencies: %w", describe(err))
	}
	df = make([]int, len(terms))
	for i := range terms {
		df[i] = aggregateCount(resp.Data, fmt.Sprintf("t%d", i))
	}
	if ok {
		return df, cached.n, nil
	}
	total = aggregateCount(resp.Data, "total")
	s.totalsMu.Lock()
	if s.totals == nil || len(s.totals) > 1000 {
		s.totals = map[string]scopeTotal{}
	}
	s.totals[scope] = scopeTotal{n: total, at: time.Now()}
	s.totalsMu.Unlock()
	return df, total, nil
}

// totalTTL is how long DocFreq reuses a scope's chunk count.
const totalTTL = time.Minute

type scopeTotal struct {
	n  int
	at time.Time
}

// aggregateCount reads meta.count of the Aggregate result named alias (the
// class name, or the alias given in the query) from a GraphQL response's
// data; 0 when absent.
func aggregateCount(data map[string]models.JSONObject, alias string) int {
	agg, _ := data["Aggregate"].(map[string]any)
	list, _ := agg[alias].([]any)
	if len(list) == 0 {
		return 0
	}
	m, _ := list[0].(map[string]any)
	meta, _ := m["meta"].(map[string]any)
	n, _ := meta["count"].(float64)
	return int(n)
}
