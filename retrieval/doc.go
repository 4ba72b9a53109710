// Package retrieval owns the vocabulary shared by ingest and the chat
// surfaces (Chunk, Hit, Answer, Citation, Coverage), the Weaviate store, the
// embedders, and the answering flow of Asker.Ask: analyse the question for
// what it names (Analyze), search Weaviate with one hybrid query
// (relativeScoreFusion of BM25 over the analysed search text and vector
// similarity; search.go) plus BM25 lookups of the names, rerank the
// candidates with the weights of rerank.go, decide coverage from the
// evidence of the top hits (coverage.go: a named thing found exactly, a
// named thing missing, or similarity and term-coverage thresholds
// calibrated per embedder by `ragbot eval`, calibrate.go), and build the
// answer from cited snippets, optionally with an LLM summary that may only
// cite them (summary.go). Embedders: the offline hashing one (no network),
// the static word-vector one, and an OpenAI-compatible /v1/embeddings
// client (embed_openai.go).
package retrieval
