// Package weaviate is ragbot's store in Weaviate: the Chunk, SourceState and
// Feedback collections (schema.go, feedback.go), idempotent batch upserts
// and deletes with every object's result checked (Weaviate answers HTTP 200
// when objects fail), the hybrid query behind retrieval.Searcher
// (search.go), document frequencies for the coverage decision (docfreq.go),
// and the cursor walks the indexer uses to diff what is stored (state.go,
// storegit.go, pages.go). The wire details it relies on are in Weaviate's
// docs ('Batch import', 'Hybrid search', 'Filters', 'Tokenization') and
// docs/architecture.md.
package weaviate
