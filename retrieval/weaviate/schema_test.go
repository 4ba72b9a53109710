package weaviate_test

import (
	"context"
	"log/slog"
	"os"
	"sync"
	"testing"

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
