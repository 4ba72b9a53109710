package connect_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/config/configtest"
	"github.com/ragbot/ragbot/internal/connect"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

// load loads a config of one git source whose weaviate section is
// weaviateYAML (indented by two spaces) and whose embedder is kind, with
// no semantic embedder.
func load(t *testing.T, weaviateYAML, kind string) *config.Config {
	t.Helper()
	body := fmt.Sprintf("weaviate:\n%sembedder:\n  kind: %s\n  semantic:\n    kind: none\nsources:\n  - name: app\n    kind: git\n    path: %s\n",
		weaviateYAML, kind, t.TempDir())
	return configtest.Load(t, "", body)
}

// open opens cfg's store with its embedder as opt says.
func open(t *testing.T, cfg *config.Config, opt connect.Options) (*connect.Conn, error) {
	t.Helper()
	emb, err := embedders.New(context.Background(), cfg.Embedder, cfg.Resolve)
	if err != nil {
		t.Fatal(err)
	}
	return connect.Open(context.Background(), cfg, emb, opt)
}

// dropAfter drops the collections of cfg when the test ends.
func dropAfter(t *testing.T, cfg *config.Config) {
	t.Cleanup(func() {
		sc := weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: cfg.Weaviate.Collection}
		if err := weaviate.DropCollections(context.Background(), sc); err != nil {
			t.Errorf("drop %s: %v", cfg.Weaviate.Collection, err)
		}
	})
}

// TestOpenEmbedderChange: the configured URL is used; a collection of
// another embedder is refused, except by an index run with the codesearch
// embedder, which recreates it and says so, and by Recreate.
func TestOpenEmbedderChange(t *testing.T) {
	wv := fmt.Sprintf("  url: %s\n  collection: %s\n", weaviatetest.URL(t), weaviatetest.ClassName())
	offline, codesearch := load(t, wv, "offline"), load(t, wv, "codesearch")
	dropAfter(t, offline)
	c, err := open(t, offline, connect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if got, want := c.Store.ChunkClass(), offline.Weaviate.Collection; got != want {
		t.Errorf("ChunkClass = %q, want %q", got, want)
	}

	if _, err := open(t, codesearch, connect.Options{}); !errors.Is(err, weaviate.ErrEmbedderMismatch) {
		t.Errorf("another embedder, not indexing: %v, want ErrEmbedderMismatch", err)
	}
	var notices bytes.Buffer
	if _, err := open(t, codesearch, connect.Options{Indexing: true, Notices: &notices}); err != nil {
		t.Fatalf("another embedder, indexing with codesearch: %v", err)
	}
	if !strings.Contains(notices.String(), "re-embedding every source with codesearch-v1-") {
		t.Errorf("notices %q do not say the collection is embedded anew", notices.String())
	}
	if _, err := open(t, offline, connect.Options{Indexing: true}); !errors.Is(err, weaviate.ErrEmbedderMismatch) {
		t.Errorf("another embedder, indexing with offline: %v, want ErrEmbedderMismatch", err)
	}
	if _, err := open(t, offline, connect.Options{Indexing: true, Recreate: true}); err != nil {
		t.Errorf("Recreate: %v", err)
	}
}

// TestOpenLocal: without a URL, a server answering on weaviate.port is
// used as it is (the binary named cannot start, so nothing else can).
func TestOpenLocal(t *testing.T) {
	u, err := url.Parse(weaviatetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg := load(t, fmt.Sprintf("  port: %s\n  collection: %s\n  binary: %s\n", u.Port(), weaviatetest.ClassName(), filepath.Join(t.TempDir(), "none")), "offline")
	dropAfter(t, cfg)
	var notices bytes.Buffer
	c, err := open(t, cfg, connect.Options{Notices: &notices})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if notices.Len() > 0 {
		t.Errorf("notices %q, want none: the running server is used", notices.String())
	}
}

// TestOpenUnreachable: with no node answering, the error names every node
// and how to start one.
func TestOpenUnreachable(t *testing.T) {
	// Ports 1 and 2 are closed on any test machine; nothing is started.
	cfg := load(t, "  urls: [http://127.0.0.1:1, http://127.0.0.1:2]\n", "offline")
	_, err := open(t, cfg, connect.Options{})
	want := "cannot reach Weaviate at http://127.0.0.1:1, http://127.0.0.1:2: is it running? (`ragbot weaviate`)"
	if err == nil || err.Error() != want {
		t.Errorf("Open = %v, want %q", err, want)
	}
}
