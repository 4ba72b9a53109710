package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestCodeSearchEmbedder checks the settings of the codesearch embedder
// as the only one: no semantic vector beside it.
func TestCodeSearchEmbedder(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		name, yaml string
		want       config.Embedder
	}{
		{"built-in model", "embedder: {kind: codesearch}\n" + sources, config.Embedder{Kind: "codesearch"}},
		{"model file", "embedder: {kind: codesearch, model: models/m.bin}\n" + sources,
			config.Embedder{Kind: "codesearch", Model: "models/m.bin"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml), dir, env(nil))
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.yaml, err)
			}
			if diff := cmp.Diff(tt.want, cfg.Embedder); diff != "" {
				t.Errorf("Embedder mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSemanticEmbedder: embedder.semantic takes the keys of an embedder,
// with kind openai's default input limit, and retrieval.semantic_weight
// defaults to DefaultSemanticWeight.
func TestSemanticEmbedder(t *testing.T) {
	const yaml = "embedder:\n  kind: offline\n  semantic: {kind: openai, base_url: 'http://localhost:11434/v1', model: nomic-embed-text, batch_size: 16}\n" +
		"sources: [{name: handbook, kind: markdown, path: docs}]\n"
	cfg, err := config.Parse([]byte(yaml), dir, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := config.Embedder{Kind: "offline", Semantic: &config.Embedder{Kind: "openai", Model: "nomic-embed-text",
		MaxInputTokens: config.DefaultOpenAIMaxInputTokens, OpenAI: config.OpenAI{BaseURL: "http://localhost:11434/v1", BatchSize: 16}}}
	if diff := cmp.Diff(want, cfg.Embedder); diff != "" {
		t.Errorf("Embedder mismatch (-want +got):\n%s", diff)
	}
	if w := cfg.Retrieval.SemanticWeight; w == nil || *w != config.DefaultSemanticWeight {
		t.Errorf("retrieval.semantic_weight %v, want the default %g", w, config.DefaultSemanticWeight)
	}
}

// TestTransformerDefaults: with embedder.semantic of kind onnx, alpha and
// semantic_weight default to the transformer's values; set ones are kept.
func TestTransformerDefaults(t *testing.T) {
	for _, tc := range []struct {
		retrieval     string
		alpha, weight float64
	}{
		{"", config.TransformerAlpha, config.TransformerSemanticWeight},
		{"retrieval: {alpha: 0.5, semantic_weight: 0.5}\n", 0.5, 0.5},
	} {
		yaml := "embedder:\n  kind: offline\n  semantic: {kind: onnx, model: all-minilm-l6-v2-q}\n" + tc.retrieval +
			"sources: [{name: handbook, kind: markdown, path: docs}]\n"
		cfg, err := config.Parse([]byte(yaml), dir, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if a, w := *cfg.Retrieval.Alpha, *cfg.Retrieval.SemanticWeight; a != tc.alpha || w != tc.weight {
			t.Errorf("%q: alpha %g, semantic_weight %g; want %g and %g", tc.retrieval, a, w, tc.alpha, tc.weight)
		}
	}
}
