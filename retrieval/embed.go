package retrieval

import "context"

// An Embedder turns texts into vectors of a fixed dimension. The query path
// embeds the question with it and the ingest pipeline embeds chunks with it
// (docs/configuration.md, "Embedders, coverage thresholds and the LLM
// summary"); vectors of different embedders are not comparable,
// so a collection records Name and refuses another. Implementations are
// concrete structs wired in by cmd (NewOffline, the OpenAI-compatible client)
// and must be safe for concurrent use; retrieval/embedtest checks any of them.
type Embedder interface {
	// Embed returns one vector per text, in order: the i-th vector, of Dim()
	// float32s, is the embedding of texts[i]. An empty texts gives an empty
	// result and no error. The same text gives the same vector whatever the
	// batch it is in. Embed returns an error wrapping ctx.Err() when ctx is
	// done before it finishes, and any error of the model it calls; it returns
	// no partial result with an error.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Name identifies the model and its parameters, e.g. "offline-hash-v1-384";
	// the collection records it and refuses a mismatch.
	Name() string
	// Dim is the vector length, in float32 elements.
	Dim() int
}
