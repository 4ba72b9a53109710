// Package embedders makes the embedders of the config's embedder section:
// offline (code-aware hashing), codesearch (the encoder built into the
// binary, or a model file from embedder.model) and openai (an
// OpenAI-compatible /embeddings endpoint), and, with embedder.semantic, the
// retrieval.Pair of the lexical and the semantic one (New). It also keys an
// embedder's coverage thresholds in retrieval.thresholds (Family,
// Thresholds). cmd/ragbot calls it for every command that embeds; the
// embedders themselves live in retrieval/embed and retrieval/openai.
package embedders
