package weaviate_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// recordingProxy forwards to the real Weaviate at target and records each
// request's method, URL and body.
type recordingProxy struct {
	mu   sync.Mutex
	reqs []string // "METHOD /path?query body"
}

func (p *recordingProxy) start(t *testing.T, target string) string {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		p.mu.Lock()
		p.reqs = append(p.reqs, r.Method+" "+r.URL.RequestURI()+" "+string(body))
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

func (p *recordingProxy) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.reqs
	p.reqs = nil
	return out
}

// TestConsistencyLevelSent: batch writes carry the configured consistency
// level to Weaviate, searches of a one-replica collection none (a
// single-node test server cannot hold a replicated one); collections get the
// configured replication factor.
func TestConsistencyLevelSent(t *testing.T) {
	ctx := context.Background()
	var proxy recordingProxy
	emb := embed.NewOffline()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: proxy.start(t, weaviatetest.URL(t)), ChunkClass: weaviatetest.ClassName(),
		ConsistencyLevel: weaviate.ConsistencyAll}, emb.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	for _, r := range proxy.take() {
		if strings.HasPrefix(r, "POST /v1/schema ") && !strings.Contains(r, `"replicationConfig":{`) {
			t.Errorf("collection created without replicationConfig: %.300s", r)
		}
	}

	if err := store.Upsert(ctx, corpus, embedAll(t, emb, corpus)); err != nil {
		t.Fatal(err)
	}
	v, _ := emb.Embed(ctx, []string{"findByEmail"})
	if _, err := store.Search(ctx, retrieval.Query{Text: "findByEmail", Vector: v[0], Alpha: 0.5, Limit: 3}); err != nil {
		t.Fatal(err)
	}
	var batch, search bool
	for _, r := range proxy.take() {
		switch {
		case strings.HasPrefix(r, "POST /v1/batch/objects"):
			batch = true
			if !strings.Contains(r, "consistency_level=ALL") {
				t.Errorf("batch write without consistency_level=ALL: %.200s", r)
			}
		case strings.HasPrefix(r, "POST /v1/graphql") && strings.Contains(r, "hybrid"):
			// Weaviate's GraphQL takes consistencyLevel only on replicated
			// classes (factor > 1); with one replica none is sent.
			search = true
			if strings.Contains(r, "consistencyLevel") {
				t.Errorf("search of a one-replica collection sends consistencyLevel: %.400s", r)
			}
		}
	}
	if !batch || !search {
		t.Errorf("saw batch write %v, search %v; want both", batch, search)
	}
}

// TestReplicationFactorMismatch: a collection created with one replication
// factor is not silently used with another; the error names the setting.
func TestReplicationFactorMismatch(t *testing.T) {
	ctx := context.Background()
	store := weaviatetest.NewStore(t, "hash-v1") // factor 1
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	_, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: store.ChunkClass(),
		ReplicationFactor: 3, Logger: logger}, "hash-v1")
	if !errors.Is(err, weaviate.ErrReplicationMismatch) || !strings.Contains(err.Error(), "weaviate.replication_factor") {
		t.Fatalf("open with replication factor 3: err = %v, want ErrReplicationMismatch naming weaviate.replication_factor", err)
	}
	if _, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: store.ChunkClass(),
		ReplicationFactor: 1, ConsistencyLevel: weaviate.ConsistencyQuorum, Logger: logger}, "hash-v1"); err != nil {
		t.Errorf("open with the same factor: %v", err)
	}
	if _, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: store.ChunkClass(),
		ConsistencyLevel: "MOST", Logger: logger}, "hash-v1"); err == nil || !strings.Contains(err.Error(), "consistency level") {
		t.Errorf("open with consistency level MOST: err = %v, want a consistency level error", err)
	}
}
