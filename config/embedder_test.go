package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestStaticEmbedder checks the settings of the static embedder.
func TestStaticEmbedder(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	tests := []struct {
		name, yaml string
		want       config.Embedder
	}{
		{"built-in model", "embedder: {kind: static}\n" + sources, config.Embedder{Kind: "static"}},
		{"model file, adapted", "embedder: {kind: static, model: models/m.bin, adapt: true}\n" + sources,
			config.Embedder{Kind: "static", Model: "models/m.bin", Adapt: true}},
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
