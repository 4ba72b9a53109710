package config_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestBadRetrievalConfigs parses each bad config of the OpenAI embedder,
// the summary and the thresholds, one fault per file, and checks the exact
// message.
func TestBadRetrievalConfigs(t *testing.T) {
	tests := []struct {
		file string
		want string
	}{
		{"bad-openai-no-base-url.yaml", "embedder.base_url: must be set"},
		{"bad-openai-base-url-credentials.yaml", "embedder.base_url: must not hold credentials; name the variable holding the key in api_key_env"},
		{"bad-openai-no-model.yaml", `embedder.model: must name the embeddings model for kind openai, e.g. "text-embedding-3-small"`},
		{"bad-openai-key-env-unset.yaml", "embedder.api_key_env: names RAGBOT_TEST_OPENAI_KEY, which is not set in the environment"},
		{"bad-openai-batch-size.yaml", "embedder.batch_size: must be 1..2048, or 0 for 32, got 5000"},
		{"bad-openai-fields-on-offline.yaml", `embedder.base_url: base_url, api_key_env, batch_size, dimensions and timeout are settings of kind openai, but kind is "offline"`},
		{"bad-max-input-tokens.yaml", "embedder.max_input_tokens: must be positive, or 0 for no limit, got -1"},
		{"bad-summary-no-model.yaml", `retrieval.summary.model: must name the chat model, e.g. "gpt-4o-mini"`},
		{"bad-summary-base-url.yaml", `retrieval.summary.base_url: must be an absolute http(s) URL, got "api.openai.com"`},
		{"bad-thresholds-range.yaml", "retrieval.thresholds.offline-hash-v1-384.min_similarity: must be between 0 and 1, got 2"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".yaml"), func(t *testing.T) {
			_, err := parseFile(t, tt.file, nil)
			if err == nil {
				t.Fatalf("%s parsed without error, want %q", tt.file, tt.want)
			}
			if diff := cmp.Diff(tt.want, err.Error()); diff != "" {
				t.Errorf("%s error mismatch (-want +got):\n%s", tt.file, diff)
			}
			if strings.Contains(err.Error(), "sk-123") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

func TestOpenAIConfig(t *testing.T) {
	cfg, err := parseFile(t, "good-openai.yaml", map[string]string{"OLLAMA_KEY": "k", "OPENAI_API_KEY": "sk-x"})
	if err != nil {
		t.Fatalf("good-openai.yaml: %v", err)
	}
	wantEmb := config.Embedder{Kind: "openai", Model: "nomic-embed-text", MaxInputTokens: 2048, OpenAI: config.OpenAI{
		BaseURL: "http://localhost:11434/v1", APIKeyEnv: "OLLAMA_KEY", BatchSize: 16, Timeout: 30 * time.Second}}
	if diff := cmp.Diff(wantEmb, cfg.Embedder); diff != "" {
		t.Errorf("Embedder (-want +got):\n%s", diff)
	}
	wantTh := map[string]config.Thresholds{
		"offline-hash-v1-384":         {MinSimilarity: ptr(0.3), MinTermCoverage: ptr(0.6)},
		"openai:nomic-embed-text:768": {MinSimilarity: ptr(0.55)},
	}
	if diff := cmp.Diff(wantTh, cfg.Retrieval.Thresholds); diff != "" {
		t.Errorf("Thresholds (-want +got):\n%s", diff)
	}
	wantSum := config.Summary{Enabled: true, BaseURL: "https://api.openai.com/v1", Model: "gpt-4o-mini", APIKeyEnv: "OPENAI_API_KEY", Timeout: 10 * time.Second}
	if diff := cmp.Diff(wantSum, cfg.Retrieval.Summary); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
}

// TestThresholdsFor: the entry for the embedder's exact name wins, then the
// one for its family; neither gives the zero value.
func TestThresholdsFor(t *testing.T) {
	r := config.Retrieval{Thresholds: map[string]config.Thresholds{
		"codesearch-v1":                  {MinSimilarity: ptr(0.4)},
		"codesearch-v1-0123456789ab-128": {MinSimilarity: ptr(0.5), MinTermCoverage: ptr(0.6)},
		"offline-hash-v1-384":            {MinTermCoverage: ptr(0.3)},
	}}
	tests := []struct {
		name, family string
		want         config.Thresholds
	}{
		{"codesearch-v1-0123456789ab-128", "codesearch-v1", config.Thresholds{MinSimilarity: ptr(0.5), MinTermCoverage: ptr(0.6)}},
		{"codesearch-v1-ba9876543210-128", "codesearch-v1", config.Thresholds{MinSimilarity: ptr(0.4)}}, // another model: the family's
		{"offline-hash-v1-384", "offline-hash-v1-384", config.Thresholds{MinTermCoverage: ptr(0.3)}},
		{"openai:text-embedding-3-small:1536", "openai:text-embedding-3-small:1536", config.Thresholds{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.ThresholdsFor(tt.name, tt.family)); diff != "" {
				t.Errorf("ThresholdsFor(%q, %q) (-want +got):\n%s", tt.name, tt.family, diff)
			}
		})
	}
}
