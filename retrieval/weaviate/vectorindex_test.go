package weaviate_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// vectorIndexTypes reads the vectorIndexType of each named vector of class
// from the schema.
func vectorIndexTypes(t *testing.T, class string) map[string]string {
	t.Helper()
	got, err := rawClient(t).Schema().ClassGetter().WithClassName(class).Do(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for name, vc := range got.VectorConfig {
		out[name] = vc.VectorIndexType
	}
	return out
}

// TestVectorIndex: the chunk collection's two named vectors get flat
// indexes unless StoreConfig.VectorIndex says hnsw; chunks are found in
// either; reopening with the other type set is refused naming
// weaviate.vector_index, with none set it is accepted.
func TestVectorIndex(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	for _, tt := range []struct{ set, want, other string }{
		{set: "", want: "flat", other: "hnsw"},
		{set: "hnsw", want: "hnsw", other: "flat"},
	} {
		class := weaviatetest.ClassName()
		store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class, VectorIndex: tt.set}, emb.Name())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Drop(context.Background()) })
		types := vectorIndexTypes(t, class)
		if types[weaviate.VectorLexical] != tt.want || types[weaviate.VectorSemantic] != tt.want {
			t.Errorf("VectorIndex %q: created %v, want %s for both named vectors", tt.set, types, tt.want)
		}
		if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
			t.Fatal(err)
		}
		v, _ := emb.Embed(ctx, []string{"findByEmail"})
		hits, err := store.Search(ctx, retrieval.Query{Text: "findByEmail", Vector: v[0], Alpha: 1, Limit: 3})
		if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Chunk.Symbol, "findByEmail") {
			t.Errorf("VectorIndex %q: vector search gave %d hits (%v), want findByEmail first", tt.set, len(hits), err)
		}
		_, err = weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class, VectorIndex: tt.other}, emb.Name())
		if !errors.Is(err, weaviate.ErrVectorIndexMismatch) || !strings.Contains(err.Error(), "weaviate.vector_index is "+tt.other) {
			t.Errorf("reopen %s collection with %q: err = %v, want ErrVectorIndexMismatch naming weaviate.vector_index", tt.want, tt.other, err)
		}
		if _, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class}, emb.Name()); err != nil {
			t.Errorf("reopen %s collection with none set: %v", tt.want, err)
		}
	}
	if _, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: weaviatetest.ClassName(), VectorIndex: "dynamic"}, emb.Name()); err == nil {
		t.Error("VectorIndex dynamic: no error")
	}
}
