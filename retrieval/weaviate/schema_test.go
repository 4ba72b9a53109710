package weaviate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// Several processes starting at once on a fresh Weaviate all race to create
// the same collections; every one must open them.
func TestOpenStoreConcurrentCreate(t *testing.T) {
	url := weaviatetest.URL(t)
	class := weaviatetest.ClassName()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	const n = 8
	ctx := context.Background()
	var (
		wg     sync.WaitGroup
		start  = make(chan struct{})
		errs   = make([]error, n)
		stores = make([]*weaviate.Store, n)
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			s, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: url, ChunkClass: class, Logger: logger}, "hash-v1")
			if err == nil {
				_, err = s.OpenFeedback(ctx)
			}
			stores[i], errs[i] = s, err
		}()
	}
	close(start)
	wg.Wait()
	t.Cleanup(func() {
		for _, s := range stores {
			if s != nil {
				if err := s.Drop(context.Background()); err != nil {
					t.Errorf("drop: %v", err)
				}
				fb, err := s.OpenFeedback(context.Background())
				if err == nil {
					_ = fb.Drop(context.Background())
				}
				return
			}
		}
	})
	for i, err := range errs {
		if err != nil {
			t.Errorf("opener %d: %v", i, err)
		}
	}
	// The collection the race produced is checked like any existing one: a
	// different embedder is still refused.
	if _, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: url, ChunkClass: class, Logger: logger}, "other-v1"); err == nil {
		t.Errorf("open with another embedder: want ErrEmbedderMismatch, got nil")
	}
}

// A chunk collection made before refs existed gets the property when a
// store opens it, and refs then filter searches.
func TestOpenStoreAddsRefs(t *testing.T) {
	ctx := context.Background()
	base, key := weaviatetest.Direct(t)
	class := weaviatetest.ClassName()
	flat := map[string]any{"vectorIndexType": "flat", "vectorizer": map[string]any{"none": map[string]any{}}}
	legacy, _ := json.Marshal(map[string]any{"class": class, "description": "ragbot chunks; embedder=hash-v1",
		"vectorConfig": map[string]any{"lexical": flat, "semantic": flat},
		"properties": []map[string]any{{"name": "source", "dataType": []string{"text"}, "tokenization": "field"},
			{"name": "acl", "dataType": []string{"text[]"}, "tokenization": "field"}}})
	call := func(method, path string, body []byte) []byte {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: HTTP %d %s", method, path, resp.StatusCode, out)
		}
		return out
	}
	call(http.MethodPost, "/v1/schema", legacy)
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class}, "hash-v1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	var got struct {
		Properties []struct {
			Name, Tokenization string
			IndexSearchable    *bool
		}
	}
	if err := json.Unmarshal(call(http.MethodGet, "/v1/schema/"+class, nil), &got); err != nil {
		t.Fatal(err)
	}
	added := false
	for _, p := range got.Properties {
		added = added || p.Name == "refs" && p.Tokenization == "lowercase" && p.IndexSearchable != nil && !*p.IndexSearchable
	}
	if !added {
		t.Fatalf("after OpenStore the collection's properties are %+v, want refs (lowercase, not searchable)", got.Properties)
	}
	now := time.Now()
	c := retrieval.Chunk{Source: "repo:a", Kind: retrieval.KindCode, Path: "a.go", Symbol: "open", Content: "func open() { newStore() }",
		StartLine: 1, EndLine: 1, IndexedAt: now, ModifiedAt: now, Refs: []string{"newStore"}}
	if err := store.Upsert(ctx, []retrieval.Chunk{c}, [][]float32{make([]float32, 4)}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		refs string
		want int
	}{{"newstore", 1}, {"newStore", 1}, {"newStor", 0}} {
		hits, err := store.Search(ctx, retrieval.Query{Text: "open", Limit: 5, Refs: []string{tt.refs}})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != tt.want {
			t.Errorf("refs %q: %d hits, want %d", tt.refs, len(hits), tt.want)
		}
	}
}

// A chunk collection made before calls, types and package existed gets them when a
// store opens it, and a chunk's resolved calls are read back by searches.
func TestOpenStoreAddsCalls(t *testing.T) {
	ctx := context.Background()
	base, key := weaviatetest.Direct(t)
	class := weaviatetest.ClassName()
	flat := map[string]any{"vectorIndexType": "flat", "vectorizer": map[string]any{"none": map[string]any{}}}
	legacy, _ := json.Marshal(map[string]any{"class": class, "description": "ragbot chunks; embedder=hash-v1",
		"vectorConfig": map[string]any{"lexical": flat, "semantic": flat},
		"properties": []map[string]any{{"name": "source", "dataType": []string{"text"}, "tokenization": "field"},
			{"name": "acl", "dataType": []string{"text[]"}, "tokenization": "field"}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/v1/schema", bytes.NewReader(legacy))
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("create legacy collection: HTTP %d", resp.StatusCode)
	}
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class}, "hash-v1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	now := time.Now()
	c := retrieval.Chunk{Source: "repo:a", Kind: retrieval.KindCode, Path: "a.go", Symbol: "open", Content: "func open() { p.Do() }",
		StartLine: 3, EndLine: 3, IndexedAt: now, ModifiedAt: now, Refs: []string{"Do", "Policy.Do"},
		Calls: []string{"retry.Policy.Do@3"}, Types: retrieval.TypesResolved, Package: "retry"}
	if err := store.Upsert(ctx, []retrieval.Chunk{c}, [][]float32{make([]float32, 4)}); err != nil {
		t.Fatal(err)
	}
	hits, err := store.Search(ctx, retrieval.Query{Text: "open", Limit: 5, Refs: []string{"policy.do"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 {
		t.Fatalf("refs policy.do: %d hits, want 1", len(hits))
	}
	got := hits[0].Chunk
	if diff := cmp.Diff([]string{"retry.Policy.Do@3"}, got.Calls); diff != "" || got.Types != retrieval.TypesResolved || got.Package != "retry" {
		t.Errorf("calls (-want +got):\n%s\ntypes %q, package %q; want %q, retry", diff, got.Types, got.Package, retrieval.TypesResolved)
	}
}
