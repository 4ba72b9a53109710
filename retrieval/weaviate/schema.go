package weaviate

import (
	"github.com/weaviate/weaviate/adapters/repos/db/inverted/stopwords"
	"github.com/weaviate/weaviate/entities/models"
)

// Property tokenizations (Weaviate docs, 'Tokenization'): "field" keeps the whole value
// (exact, case-sensitive filters); "word" splits on non-alphanumerics and
// lower-cases (BM25 and token filters).
const (
	tokField = "field"
	tokWord  = "word"
)

func boolp(b bool) *bool { return &b }

// chunkClass is the Weaviate class of retrieval.Chunk, one property per
// field (docs/architecture.md, "Chunk ids" for its ids). Vectors come
// from our Embedder (vectorizer none). Only search_text and symbol are BM25
// searchable; content is stored for display only.
func chunkClass(name, embedder string) *models.Class {
	text := func(n, tok string) *models.Property {
		return &models.Property{Name: n, DataType: []string{"text"}, Tokenization: tok}
	}
	stored := func(n string) *models.Property { // kept for display, not indexed
		return &models.Property{Name: n, DataType: []string{"text"}, IndexFilterable: boolp(false), IndexSearchable: boolp(false)}
	}
	num := func(n string) *models.Property { return &models.Property{Name: n, DataType: []string{"int"}} }
	date := func(n string) *models.Property { return &models.Property{Name: n, DataType: []string{"date"}} }
	return &models.Class{
		Class:       name,
		Description: embedderTag + embedder,
		Vectorizer:  "none",
		// Flat (brute-force) vector index: exact nearest neighbours, so the
		// same index answers the same way however it was built (HNSW's graph
		// depends on insertion order), which ragbot eval relies on. A scan of
		// 100k 384-dim vectors takes milliseconds.
		VectorIndexType: "flat",
		InvertedIndexConfig: &models.InvertedIndexConfig{
			// Okapi BM25 with the usual k1 and b (Robertson & Zaragoza 2009), Weaviate's defaults.
			Bm25:      &models.BM25Config{K1: 1.2, B: 0.75},
			Stopwords: &models.StopwordConfig{Preset: stopwords.EnglishPreset},
		},
		Properties: []*models.Property{
			text("source", tokField), text("kind", tokField), text("path", tokField),
			text("symbol", tokWord), text("symbol_kind", tokField), text("language", tokField),
			stored("signature"), stored("content"), text("search_text", tokWord),
			num("start_line"), num("end_line"), num("ordinal"),
			text("commit_sha", tokField), text("branch", tokField), stored("url"),
			text("author", tokField), text("version", tokField),
			date("modified_at"), date("indexed_at"),
			text("content_hash", tokField),
			{Name: "acl", DataType: []string{"text[]"}, Tokenization: tokField},
		},
	}
}

// stateClass keeps, per source and branch, the last indexed commit, when, and
// the last error (docs/architecture.md, "Indexing flow", step 5).
func stateClass(name string) *models.Class {
	f := func(n string) *models.Property {
		return &models.Property{Name: n, DataType: []string{"text"}, Tokenization: tokField}
	}
	return &models.Class{
		Class:      name,
		Vectorizer: "none",
		Properties: []*models.Property{
			f("source"), f("branch"), f("commit_sha"), f("embedder"), f("settings"), f("last_error"),
			{Name: "indexed_at", DataType: []string{"date"}},
			{Name: "files", DataType: []string{"int"}},
			{Name: "chunks", DataType: []string{"int"}},
		},
	}
}

// embedderTag prefixes the embedder name in the chunk class description: the
// collection records which embedder made its vectors.
const embedderTag = "ragbot chunks; embedder="

// chunkFields lists the chunk properties read back by queries.
var chunkFields = []string{
	"source", "kind", "path", "symbol", "symbol_kind", "language", "signature", "content",
	"start_line", "end_line", "ordinal", "commit_sha", "branch", "url", "author", "version",
	"modified_at", "indexed_at", "content_hash", "acl",
}
