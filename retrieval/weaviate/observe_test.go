package weaviate_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestObserve: a store with StoreConfig.Observe reports each request to a
// real Weaviate with its kind and a positive duration, none as failed.
func TestObserve(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	seen := map[string]int{}
	failed := map[string]int{}
	observe := func(kind string, d time.Duration, bad bool) {
		mu.Lock()
		defer mu.Unlock()
		seen[kind]++
		if bad {
			failed[kind]++
		}
		if d <= 0 {
			t.Errorf("%s request took %v", kind, d)
		}
	}
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: weaviatetest.ClassName(), Observe: observe}, embed.OfflineName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	emb := embed.NewOffline()
	c := retrieval.Chunk{Source: "repo:x", Path: "a.go", StartLine: 1, EndLine: 3, Kind: retrieval.KindCode, Symbol: "RetryOn503",
		Content: "func RetryOn503() {}", CommitSHA: "0123456789012345678901234567890123456789", Branch: "main", IndexedAt: time.Now()}
	vecs, err := emb.Embed(ctx, []string{c.Content})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Upsert(ctx, []retrieval.Chunk{c}, vecs); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Count(ctx, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Search(ctx, retrieval.Query{Text: "RetryOn503", Vector: vecs[0], Alpha: 0.5, Limit: 3}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, k := range []string{weaviate.RequestSchema, weaviate.RequestBatch, weaviate.RequestAggregate, weaviate.RequestSearch} {
		if seen[k] == 0 {
			t.Errorf("no %s request observed; saw %v", k, seen)
		}
	}
	if len(failed) > 0 {
		t.Errorf("requests reported failed: %v", failed)
	}
}
