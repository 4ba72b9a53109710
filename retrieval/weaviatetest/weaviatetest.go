// Package weaviatetest gives tests a real Weaviate: the server that .ci/run
// started (RAGBOT_TEST_WEAVIATE_URL), or one weaviate-server per test package
// started by TestMain, and a fresh collection per test.
package weaviatetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

// url is the server of this test binary ("" when none could be had).
var (
	url     string
	whyNone string
)

// Main runs m with a Weaviate available, then stops the server it started.
// Use it as `func TestMain(m *testing.M) { weaviatetest.Main(m) }`. Without a
// weaviate-server binary, tests that need one skip locally and fail on CI
// (CI=true), so a missing install step cannot pass unnoticed.
func Main(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if u := os.Getenv("RAGBOT_TEST_WEAVIATE_URL"); u != "" {
		url = strings.TrimRight(u, "/")
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "ragbot-weaviate-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := weaviatelocal.Start(ctx, weaviatelocal.Options{DataDir: dir, Logger: logger})
	if err != nil {
		whyNone = err.Error()
	} else {
		url = srv.URL
		defer srv.Stop(context.Background())
	}
	return m.Run()
}

// URL returns the Weaviate base URL, skipping the test (failing it on CI)
// when there is none.
func URL(t testing.TB) string {
	t.Helper()
	if url == "" {
		msg := "no Weaviate for this test: " + whyNone
		if whyNone == "" {
			msg = "no Weaviate: call weaviatetest.Main from TestMain"
		}
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return url
}

// NewStore opens a store on a collection unique to this test, dropped when
// the test ends.
func NewStore(t testing.TB, embedder string) *weaviate.Store {
	t.Helper()
	ctx := context.Background()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{
		URL: URL(t), ChunkClass: ClassName(), Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}, embedder)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() {
		if err := store.Drop(context.Background()); err != nil {
			t.Errorf("drop test collection: %v", err)
		}
	})
	return store
}

// ClassName returns a fresh collection name, "T" plus 16 hex digits.
func ClassName() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "T" + hex.EncodeToString(b[:])
}
