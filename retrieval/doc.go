// Package retrieval owns the vocabulary shared by ingest and the chat
// surfaces (Chunk, Hit, Answer, Citation, Coverage, SourceState, Feedback)
// and the answering flow of Asker.Ask: analyse the question for what it
// names (Analyze), run one hybrid query (BM25 over the analysed search text
// fused with vector similarity) plus BM25 lookups of the names through a
// Searcher, rerank the candidates with the weights of rerank.go, decide
// coverage from the evidence of the top hits (coverage.go: a named thing
// found exactly, a named thing missing, or similarity and term-coverage
// thresholds calibrated per embedder by `ragbot eval`, calibrate.go), build
// the answer from cited snippets, then run the answer guards in order
// (staleness checks implemented by ingest) and the optional Summarizer.
//
// It declares the small interfaces it consumes and imports none of their
// implementations: Searcher (the Weaviate store, retrieval/weaviate), Embedder
// (retrieval/embed, retrieval/openai), Summarizer (retrieval/openai) and Guard.
package retrieval
