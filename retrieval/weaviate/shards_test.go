package weaviate_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestShards: StoreConfig.Shards is the chunk collection's shard count at
// creation (GET /v1/schema/{class}/shards lists that many, here all on the
// single test node), chunks written to it are all found again, and opening
// it with another count is refused naming weaviate.shards, while 0 (the
// default) accepts it.
func TestShards(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	class := weaviatetest.ClassName()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class, Shards: 3}, emb.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })

	base, key := weaviatetest.Direct(t)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/schema/"+class+"/shards", nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var shards []struct {
		Name   string `json:"name"`
		Status string `json:"status"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&shards); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /v1/schema/%s/shards: status %d, %v", class, resp.StatusCode, err)
	}
	if len(shards) != 3 {
		t.Errorf("collection created with Shards 3 has %d shards: %+v", len(shards), shards)
	}

	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	n, err := store.Count(ctx, "")
	if err != nil || n != len(corpus) {
		t.Errorf("count over 3 shards: %d (%v), want %d", n, err, len(corpus))
	}
	v, _ := emb.Embed(ctx, []string{"findByEmail"})
	hits, err := store.Search(ctx, retrieval.Query{Text: "findByEmail", Vector: v[0], Alpha: 0.5, Limit: 3})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Chunk.Symbol, "findByEmail") {
		t.Errorf("search over 3 shards: %d hits (%v), want findByEmail first", len(hits), err)
	}

	_, err = weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class, Shards: 2}, emb.Name())
	if !errors.Is(err, weaviate.ErrShardsMismatch) || !strings.Contains(err.Error(), "has 3 shards, weaviate.shards is 2") {
		t.Errorf("open with Shards 2: err = %v, want ErrShardsMismatch naming weaviate.shards", err)
	}
	if _, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class}, emb.Name()); err != nil {
		t.Errorf("open with Shards 0: %v", err)
	}
	if _, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class, Shards: -1}, emb.Name()); err == nil {
		t.Error("open with Shards -1: no error")
	}
}
