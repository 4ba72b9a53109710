package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
)

// TestAskExplainShowsRewrites: with retrieval.rewrite enabled against a
// local OpenAI-compatible chat server, `ragbot ask --explain` searches the
// model's variants and snippet and prints them; the model's text is not
// shown as an answer.
func TestAskExplainShowsRewrites(t *testing.T) {
	var calls atomic.Int32
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if r.URL.Path != "/v1/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil || req.Model != "gpt-test" || len(req.Messages) != 2 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		calls.Add(1)
		content, _ := json.Marshal(map[string]any{
			"standalone": "",
			"variants":   []string{"Backoff.Next wait doubling between attempts", "exponential backoff base"},
			"hyde":       "func (b *Backoff) Next(n int) time.Duration {\n\treturn b.Base << n\n}",
		})
		json.NewEncoder(w).Encode(map[string]any{"choices": []map[string]any{
			{"index": 0, "message": map[string]string{"role": "assistant", "content": string(content)}}}})
	}))
	defer chat.Close()

	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	cfg := writeConfig(t, repo)
	t.Cleanup(func() { dropCollection(t, cfg) })
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, []byte("retrieval:\n  rewrite: {enabled: true, base_url: "+chat.URL+"/v1, model: gpt-test, timeout: 5s, variants: 2}\n")...)
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	code, out, errOut := ragbot(t, "ask", "--config", cfg, "--explain", "how long do we wait between attempts?")
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"also searched (1): Backoff.Next wait doubling between attempts",
		"also searched (2): exponential backoff base",
		"also searched (hypothetical snippet, by its vector):\n    func (b *Backoff) Next(n int) time.Duration {",
		"rrf(",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ask --explain output lacks %q:\n%s", want, out)
		}
	}
	if calls.Load() != 1 {
		t.Errorf("%d model requests, want 1", calls.Load())
	}
}
