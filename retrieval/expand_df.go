package retrieval

import (
	"context"
	"strings"
	"sync"
	"time"
)

// dfTTL is how long an Expander reuses a term's document frequency in one
// access scope: expansion weighs dozens of candidate terms per question,
// and counting each costs Weaviate 2-9 ms (Store.DocFreq); a count ten
// minutes old only misses the chunks indexed since.
const dfTTL = 10 * time.Minute

// dfCacheMax bounds the cached counts; past it the cache starts afresh.
const dfCacheMax = 200_000

// dfCache holds document frequencies of exact terms per access scope. The
// zero value is ready to use; safe for concurrent use.
type dfCache struct {
	mu sync.Mutex
	m  map[string]dfEntry // scope key + "\x00" + term
}

type dfEntry struct {
	df, total int
	at        time.Time
}

// scopeKey identifies r's access scope: what DocFreq's filters read.
func scopeKey(r Request) string {
	return strings.Join(r.Sources, ",") + "|" + strings.Join(r.Groups, ",") + "|" + r.Branch
}

// lookup returns the number of chunks in r's scope whose search text holds
// each of terms exactly (in their order), and the number of chunks in the
// scope, counting those not cached in one Store.DocFreq request.
func (c *dfCache) lookup(ctx context.Context, s Searcher, r Request, terms []string) (df []int, total int, err error) {
	scope := scopeKey(r) + "\x00"
	now := time.Now()
	df = make([]int, len(terms))
	var miss []int
	c.mu.Lock()
	for i, t := range terms {
		if e, ok := c.m[scope+t]; ok && now.Sub(e.at) < dfTTL {
			df[i], total = e.df, max(total, e.total)
		} else {
			miss = append(miss, i)
		}
	}
	c.mu.Unlock()
	if len(miss) == 0 {
		return df, total, nil
	}
	forms := make([][]string, len(miss))
	for j, i := range miss {
		forms[j] = []string{terms[i]}
	}
	counts, n, err := s.DocFreq(ctx, Query{Sources: r.Sources, Groups: r.Groups, Branch: r.Branch}, forms)
	if err != nil {
		return nil, 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) > dfCacheMax {
		c.m = map[string]dfEntry{}
	}
	for j, i := range miss {
		df[i] = counts[j]
		c.m[scope+terms[i]] = dfEntry{df: counts[j], total: n, at: now}
	}
	return df, max(total, n), nil
}
