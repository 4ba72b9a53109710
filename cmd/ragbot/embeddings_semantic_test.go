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
	"testing"

	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// semanticServer is a fake OpenAI-compatible /v1/embeddings standing in for
// a semantic model: each model is a list of topics, and a text's vector
// counts its words of each topic (plus a constant, so none is zero); the
// models have different vector lengths.
func semanticServer(t *testing.T) *httptest.Server {
	topics := map[string][][]string{
		"concepts-a": {{"refund", "reimburse", "money", "back"}, {"retry", "backoff", "again"}},
		"concepts-b": {{"refund", "reimburse", "repay"}, {"retry", "again"}, {"wait", "sleep"}},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil || topics[req.Model] == nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			ts := topics[req.Model]
			v := make([]float32, len(ts)+1)
			v[len(ts)] = 0.05
			for _, word := range strings.FieldsFunc(strings.ToLower(in), func(r rune) bool { return r < 'a' || r > 'z' }) {
				for j, topic := range ts {
					for _, tw := range topic {
						if word == tw {
							v[j]++
						}
					}
				}
			}
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestSemanticEmbedderCLI: `ragbot index` with embedder.semantic stores
// both vectors; after the semantic model changes, the next index run
// re-embeds only the semantic vectors and finds the source up to date;
// `ragbot ask` with the old semantic model is then refused, naming
// `ragbot index`, and with the new one answers.
func TestSemanticEmbedderCLI(t *testing.T) {
	srv := semanticServer(t)
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo,
		"billing/ledger.go": "package billing\n\n// Reimburse repays an order's total to the account it was charged to.\nfunc Reimburse(total int) error {\n\treturn credit(total)\n}\n"})
	class := weaviatetest.ClassName()
	config := func(model string) string {
		yaml := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: httpx, kind: git, path: %s}\n"+
			"embedder:\n  kind: offline\n  semantic: {kind: openai, base_url: %s/v1, model: %s}\n",
			weaviatetest.URL(t), class, repo, srv.URL, model)
		p := filepath.Join(t.TempDir(), "ragbot.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a, b := config("concepts-a"), config("concepts-b")
	t.Cleanup(func() {
		if err := weaviate.DropCollections(context.Background(), weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: class}); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	if code, out, errOut := ragbot(t, "index", "--config", a); code != 0 || !strings.Contains(out, "2 files") {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := ragbot(t, "index", "--config", b)
	if code != 0 || !strings.Contains(out, "up to date") || !strings.Contains(errOut, "re-embedding the semantic vectors with openai:concepts-b:4") {
		t.Fatalf("index after the semantic model changed: exit %d, want the semantic vectors re-embedded and the source up to date\n%s%s", code, out, errOut)
	}
	if code, _, errOut := ragbot(t, "ask", "--config", a, "where is the backoff?"); code != 1 || !strings.Contains(errOut, "`ragbot index` re-embeds them") {
		t.Errorf("ask with the old semantic model: exit %d, want 1 naming `ragbot index`\n%s", code, errOut)
	}
	if code, out, errOut := ragbot(t, "ask", "--config", b, "where is the retry backoff?"); code != 0 || !strings.Contains(out, "httpx/retry.go") {
		t.Errorf("ask with the new semantic model: exit %d\n%s%s", code, out, errOut)
	}
}
