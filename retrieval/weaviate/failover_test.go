package weaviate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestFailoverSkipsRefusedNode: with a first URL that refuses connections
// and the real Weaviate listed after it, the store opens, writes (bodies
// re-sent to the next node) and searches; with no node accepting, the
// error says so.
func TestFailoverSkipsRefusedNode(t *testing.T) {
	ctx := context.Background()
	dead := "http://127.0.0.1:1" // nothing listens on port 1
	emb := embed.NewOffline()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: dead, Failover: []string{weaviatetest.URL(t)},
		ChunkClass: weaviatetest.ClassName()}, emb.Name())
	if err != nil {
		t.Fatalf("open with a dead first node: %v", err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatalf("upsert with a dead first node: %v", err)
	}
	v, _ := emb.Embed(ctx, []string{"findByEmail"})
	hits, err := store.Search(ctx, retrieval.Query{Text: "findByEmail", Vector: v[0], Alpha: 0.5, Limit: 3})
	if err != nil || len(hits) == 0 {
		t.Fatalf("search with a dead first node: %d hits, %v", len(hits), err)
	}
	if err := store.Ready(ctx); err != nil {
		t.Errorf("Ready with a dead first node: %v", err)
	}

	_, err = weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: dead, Failover: []string{"http://127.0.0.1:2"},
		ChunkClass: weaviatetest.ClassName()}, emb.Name())
	if err == nil || !strings.Contains(err.Error(), "no Weaviate node accepts connections") {
		t.Errorf("open with every node refusing: err = %v", err)
	}
}
