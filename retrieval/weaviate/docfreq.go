package weaviate

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"
)

// DocFreq counts the chunks visible to q (its Sources, Branch, Groups and
// Paths filters; q.Text and q.Vector are ignored) and, for each entry of
// terms, the chunks among them whose search_text holds any of the entry's
// words (Weaviate's ContainsAny on the word-tokenized property, so the
// counts are the document frequencies BM25 itself uses). It returns the
// counts in the order of terms and the total. Errors are Weaviate failures.
//
// Counts are reused for countTTL per filter and term, so one GraphQL
// Aggregate request counts only the terms (and the total) not counted
// within the last minute, and a question whose terms were all counted
// costs no request. Under load the Aggregate was the slowest request of a
// question (docs/evaluation.md, "Load test"). InvalidateCounts drops the counts when
// this process indexed something; chunks indexed by another process (a
// second `ragbot serve` replica, a `ragbot index` run) are counted at most
// countTTL late, which moves a term's weight by the share of its chunks
// indexed since.
func (s *Store) DocFreq(ctx context.Context, q retrieval.Query, terms [][]string) (df []int, total int, err error) {
	scope := where(q).String()
	keys := make([]string, len(terms))
	for i, words := range terms {
		keys[i] = scope + "\x00" + strings.Join(words, "\x1f")
	}
	df = make([]int, len(terms))
	total, miss, haveTotal := s.counts.get(scope, keys, df)
	if haveTotal && len(miss) == 0 {
		return df, total, nil
	}
	var b strings.Builder
	b.WriteString("{Aggregate{")
	if !haveTotal {
		fmt.Fprintf(&b, "total: %s(%s){meta{count}} ", s.chunk, scope)
	}
	inScope := where(q)
	for _, i := range miss {
		w := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
			inScope,
			filters.Where().WithPath([]string{"search_text"}).WithOperator(filters.ContainsAny).WithValueText(terms[i]...),
		})
		fmt.Fprintf(&b, "t%d: %s(%s){meta{count}} ", i, s.chunk, w.String())
	}
	b.WriteString("}}")
	epoch := s.counts.epochNow()
	resp, err := gqlResult(s.client.GraphQL().Raw().WithQuery(b.String()).Do(ctx))
	if err != nil {
		return nil, 0, fmt.Errorf("weaviate: document frequencies: %w", describe(err))
	}
	counted := make(map[string]int, len(miss))
	for _, i := range miss {
		df[i] = aggregateCount(resp.Data, fmt.Sprintf("t%d", i))
		counted[keys[i]] = df[i]
	}
	if !haveTotal {
		total = aggregateCount(resp.Data, "total")
	}
	s.counts.put(epoch, scope, total, !haveTotal, counted)
	return df, total, nil
}

// InvalidateCounts forgets every count DocFreq cached, and which
// vocabularies Vocabulary holds current, so that the next question counts
// the chunks as they are now; call it when an index run changed chunks
// (ingest.Indexer.OnRun in `ragbot serve`).
func (s *Store) InvalidateCounts() {
	s.counts.invalidate()
	s.vocabs.invalidate()
}

// countTTL is how long DocFreq reuses a count.
const countTTL = time.Minute

// countCacheMax bounds the cached term counts; past it the cache starts afresh.
const countCacheMax = 100_000

// countCache holds DocFreq's counts: the chunks of a scope (by filter) and
// of a term within a scope. The zero value is ready; safe for concurrent use.
type countCache struct {
	mu     sync.Mutex
	epoch  int                   // bumped by invalidate: counts begun before it are not stored
	totals map[string]countEntry // scope -> chunks in it
	terms  map[string]countEntry // scope + "\x00" + term words -> chunks holding any
}

type countEntry struct {
	n  int
	at time.Time
}

// get fills df with the cached counts of keys and returns the scope's
// total, the indexes of keys not cached, and whether the total was.
func (c *countCache) get(scope string, keys []string, df []int) (total int, miss []int, haveTotal bool) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	t, ok := c.totals[scope]
	haveTotal = ok && now.Sub(t.at) < countTTL
	for i, k := range keys {
		if e, ok := c.terms[k]; ok && now.Sub(e.at) < countTTL {
			df[i] = e.n
		} else {
			miss = append(miss, i)
		}
	}
	return t.n, miss, haveTotal
}

func (c *countCache) epochNow() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.epoch
}

// put stores counts made by a request begun at epoch, unless an
// invalidation came since (they may predate the run that caused it).
func (c *countCache) put(epoch int, scope string, total int, withTotal bool, terms map[string]int) {
	now := time.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if epoch != c.epoch {
		return
	}
	if c.totals == nil || len(c.totals) > 1000 {
		c.totals = map[string]countEntry{}
	}
	if c.terms == nil || len(c.terms)+len(terms) > countCacheMax {
		c.terms = map[string]countEntry{}
	}
	if withTotal {
		c.totals[scope] = countEntry{n: total, at: now}
	}
	for k, n := range terms {
		c.terms[k] = countEntry{n: n, at: now}
	}
}

func (c *countCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.totals, c.terms = nil, nil
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
