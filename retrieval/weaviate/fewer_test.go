package weaviate_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// countingStore opens a store on a fresh collection holding corpus, and
// returns it with a function that returns, and resets, the requests made
// since, by kind.
func countingStore(t *testing.T) (*weaviate.Store, retrieval.Embedder, func() map[string]int) {
	t.Helper()
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[string]int{}
	observe := func(kind string, _ time.Duration, _ bool) {
		mu.Lock()
		seen[kind]++
		mu.Unlock()
	}
	emb := embed.NewOffline()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: weaviatetest.ClassName(), Observe: observe}, emb.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	take := func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = map[string]int{}
		return out
	}
	take()
	return store, emb, take
}

// SearchAll runs a question's hybrid query and its lookups in one request
// and returns for each what Search returns for it alone.
func TestSearchAllMatchesSearch(t *testing.T) {
	ctx := context.Background()
	store, emb, requests := countingStore(t)
	v, err := emb.Embed(ctx, []string{"where is findByEmail"})
	if err != nil {
		t.Fatal(err)
	}
	qs := []retrieval.Query{
		{Text: "where is findByEmail", Vector: v[0], Alpha: 0.3, Limit: 10, Sources: []string{"repo:shop"}},
		{Text: "findByEmail find by email", Properties: []string{"symbol"}, Limit: 10, Sources: []string{"repo:shop"}},
		{Text: "where is findByEmail", Limit: 20, Paths: []string{"src/main/java/UserRepository.java"}},
		{Text: "503 service unavailable", Properties: []string{"search_text"}, Limit: 10, Groups: []string{"finance"}},
		{Text: "nothing matches zzzqx", Properties: []string{"search_text"}, Limit: 10},
	}
	got, err := store.SearchAll(ctx, qs)
	if err != nil {
		t.Fatal(err)
	}
	if r := requests(); r[weaviate.RequestSearch] != 1 || len(r) != 1 {
		t.Errorf("SearchAll of %d queries made requests %v, want one search", len(qs), r)
	}
	if len(got) != len(qs) {
		t.Fatalf("SearchAll returned %d lists for %d queries", len(got), len(qs))
	}
	for i, q := range qs {
		want, err := store.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got[i]); diff != "" {
			t.Errorf("query %d (%q): SearchAll differs from Search (-Search +SearchAll):\n%s", i, q.Text, diff)
		}
	}
	if len(got[0]) == 0 || got[0][0].Chunk.Symbol != "UserRepository.findByEmail" || len(got[4]) != 0 {
		t.Errorf("unexpected hits: first query %d hits, last %d", len(got[0]), len(got[4]))
	}
	if _, err := store.SearchAll(ctx, []retrieval.Query{qs[0], {Text: "x", Limit: 0}}); err == nil {
		t.Error("SearchAll with a limit of 0 succeeded")
	}
}

// DocFreq counts a term once per minute and scope; InvalidateCounts makes it
// count again, seeing chunks indexed since.
func TestDocFreqReusesCounts(t *testing.T) {
	ctx := context.Background()
	store, emb, requests := countingStore(t)
	shop := retrieval.Query{Sources: []string{"repo:shop"}}
	check := func(q retrieval.Query, terms [][]string, wantDF []int, wantN, wantAggregates int) {
		t.Helper()
		df, n, err := store.DocFreq(ctx, q, terms)
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(df, wantDF) || n != wantN {
			t.Errorf("DocFreq(%v) = %v, %d; want %v, %d", terms, df, n, wantDF, wantN)
		}
		if got := requests()[weaviate.RequestAggregate]; got != wantAggregates {
			t.Errorf("DocFreq(%v) made %d Aggregate requests, want %d", terms, got, wantAggregates)
		}
	}
	check(shop, [][]string{{"retry"}, {"email", "emails"}}, []int{1, 1}, 3, 1)
	check(shop, [][]string{{"email", "emails"}, {"retry"}}, []int{1, 1}, 3, 0) // all cached
	check(shop, [][]string{{"retry"}, {"cancel"}}, []int{1, 1}, 3, 1)          // one term new
	check(retrieval.Query{}, [][]string{{"retry"}}, []int{1}, 3, 1)            // another scope
	check(shop, [][]string{{"email"}, {"emails"}}, []int{1, 0}, 3, 1)          // other forms are other terms
	more := []retrieval.Chunk{codeChunk("repo:shop", "retry/policy.go", "Policy.Retry", "// Retry again after a delay.\nfunc (p Policy) Retry() {}", 1, 2)}
	if err := store.Upsert(ctx, more, embedAll(t, emb, more)); err != nil {
		t.Fatal(err)
	}
	requests()
	check(shop, [][]string{{"retry"}}, []int{1}, 3, 0) // within the minute: the cached count
	store.InvalidateCounts()
	check(shop, [][]string{{"retry"}}, []int{2}, 4, 1)
}
