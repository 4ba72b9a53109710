package config_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
)

// TestRemovedOptions: a config naming an option that was removed fails
// with a message saying what it was and what to use instead; the removed
// key set to what ragbot does anyway (false, an empty list, as the example
// once had) is accepted.
func TestRemovedOptions(t *testing.T) {
	const sources = "sources: [{name: handbook, kind: markdown, path: docs}]\n"
	const adapt = "refining the model on the indexed sources was removed from ragbot after commit b5f6b10: it measured no clear gain " +
		"(lower MRR in hybrid+rerank on the public set, lower paraphrase recall on raft; see docs/evaluation.md) and needed the training code in the product; " +
		"delete the key: ragbot uses the model as shipped, or the one embedder.model names"
	const static = `"static" was removed from ragbot after commit b5f6b10: it measured no gain over the default (see docs/evaluation.md); `
	const expansion = "was removed from ragbot after commit b5f6b10: none of prf, glove and wordnet measured a gain (see docs/evaluation.md); " +
		"delete the key, or for questions worded unlike the code use retrieval.rewrite (the LLM query rewrite)"
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want string // "" for no error
	}{
		{
			name: "static embedder, with its model and adapt",
			yaml: "embedder: {kind: static, model: m.bin, adapt: true}\n" + sources,
			want: "embedder.kind: " + static + `use "offline" (the default, with the pretrained semantic vector of kind "onnx") or "openai"` + "\n" +
				"embedder.adapt: " + adapt,
		},
		{
			name: "static semantic embedder",
			yaml: "embedder: {kind: offline, semantic: {kind: static}}\n" + sources,
			want: "embedder.semantic.kind: " + static + `use "onnx" (the default semantic vector), "codesearch" (built in, nothing to install) or "openai"`,
		},
		{
			name: "static embedder from the environment",
			yaml: sources,
			env:  map[string]string{"RAGBOT_EMBEDDER": "static"},
			want: "embedder.kind (from RAGBOT_EMBEDDER): " + static + `use "offline" (the default, with the pretrained semantic vector of kind "onnx") or "openai"`,
		},
		{
			name: "adapt",
			yaml: "embedder: {kind: codesearch, adapt: true}\n" + sources,
			want: "embedder.adapt: " + adapt,
		},
		{
			name: "adapt of the semantic embedder",
			yaml: "embedder: {semantic: {kind: codesearch, adapt: true}}\n" + sources,
			want: "embedder.semantic.adapt: " + adapt,
		},
		{
			name: "adapt false",
			yaml: "embedder: {kind: codesearch, adapt: false}\n" + sources,
		},
		{
			name: "every expansion",
			yaml: "retrieval: {expansion: [prf, glove, wordnet]}\n" + sources,
			want: `retrieval.expansion: query expansion "prf", "glove", "wordnet" ` + expansion,
		},
		{
			name: "no expansion",
			yaml: "retrieval: {expansion: []}\n" + sources,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml), dir, env(tt.env))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) error mismatch (-want +got):\n%s", tt.yaml, diff)
			}
		})
	}
}
