package weaviate

// ClassNames returns the chunk and state collection names that a Store
// opened with StoreConfig{ChunkClass: chunkClass} uses (defaults as in
// StoreConfig), for tools that read Weaviate's REST API directly.
func ClassNames(chunkClass string) (chunk, state string) {
	return classNames(StoreConfig{ChunkClass: chunkClass})
}

// DescribedEmbedders returns the lexical and semantic embedder names that
// a chunk collection's description records ("" when none); see OpenStore.
func DescribedEmbedders(description string) (lexical, semantic string) {
	lexical, semantic, _ = parseEmbedders(description)
	return lexical, semantic
}

// VocabularyClassName returns the collection of source vocabularies that a
// Store opened with StoreConfig{ChunkClass: chunkClass} uses.
func VocabularyClassName(chunkClass string) string {
	return vocabClassName(StoreConfig{ChunkClass: chunkClass})
}
