package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestAskSemanticDown: with embedder.semantic of kind openai indexed while
// its endpoint answered, `ragbot ask` still answers, within 3 s and with
// the warning "semantic search unavailable: answered from keywords", when
// the endpoint then answers 503 to everything, and when it hangs. `ragbot
// index` of a new commit while it answers 503 stores the changed chunks
// with their semantic vectors pending, and the run after it is back embeds
// them.
func TestAskSemanticDown(t *testing.T) {
	var mode atomic.Value // "ok", "503" or "hang"
	mode.Store("ok")
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch mode.Load() {
		case "503":
			http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
			return
		case "hang":
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		var req struct{ Input []string }
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			v := []float32{0.1, float32(strings.Count(in, "retry")), float32(strings.Count(in, "backoff"))}
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the hanging handlers
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	class := weaviatetest.ClassName()
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	yaml := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: httpx, kind: git, path: %s}\n"+
		"embedder:\n  kind: offline\n  semantic: {kind: openai, base_url: %s/v1, model: fake-sem, timeout: 30s}\n",
		weaviatetest.URL(t), class, repo, srv.URL)
	if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := weaviate.DropCollections(context.Background(), weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class}); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	const q = "where is the retry backoff for 503 errors?"
	if code, out, errOut := ragbot(t, "ask", "--config", cfg, "--json", q); code != 0 || strings.Contains(out, retrieval.SemanticUnavailableWarning) {
		t.Fatalf("ask with the endpoint up: exit %d, want 0 and no warning\n%s%s", code, out, errOut)
	}
	index := func(t *testing.T, want string) {
		t.Helper()
		if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 || !strings.Contains(out, want) {
			t.Errorf("index with the endpoint %s: exit %d, want 0 and %q\n%s%s", mode.Load(), code, want, out, errOut)
		}
	}
	t.Run("index 503", func(t *testing.T) {
		mode.Store("503")
		if err := os.WriteFile(filepath.Join(repo, "httpx/pool.go"), []byte("package httpx\n\n// Pool keeps idle connections.\nfunc Pool() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runGit(t, repo, "add", "-A")
		runGit(t, repo, "commit", "-q", "-m", "pool")
		index(t, "1 without semantic vectors (next run)")
		// doctor: a warning, not a failed run (its embedder check fails
		// while the endpoint is down).
		_, out, _ := ragbot(t, "doctor", "--config", cfg)
		wantLines(t, out, "warn git httpx: index at ")
		if !strings.Contains(out, "1 chunk stored without a semantic vector") || strings.Contains(out, "FAIL git httpx") {
			t.Errorf("doctor with vectors pending, want a warning on git httpx naming them:\n%s", out)
		}
		mode.Store("ok")
		index(t, "(1 embedded, 3 reused, 0 unchanged, 0 deleted)") // a full run: retry.go rewritten at the new commit
		_, out, _ = ragbot(t, "doctor", "--config", cfg)
		wantLines(t, out, "ok   git httpx: index at the branch head")
	})
	for _, m := range []string{"503", "hang"} {
		t.Run(m, func(t *testing.T) {
			mode.Store(m)
			start := time.Now()
			code, out, errOut := ragbot(t, "ask", "--config", cfg, "--json", q)
			took := time.Since(start)
			t.Logf("ask with the endpoint %s: %s", m, took.Round(10*time.Millisecond))
			var ans retrieval.Answer
			if code != 0 || json.Unmarshal([]byte(out), &ans) != nil {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			if took > 3*time.Second {
				t.Errorf("answered after %s, want within 3s", took)
			}
			if !strings.Contains(strings.Join(ans.Warnings, "\n"), retrieval.SemanticUnavailableWarning) {
				t.Errorf("warnings %q, want %q", ans.Warnings, retrieval.SemanticUnavailableWarning)
			}
			if len(ans.Snippets) == 0 || ans.Snippets[0].Path != "httpx/retry.go" {
				t.Errorf("snippets %v, want httpx/retry.go first (keywords)", ans.Snippets)
			}
		})
	}
}
