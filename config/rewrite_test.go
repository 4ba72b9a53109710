package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/config"
)

// rewriteYAML is a config whose retrieval section is retrieval.
func rewriteYAML(retrieval string) []byte {
	return []byte("retrieval:\n" + retrieval + "sources:\n  - {name: handbook, kind: markdown, path: docs}\n")
}

// TestRewriteConfig: the rewriter takes the summary's endpoint for what it
// leaves empty, and is off (and unchecked) unless enabled.
func TestRewriteConfig(t *testing.T) {
	cfg, err := config.Parse(rewriteYAML(`  summary: {enabled: false, base_url: "https://api.openai.com/v1", model: gpt-4o-mini, api_key_env: OPENAI_API_KEY}
  rewrite: {enabled: true, model: gpt-4.1-nano, timeout: 1500ms, variants: 2, hyde: false}
`), dir, env(map[string]string{"OPENAI_API_KEY": "sk-x"}))
	if err != nil {
		t.Fatal(err)
	}
	base, model, key := cfg.Retrieval.RewriteEndpoint()
	if base != "https://api.openai.com/v1" || model != "gpt-4.1-nano" || key != "OPENAI_API_KEY" {
		t.Errorf("RewriteEndpoint() = %q, %q, %q; want the summary's URL and key with its own model", base, model, key)
	}
	rw := cfg.Retrieval.Rewrite
	if rw.Timeout != 1500*time.Millisecond || rw.Variants != 2 || rw.HyDE == nil || *rw.HyDE {
		t.Errorf("Rewrite = %+v, want timeout 1.5s, 2 variants, hyde false", rw)
	}
	// Off: malformed values are not checked, nothing is needed.
	if _, err := config.Parse(rewriteYAML("  rewrite: {enabled: false, variants: 99}\n"), dir, env(nil)); err != nil {
		t.Errorf("disabled rewrite: %v", err)
	}
}

func TestRewriteConfigErrors(t *testing.T) {
	tests := []struct{ yaml, want string }{
		{"  rewrite: {enabled: true, model: m}\n", "retrieval.rewrite.base_url: must be set"},
		{"  rewrite: {enabled: true, base_url: \"ftp://x\", model: m}\n", "retrieval.rewrite.base_url: must be an absolute http(s) URL"},
		{"  rewrite: {enabled: true, base_url: \"http://localhost:11434/v1\"}\n", "retrieval.rewrite.model: must name the chat model"},
		{"  rewrite: {enabled: true, base_url: \"http://localhost:11434/v1\", model: m, variants: 6}\n", "retrieval.rewrite.variants: must be 1..5"},
		{"  rewrite: {enabled: true, base_url: \"http://localhost:11434/v1\", model: m, timeout: 30s}\n", "retrieval.rewrite.timeout: must be positive and at most 10s"},
		{"  rewrite: {enabled: true, base_url: \"http://localhost:11434/v1\", model: m, api_key_env: NOPE_KEY}\n", "retrieval.rewrite.api_key_env: names NOPE_KEY, which is not set"},
	}
	for _, tt := range tests {
		_, err := config.Parse(rewriteYAML(tt.yaml), dir, env(nil))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want it to contain %q", strings.TrimSpace(tt.yaml), err, tt.want)
		}
	}
}
