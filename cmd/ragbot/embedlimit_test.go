package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestIndexChunkOverEmbedderLimitCLI runs `ragbot index` with embedder
// kind openai against a fake /v1/embeddings that, like OpenAI, answers 400
// to a request with an input over 8,192 tokens (counted here at 4 bytes a
// token), on a repository with one ~40 KB function. With the default
// embedder.max_input_tokens (8192) the run succeeds; with a limit above
// the server's, the function's file is refused, the run exits 1 naming it,
// and the other file is stored and found.
func TestIndexChunkOverEmbedderLimitCLI(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		for _, in := range req.Input {
			if n := (len(in) + 3) / 4; n > 8192 {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":{"message":"This model's maximum context length is 8192 tokens, however you requested %d tokens (%d in your prompt; 0 for the completion). Please reduce your prompt; or completion to obtain a response.","type":"invalid_request_error"}}`, n, n)
				return
			}
		}
		vecs, _ := embed.NewOffline().Embed(r.Context(), req.Input)
		data := make([]map[string]any, len(vecs))
		for i, v := range vecs {
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data})
	}))
	t.Cleanup(srv.Close)
	var long strings.Builder
	long.WriteString("package report\n\nimport \"io\"\n\n// Render writes the quarterly report.\nfunc Render(w io.Writer) {\n")
	for i := range 147 {
		line := fmt.Sprintf("\tio.WriteString(w, \"row %03d ", i)
		long.WriteString(line + strings.Repeat("q", 270-len(line)-4) + "\")\n")
	}
	long.WriteString("}\n")
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "report/render.go": long.String()})
	config := func(extra string) string {
		yaml := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: httpx, kind: git, path: %s}\n"+
			"embedder: {kind: openai, base_url: %s/v1, model: fake-embed%s}\n",
			weaviatetest.URL(t), weaviatetest.ClassName(), repo, srv.URL, extra)
		p := filepath.Join(t.TempDir(), "ragbot.yaml")
		if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dropCollection(t, p) })
		return p
	}

	t.Run("default limit", func(t *testing.T) {
		cfg := config("")
		code, out, errOut := ragbot(t, "index", "--config", cfg)
		if code != 0 || !strings.Contains(out, "2 files, 4 chunks") {
			t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
		}
	})

	t.Run("file refused", func(t *testing.T) {
		cfg := config(", max_input_tokens: 20000")
		code, out, errOut := ragbot(t, "index", "--config", cfg)
		if code != 1 || !strings.Contains(errOut, "report/render.go") || !strings.Contains(errOut, "maximum context length") {
			t.Errorf("index: exit %d, want 1 and an error naming report/render.go\n%s%s", code, out, errOut)
		}
		code, out, errOut = ragbot(t, "ask", "--config", cfg, "RetryOn503")
		if code != 0 || !strings.Contains(out, "httpx/retry.go") {
			t.Errorf("ask after the partial run (exit %d):\n%s%s", code, out, errOut)
		}
	})
}
