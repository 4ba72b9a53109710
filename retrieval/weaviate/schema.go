package weaviate

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"
	"github.com/weaviate/weaviate/adapters/repos/db/inverted/stopwords"
	"github.com/weaviate/weaviate/entities/models"
)

// Property tokenizations (Weaviate docs, 'Tokenization'): "field" keeps the whole value
// (exact, case-sensitive filters); "word" splits on non-alphanumerics and
// lower-cases (BM25 and token filters).
const (
	tokField = "field"
	tokWord  = "word"
	// tokLower keeps the whole value, lower-cased: refs match whole names
	// whatever case the asker typed ("newstore" finds "newStore").
	tokLower = "lowercase"
)

// refsProperty holds retrieval.Chunk.Refs: filterable, not BM25-searched.
func refsProperty() *models.Property {
	return &models.Property{Name: "refs", DataType: []string{"text[]"}, Tokenization: tokLower, IndexSearchable: boolp(false)}
}

// callsProperties hold retrieval.Chunk.Calls, stored for the usage
// answer to read back (neither filtered nor searched: the names are in
// refs), and Chunk.Types and Chunk.Package, filterable whole.
func callsProperties() []*models.Property {
	return []*models.Property{
		{Name: "calls", DataType: []string{"text[]"}, IndexFilterable: boolp(false), IndexSearchable: boolp(false)},
		fieldProp("types", "text"), fieldProp("package", "text"),
	}
}

func boolp(b bool) *bool { return &b }

// fieldProp is a property of type typ ("text" or "text[]") matched whole,
// as ids, names and keys are (tokenization "field", Weaviate docs,
// 'Tokenization').
func fieldProp(name, typ string) *models.Property {
	return &models.Property{Name: name, DataType: []string{typ}, Tokenization: tokField}
}

// Named vectors of a chunk (Weaviate docs, 'Multiple vectors (named
// vectors)'): every object has a lexical vector, from the configured
// embedder, and may have a semantic one, from the optional second embedder
// (StoreConfig.Semantic), in VectorSemantic or, after the semantic
// embedder changed, in a later named vector (see nextSlot).
const (
	VectorLexical  = "lexical"
	VectorSemantic = "semantic"
)

// chunkClass is the Weaviate class of retrieval.Chunk, one property per
// field (docs/architecture.md, "Chunk ids" for its ids). Vectors come
// from our embedders (vectorizer none), as the two named vectors
// VectorLexical and VectorSemantic; the description records the embedder
// of each (describeEmbedders). Only search_text and symbol are BM25
// searchable; content is stored for display only.
func chunkClass(name, embedder, semantic, vectorIndex string) *models.Class {
	slot := ""
	if semantic != "" {
		slot = VectorSemantic
	}
	text := func(n, tok string) *models.Property {
		return &models.Property{Name: n, DataType: []string{"text"}, Tokenization: tok}
	}
	stored := func(n string) *models.Property { // kept for display, not indexed
		return &models.Property{Name: n, DataType: []string{"text"}, IndexFilterable: boolp(false), IndexSearchable: boolp(false)}
	}
	num := func(n string) *models.Property { return &models.Property{Name: n, DataType: []string{"int"}} }
	date := func(n string) *models.Property { return &models.Property{Name: n, DataType: []string{"date"}} }
	// Flat (brute-force) vector indexes unless vectorIndex says hnsw
	// (StoreConfig.VectorIndex). A flat index scans every vector a search
	// allows: exact, quick to write (HNSW made the lexical pass 36% slower
	// at 15,846 chunks), but its time grows with the collection, which HNSW
	// avoids past about 100,000 chunks (docs/deploy.md, "Sizing"). Under
	// HNSW, a filtered search that allows fewer than flatSearchCutoff
	// (40,000) objects is still a flat, exact scan of those (Weaviate docs,
	// "Vector index"). Both named vectors exist from the start, so
	// configuring a semantic embedder later needs no schema change; objects
	// without a semantic vector are simply absent from its index.
	if vectorIndex == "" {
		vectorIndex = "flat"
	}
	vec := func() models.VectorConfig {
		return models.VectorConfig{VectorIndexType: vectorIndex, Vectorizer: map[string]any{"none": map[string]any{}}}
	}
	return &models.Class{
		Class:        name,
		Description:  describeEmbedders(embedder, semantic, slot),
		VectorConfig: map[string]models.VectorConfig{VectorLexical: vec(), VectorSemantic: vec()},
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
			refsProperty(),
			pendingProp(),
			callsProperties()[0], callsProperties()[1], callsProperties()[2],
		},
	}
}

// pendingProperty marks a chunk stored without its semantic vector (see
// Store.Upsert); absent on the others.
const pendingProperty = "semantic_pending"

func pendingProp() *models.Property {
	return &models.Property{Name: pendingProperty, DataType: []string{"boolean"}}
}

// stateClass keeps, per source and branch, the last indexed commit, when, and
// the last error (docs/architecture.md, "Indexing flow", step 5).
func stateClass(name string) *models.Class {
	f := func(n string) *models.Property { return fieldProp(n, "text") }
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
// collection records which embedder made its vectors. With semantic
// vectors, semanticTag follows with their embedder's name, and slotTag
// with the named vector holding them (see Store.reembedSemantic).
const (
	embedderTag = "ragbot chunks; embedder="
	semanticTag = "; semantic="
	slotTag     = "; vector="
)

// describeEmbedders is the chunk class description naming the embedders of
// the lexical and (when not "") the semantic vectors, and the named vector
// that holds (or last held) semantic vectors ("" when none ever did).
func describeEmbedders(lexical, semantic, slot string) string {
	d := embedderTag + lexical
	if semantic != "" {
		d += semanticTag + semantic
	}
	if slot != "" {
		d += slotTag + slot
	}
	return d
}

// parseEmbedders reads describeEmbedders' output back.
func parseEmbedders(description string) (lexical, semantic, slot string) {
	rest := strings.TrimPrefix(description, embedderTag)
	rest, slot, _ = strings.Cut(rest, slotTag)
	lexical, semantic, _ = strings.Cut(rest, semanticTag)
	return lexical, semantic, slot
}

// nextSlot is the named vector that receives the semantic vectors of a new
// semantic embedder when slot held the previous one's: VectorSemantic,
// created with the collection, when none ever held any, else a new name
// (semantic_2, semantic_3, ...). A new name, because Weaviate fixes a
// vector index's length at its first vector and cannot drop an index
// (its drop endpoint is experimental and off by default in v1.39), while a
// new semantic model often has another length; writing an object with
// only the new named vector removes its old one.
func nextSlot(slot string) string {
	switch {
	case slot == "":
		return VectorSemantic
	case slot == VectorSemantic:
		return VectorSemantic + "_2"
	}
	n, _ := strconv.Atoi(strings.TrimPrefix(slot, VectorSemantic+"_"))
	return fmt.Sprintf("%s_%d", VectorSemantic, n+1)
}

// chunkFields lists the chunk properties read back by queries.
var chunkFields = []string{
	"source", "kind", "path", "symbol", "symbol_kind", "language", "signature", "content",
	"start_line", "end_line", "ordinal", "commit_sha", "branch", "url", "author", "version",
	"modified_at", "indexed_at", "content_hash", "acl", "calls", "types", "package",
}

// ensureSchema creates the chunk, state and vocabulary collections when missing and
// checks an existing chunk collection (named vectors, embedder). Several
// ragbot processes may start at once on a fresh Weaviate: a create that
// loses the race is answered "already exists", and the collection the
// winner made is then read back and checked like any existing one.
func (s *Store) ensureSchema(ctx context.Context) error {
	class := chunkClass(s.chunk, s.emb, s.sem, s.vindex)
	if s.shards > 0 {
		class.ShardingConfig = map[string]any{"desiredCount": s.shards}
	}
	got, err := s.ensureClass(ctx, class)
	if err != nil {
		return err
	}
	if got == nil { // created
		s.semStore, s.slot = s.sem, ""
		if s.sem != "" {
			s.slot = VectorSemantic
		}
		return s.ensureCompanions(ctx)
	}
	if _, ok := got.VectorConfig[VectorLexical]; !ok {
		return fmt.Errorf("weaviate collection %s has one unnamed vector, not the named vectors %q and %q of this version; re-index with `ragbot index --recreate`: %w",
			s.chunk, VectorLexical, VectorSemantic, ErrLegacySchema)
	}
	have, sem, slot := parseEmbedders(got.Description)
	if have != s.emb {
		return fmt.Errorf("weaviate collection %s holds vectors from embedder %q, configured embedder is %q; re-index with `ragbot index --recreate`: %w",
			s.chunk, have, s.emb, ErrEmbedderMismatch)
	}
	s.semStore, s.slot = sem, slot
	if err := s.checkShards(got); err != nil {
		return err
	}
	if err := s.checkVectorIndex(got); err != nil {
		return err
	}
	if err := s.addMissing(ctx, got, append([]*models.Property{refsProperty(), pendingProp()}, callsProperties()...)...); err != nil {
		return err
	}
	return s.ensureCompanions(ctx)
}

// addMissing adds to a chunk collection made before they existed the
// properties of want it lacks (Weaviate docs, 'Add a property'): refs,
// calls, types and package, whose arrival changed the indexer's settings
// fingerprint so that the next run of each source rewrites its chunks with
// them, and semantic_pending, which old chunks never need (they have their
// semantic vector).
func (s *Store) addMissing(ctx context.Context, got *models.Class, want ...*models.Property) error {
	for _, w := range want {
		if slices.ContainsFunc(got.Properties, func(p *models.Property) bool { return p.Name == w.Name }) {
			continue
		}
		err := s.client.Schema().PropertyCreator().WithClassName(s.chunk).WithProperty(w).Do(ctx)
		if err != nil && !alreadyExists(err) {
			return fmt.Errorf("weaviate: add property %s to collection %s: %w", w.Name, s.chunk, describe(err))
		}
	}
	return nil
}

// ensureCompanions creates the state and vocabulary collections when
// missing: an index made before vocabularies were stored gets an empty
// one, and its sources have none until `ragbot index` counts them.
func (s *Store) ensureCompanions(ctx context.Context) error {
	if _, err := s.ensureClass(ctx, stateClass(s.state)); err != nil {
		return err
	}
	_, err := s.ensureClass(ctx, vocabClass(s.vocab))
	return err
}

// ensureClass creates class unless a collection of its name exists, and
// checks the replication factor of the one there, which it returns as read
// (nil when it created it). Errors: reading or creating the collection
// failed, ErrReplicationMismatch.
func (s *Store) ensureClass(ctx context.Context, class *models.Class) (*models.Class, error) {
	got, err := s.client.Schema().ClassGetter().WithClassName(class.Class).Do(localSchema(ctx))
	if isNotFound(err) {
		created, cerr := s.createClass(ctx, class)
		if cerr != nil || created {
			return nil, cerr
		}
		got, err = s.client.Schema().ClassGetter().WithClassName(class.Class).Do(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("weaviate: read collection %s: %w", class.Class, describe(err))
	}
	if err := s.checkReplication(got); err != nil {
		return nil, err
	}
	return got, nil
}

// ErrReplicationMismatch is wrapped by OpenStore (and OpenFeedback) when a
// collection exists with another replication factor than the configured
// one (StoreConfig.ReplicationFactor, weaviate.replication_factor): ragbot
// does not silently use fewer, or more, copies than configured.
var ErrReplicationMismatch = errors.New("collection has another replication factor")

// checkReplication compares an existing collection's replication factor
// (absent means Weaviate's default, 1) with the configured one.
func (s *Store) checkReplication(got *models.Class) error {
	have := int64(1)
	if got.ReplicationConfig != nil && got.ReplicationConfig.Factor > 0 {
		have = got.ReplicationConfig.Factor
	}
	if have != int64(s.repl) {
		return fmt.Errorf("weaviate collection %s has replication factor %d, weaviate.replication_factor is %d; set weaviate.replication_factor: %d, or re-create the collection with `ragbot index --recreate`: %w",
			got.Class, have, s.repl, have, ErrReplicationMismatch)
	}
	return nil
}

// ErrShardsMismatch is wrapped by OpenStore when the chunk collection exists
// with another shard count than a configured one (StoreConfig.Shards,
// weaviate.shards): Weaviate cannot change it in place (Weaviate docs,
// "Cluster Configuration": shardingConfig is immutable), so the fix is a
// new collection.
var ErrShardsMismatch = errors.New("collection has another shard count")

// checkShards compares an existing chunk collection's shard count
// (shardingConfig.actualCount, else desiredCount) with a configured one; 0
// configured accepts any.
func (s *Store) checkShards(got *models.Class) error {
	if s.shards == 0 {
		return nil
	}
	have := shardCount(got.ShardingConfig)
	if have != s.shards {
		return fmt.Errorf("weaviate collection %s has %d shards, weaviate.shards is %d; set weaviate.shards: %d (or 0), or re-create the collection with `ragbot index --recreate`: %w",
			got.Class, have, s.shards, have, ErrShardsMismatch)
	}
	return nil
}

// ErrVectorIndexMismatch is wrapped by OpenStore when the chunk collection
// exists with another vector index type than a configured one
// (StoreConfig.VectorIndex, weaviate.vector_index): vectorIndexType is
// immutable (Weaviate docs, "Vector index"), so the fix is a new collection.
var ErrVectorIndexMismatch = errors.New("collection has another vector index type")

// checkVectorIndex compares an existing chunk collection's lexical vector
// index type with a configured one; "" configured accepts any.
func (s *Store) checkVectorIndex(got *models.Class) error {
	have := got.VectorConfig[VectorLexical].VectorIndexType
	if s.vindex == "" || have == s.vindex {
		return nil
	}
	return fmt.Errorf("weaviate collection %s has %s vector indexes, weaviate.vector_index is %s; set weaviate.vector_index: %s (or leave it out), or re-create the collection with `ragbot index --recreate`: %w",
		got.Class, have, s.vindex, have, ErrVectorIndexMismatch)
}

// shardCount reads a class's shardingConfig as the Go client decodes it (a
// JSON object): actualCount, or desiredCount when that is absent; 0 when
// neither is there.
func shardCount(cfg any) int {
	m, _ := cfg.(map[string]any)
	for _, k := range []string{"actualCount", "desiredCount"} {
		switch n := m[k].(type) {
		case float64:
			return int(n)
		case int:
			return n
		case int64:
			return int(n)
		case json.Number:
			i, _ := n.Int64()
			return int(i)
		}
	}
	return 0
}

// Consistency levels (Weaviate docs, "Consistency": "Tunable consistency").
const (
	ConsistencyOne    = "ONE"
	ConsistencyQuorum = "QUORUM"
	ConsistencyAll    = "ALL"
)

// replication fills in StoreConfig's replication defaults and checks them:
// factor 0 is 1; level "" is QUORUM with more than one replica, else ONE.
func replication(factor int, level string) (int, string, error) {
	factor = cmp.Or(factor, 1)
	if factor < 1 {
		return 0, "", fmt.Errorf("weaviate store: replication factor must be at least 1, got %d", factor)
	}
	switch level {
	case "":
		level = ConsistencyOne
		if factor > 1 {
			level = ConsistencyQuorum
		}
	case ConsistencyOne, ConsistencyQuorum, ConsistencyAll:
	default:
		return 0, "", fmt.Errorf("weaviate store: consistency level must be ONE, QUORUM or ALL, got %q", level)
	}
	return factor, level, nil
}

// createClass creates class with the configured replication factor. created is false, with a nil error, when
// Weaviate answers that a collection of that name already exists (HTTP 422,
// "class already exists", as when another process created it
// between our read and our create): the caller then reads the existing one.
func (s *Store) createClass(ctx context.Context, class *models.Class) (created bool, err error) {
	class.ReplicationConfig = &models.ReplicationConfig{Factor: int64(s.repl)}
	err = s.client.Schema().ClassCreator().WithClass(class).Do(ctx)
	if err == nil {
		return true, nil
	}
	if alreadyExists(err) {
		return false, nil
	}
	return false, fmt.Errorf("weaviate: create collection %s: %w", class.Class, describe(err))
}

// alreadyExists reports whether err is Weaviate's answer to creating a
// collection that exists: status 422 with "already exists" in the message
// (v1.39 says "updating schema: TYPE_ADD_CLASS: class already exists").
func alreadyExists(err error) bool {
	var we *fault.WeaviateClientError
	return errors.As(err, &we) && we.StatusCode == 422 && strings.Contains(strings.ToLower(we.Msg), "already exists")
}

// gqlLevel is the consistency level of GraphQL Get queries: "" (none sent)
// for a collection of one replica, as Weaviate's GraphQL schema has the
// consistencyLevel argument only on classes with a replication factor above
// 1 ("Unknown argument" otherwise); with one replica every level reads the
// same single copy.
func (s *Store) gqlLevel() string {
	if s.repl > 1 {
		return s.cl
	}
	return ""
}
