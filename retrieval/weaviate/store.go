package weaviate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/fault"
	"github.com/weaviate/weaviate/entities/models"
)

// StoreConfig says which Weaviate to use and which collections.
type StoreConfig struct {
	URL string // "http://127.0.0.1:8079"; scheme and host only
	// Failover lists more nodes of the same Weaviate cluster (scheme and
	// host), tried in order when URL, or the node last used, refuses the
	// connection (failover.go). Empty: URL alone.
	Failover   []string
	APIKey     string        // optional; sent as a bearer token
	ChunkClass string        // collection of chunks ["Chunk"]
	StateClass string        // collection of source states [ChunkClass+"SourceState", "SourceState" for "Chunk"]
	Timeout    time.Duration // per request [60s]
	Logger     *slog.Logger  // [slog.Default()]

	// Semantic names the semantic embedder (retrieval.Pair's second), ""
	// for none. With it, the vectors that Upsert takes and that Vectors and
	// VectorsByHash return are the lexical vector (LexicalDim floats)
	// followed by the semantic one, as retrieval.Pair makes them, stored as
	// the named vectors VectorLexical and VectorSemantic; and Search reads
	// Query.Semantic.
	Semantic string
	// LexicalDim is the lexical embedder's vector length; required with
	// Semantic.
	LexicalDim int
	// SemanticWeight is the semantic vector's share (0..1) of the vector
	// side of hybrid search; the lexical vector has the rest.
	SemanticWeight float64
	// Reembed, when set, lets OpenStore bring the semantic vectors in line
	// with Semantic instead of refusing a collection whose semantic vectors
	// come from another embedder or from none (ErrSemanticMismatch): it
	// re-embeds every object's semantic vector, keeping its properties and
	// lexical vector (see Reembedder). Index runs set it.
	Reembed *Reembedder
	// Observe, when set, is told about every HTTP request to Weaviate
	// (metrics).
	Observe RequestObserver
	// ReplicationFactor is how many copies of each object Weaviate keeps
	// across its nodes (Weaviate docs, "Replication"): the
	// replicationConfig.factor of the collections OpenStore creates, and the
	// factor an existing collection must have (else ErrReplicationMismatch).
	// It must not exceed the cluster's node count. [1]
	ReplicationFactor int
	// ConsistencyLevel is how many replicas must answer a read or
	// acknowledge a write: "ONE", "QUORUM" (a majority) or "ALL" (Weaviate
	// docs, "Consistency"), sent with searches, object reads, batch writes
	// and deletes. ["QUORUM" when ReplicationFactor > 1, else "ONE"]
	ConsistencyLevel string
	// Shards is the chunk collection's shardingConfig.desiredCount when
	// OpenStore creates it (Weaviate docs, "Cluster Configuration"), and
	// the shard count an existing one must have (else ErrShardsMismatch).
	// 0 sends none: Weaviate makes one shard per node, and any existing
	// count is accepted. The state, vocabulary and other small collections
	// always get Weaviate's default. [0]
	Shards int
	// VectorIndex is the vectorIndexType of both named vectors of the chunk
	// collection OpenStore creates, "hnsw" or "flat" (Weaviate docs,
	// "Vector index"), and the type an existing one must have (else
	// ErrVectorIndexMismatch). "" creates flat and accepts either. [""]
	VectorIndex string
}

// Store is the Weaviate store of chunks and source states. It is safe for
// concurrent use. It holds no resources that need closing.
type Store struct {
	client *weaviate.Client
	http   *http.Client // under client: same transport (failover, observer)
	base   string       // StoreConfig.URL without a trailing slash
	apiKey string
	health *Health // the chunk collection's shards, see Health
	chunk  string
	state  string
	vocab  string // collection of source vocabularies (vocab.go)
	emb    string // embedder name recorded in the chunk collection
	log    *slog.Logger

	sem      string  // semantic embedder configured ("" none)
	semStore string  // semantic embedder recorded in the collection ("" none)
	slot     string  // named vector holding (or that last held) semantic vectors, "" when none ever did
	lexDim   int     // length of the lexical part of a Pair vector
	semW     float64 // StoreConfig.SemanticWeight

	repl   int    // StoreConfig.ReplicationFactor
	cl     string // StoreConfig.ConsistencyLevel
	shards int    // StoreConfig.Shards
	vindex string // StoreConfig.VectorIndex

	counts  countCache   // DocFreq's counts by filter and term (docfreq.go)
	vocabs  vocabCache   // Vocabulary's stamps and terms (vocabcache.go)
	pending pendingCache // healthPending's last count (state.go)
}

// ErrEmbedderMismatch is wrapped by OpenStore when the collection holds
// vectors from another embedder; the fix is a full re-index into a new
// collection (`ragbot index --recreate`, or OpenStoreReembed for a run that
// may re-embed).
var ErrEmbedderMismatch = errors.New("collection was embedded by another embedder")

// ErrSemanticMismatch is wrapped by OpenStore when a semantic embedder is
// configured but the collection's semantic vectors come from another one,
// or from none; `ragbot index` re-embeds them (StoreConfig.Reembed).
var ErrSemanticMismatch = errors.New("collection's semantic vectors were made by another embedder")

// ErrLegacySchema is wrapped by OpenStore when the chunk collection has the
// single unnamed vector of an earlier ragbot instead of the named vectors
// VectorLexical and VectorSemantic. Weaviate cannot turn an unnamed vector
// into a named one in place, so the fix is a new collection: `ragbot index
// --recreate` (or OpenStoreReembed, which drops it).
var ErrLegacySchema = errors.New("collection has the single-vector schema of an earlier ragbot")

// batchSize is how many objects go in one batch request: small enough to keep
// a request under a few MB with 384-dim vectors and 4 KB of text each.
const batchSize = 200

// OpenStore connects to Weaviate, creates the chunk and state collections if
// missing, and checks that the chunk collection was made by the embedder named
// embedder (its lexical vectors) and, when cfg.Semantic is set, that its
// semantic vectors come from cfg.Semantic; with cfg.Reembed it re-embeds
// them when they do not. Errors: the server unreachable, a schema request
// failing, ErrEmbedderMismatch (wrapped, naming both embedders),
// ErrLegacySchema, ErrSemanticMismatch, or a re-embedding error.
func OpenStore(ctx context.Context, cfg StoreConfig, embedder string) (*Store, error) {
	cfg.ChunkClass, cfg.StateClass = classNames(cfg)
	cfg.Logger = cmp.Or(cfg.Logger, slog.Default())
	client, hc, err := newClients(cfg)
	if err != nil {
		return nil, err
	}
	if cfg.Semantic != "" && cfg.LexicalDim <= 0 {
		return nil, fmt.Errorf("weaviate store: semantic embedder %q needs the lexical vector length (LexicalDim)", cfg.Semantic)
	}
	if w := cfg.SemanticWeight; w < 0 || w > 1 {
		return nil, fmt.Errorf("weaviate store: semantic weight %g out of range 0..1", w)
	}
	repl, cl, err := replication(cfg.ReplicationFactor, cfg.ConsistencyLevel)
	if err != nil {
		return nil, err
	}
	switch cfg.VectorIndex {
	case "", "hnsw", "flat":
	default:
		return nil, fmt.Errorf("weaviate store: vector index must be hnsw or flat, got %q", cfg.VectorIndex)
	}
	if cfg.Shards < 0 {
		return nil, fmt.Errorf("weaviate store: shards must be 0 (Weaviate's default) or more, got %d", cfg.Shards)
	}
	s := &Store{client: client, http: hc, base: strings.TrimRight(cfg.URL, "/"), apiKey: cfg.APIKey, chunk: cfg.ChunkClass, state: cfg.StateClass, vocab: vocabClassName(cfg), emb: embedder, log: cfg.Logger,
		sem: cfg.Semantic, lexDim: cfg.LexicalDim, semW: cfg.SemanticWeight, repl: repl, cl: cl, shards: cfg.Shards, vindex: cfg.VectorIndex}
	s.health = newHealth(s)
	if err := s.ensureSchema(ctx); err != nil {
		return nil, err
	}
	if s.sem == s.semStore || (s.sem == "" && cfg.Reembed == nil) {
		return s, nil // without a semantic embedder, recorded semantic vectors are not read
	}
	if cfg.Reembed == nil {
		return nil, fmt.Errorf("weaviate collection %s holds semantic vectors of embedder %s, configured semantic embedder is %q; `ragbot index` re-embeds them: %w",
			s.chunk, cmp.Or(s.semStore, "none"), s.sem, ErrSemanticMismatch)
	}
	if err := s.reembedSemantic(ctx, cfg.Reembed); err != nil {
		return nil, err
	}
	return s, nil
}

// Semantic is the semantic embedder whose vectors Search reads, "" when
// there is none.
func (s *Store) Semantic() string { return s.sem }

// RecordedSemantic is the semantic embedder the chunk collection records
// for its semantic vectors, "" when none (as of OpenStore).
func (s *Store) RecordedSemantic() string { return s.semStore }

// ChunkClass is the name of the chunk collection.
func (s *Store) ChunkClass() string { return s.chunk }

// Recreate drops the chunk, state and vocabulary collections and creates
// them empty: every source must then be indexed again. Used after an
// embedder change and by tests.
func (s *Store) Recreate(ctx context.Context) error {
	if err := s.Drop(ctx); err != nil {
		return err
	}
	return s.ensureSchema(ctx)
}

// Drop deletes the chunk, state and vocabulary collections (tests use it
// to clean up).
func (s *Store) Drop(ctx context.Context) error {
	s.vocabs.invalidate()
	return dropClasses(ctx, s.client, s.chunk, s.state, s.vocab)
}

// dropClasses deletes the collections named, in order; a missing one is no
// error.
func dropClasses(ctx context.Context, client *weaviate.Client, names ...string) error {
	for _, c := range names {
		if err := client.Schema().ClassDeleter().WithClassName(c).Do(ctx); err != nil && !isNotFound(err) {
			return fmt.Errorf("weaviate: delete collection %s: %w", c, describe(err))
		}
	}
	return nil
}

// Upsert writes chunks with their vectors (vectors[i] belongs to chunks[i];
// with a semantic embedder, lexical and semantic concatenated, see
// StoreConfig.Semantic) in batches of batchSize. Each chunk is validated first. Weaviate answers a
// batch with HTTP 200 even when objects failed (Weaviate docs, 'Batch
// import', "Error handling"), so every object's result is checked; the
// batches go on after a failed object, and the error is then a *BatchError
// naming each failed chunk by source, path and symbol, with the counts. A
// failed object's state is unknown: the caller retries the run, and the
// idempotent ids make that safe. With a semantic embedder, a vector of the
// lexical length alone stores the chunk with its semantic vector pending:
// absent from the semantic index (found by BM25 and the lexical vector),
// marked for ListStored and CountPending until a write with both vectors.
func (s *Store) Upsert(ctx context.Context, chunks []retrieval.Chunk, vectors [][]float32) error {
	if len(chunks) != len(vectors) {
		return fmt.Errorf("upsert: %d chunks but %d vectors", len(chunks), len(vectors))
	}
	var verr []error
	for _, c := range chunks {
		if err := c.Validate(); err != nil {
			verr = append(verr, err)
		}
	}
	named := make([]models.Vectors, len(vectors))
	for i, v := range vectors {
		var err error
		if named[i], err = s.split(v); err != nil {
			verr = append(verr, fmt.Errorf("%s %s %q: %w", chunks[i].Source, chunks[i].Path, chunks[i].Symbol, err))
		}
	}
	if err := errors.Join(verr...); err != nil {
		return fmt.Errorf("upsert: %w", err)
	}
	be := &BatchError{}
	for start := 0; start < len(chunks); start += batchSize {
		end := min(start+batchSize, len(chunks))
		objs := make([]*models.Object, 0, end-start)
		byID := make(map[strfmt.UUID]retrieval.Chunk, end-start)
		for i := start; i < end; i++ {
			id := strfmt.UUID(chunks[i].ID())
			byID[id] = chunks[i]
			props := chunkProperties(chunks[i])
			if _, ok := named[i][s.slot]; s.sem != "" && !ok {
				props[pendingProperty] = true
			}
			objs = append(objs, &models.Object{Class: s.chunk, ID: id, Properties: props, Vectors: named[i]})
		}
		resp, err := s.client.Batch().ObjectsBatcher().WithObjects(objs...).WithConsistencyLevel(s.cl).Do(ctx)
		if err != nil {
			if len(be.Failed) > 0 {
				return fmt.Errorf("weaviate batch upsert of %d objects: %w (after %w)", len(objs), describe(err), be)
			}
			return fmt.Errorf("weaviate batch upsert of %d objects: %w", len(objs), describe(err))
		}
		failed := batchFailures(resp, byID)
		be.Failed = append(be.Failed, failed...)
		be.Stored += len(objs) - len(failed)
	}
	if len(be.Failed) > 0 {
		return be
	}
	return nil
}

// split turns a vector as the embedder made it into the named vectors: all
// of it lexical without a semantic embedder, else the first lexDim floats
// lexical and the rest semantic (in s.slot). A vector of lexDim floats is
// lexical alone: its semantic vector is pending.
func (s *Store) split(v []float32) (models.Vectors, error) {
	if s.sem == "" || len(v) == s.lexDim {
		return models.Vectors{VectorLexical: v}, nil
	}
	if len(v) < s.lexDim {
		return nil, fmt.Errorf("vector of %d floats, want %d lexical and the semantic ones after them", len(v), s.lexDim)
	}
	return models.Vectors{VectorLexical: v[:s.lexDim], s.slot: v[s.lexDim:]}, nil
}

// joined is the inverse of split for vectors read back: lexical, then
// semantic when a semantic embedder is configured and the object has a
// semantic vector (else lexical alone, which a caller checking the length
// against the embedder's Dim sees as missing).
func (s *Store) joined(named map[string][]float32) []float32 {
	lex := named[VectorLexical]
	sem := named[s.slot]
	if s.sem == "" || len(sem) == 0 || len(lex) == 0 {
		return lex
	}
	return append(append(make([]float32, 0, len(lex)+len(sem)), lex...), sem...)
}

// A FailedChunk is one object that a batch reply marks FAILED.
type FailedChunk struct {
	ID, Source, Path, Symbol string
	Message                  string // Weaviate's error messages, joined with "; "
}

// BatchError is what Upsert returns when objects failed inside HTTP 200
// replies: the failed chunks, and how many of the others were stored.
type BatchError struct {
	Stored int
	Failed []FailedChunk
}

// Error names the first five failed chunks and the counts.
func (e *BatchError) Error() string {
	shown := e.Failed
	if len(shown) > 5 {
		shown = shown[:5]
	}
	parts := make([]string, len(shown))
	for i, f := range shown {
		parts[i] = fmt.Sprintf("%s %s %q (id %s): %s", f.Source, f.Path, f.Symbol, f.ID, f.Message)
	}
	more := ""
	if n := len(e.Failed) - len(shown); n > 0 {
		more = fmt.Sprintf(" | and %d more", n)
	}
	return fmt.Sprintf("weaviate batch upsert: %d of %d objects failed (%d stored): %s%s",
		len(e.Failed), len(e.Failed)+e.Stored, e.Stored, strings.Join(parts, " | "), more)
}

// batchFailures returns the FAILED entries of a batch reply, each named by
// the chunk sent under its id.
func batchFailures(resp []models.ObjectsGetResponse, byID map[strfmt.UUID]retrieval.Chunk) []FailedChunk {
	var failed []FailedChunk
	for _, r := range resp {
		if r.Result == nil {
			continue
		}
		var msgs []string
		if r.Result.Errors != nil {
			for _, e := range r.Result.Errors.Error {
				msgs = append(msgs, e.Message)
			}
		}
		if len(msgs) == 0 && (r.Result.Status == nil || *r.Result.Status != "FAILED") {
			continue
		}
		c := byID[r.ID]
		failed = append(failed, FailedChunk{ID: string(r.ID), Source: c.Source, Path: c.Path, Symbol: c.Symbol,
			Message: strings.Join(msgs, "; ")})
	}
	return failed
}

func chunkProperties(c retrieval.Chunk) map[string]any {
	p := map[string]any{
		"source": c.Source, "kind": c.Kind, "path": c.Path, "symbol": c.Symbol,
		"symbol_kind": c.SymbolKind, "language": c.Language, "signature": c.Signature,
		"content": c.Content, "search_text": c.SearchText,
		"start_line": c.StartLine, "end_line": c.EndLine, "ordinal": c.Ordinal,
		"commit_sha": c.CommitSHA, "branch": c.Branch, "url": c.URL, "author": c.Author,
		"version": c.Version, "indexed_at": c.IndexedAt.UTC().Format(time.RFC3339Nano),
		"content_hash": c.ContentHash, "acl": aclValues(c.ACL),
	}
	if len(c.Refs) > 0 {
		p["refs"] = c.Refs
	}
	if len(c.Calls) > 0 {
		p["calls"] = c.Calls
	}
	if c.Types != "" {
		p["types"] = c.Types
	}
	if c.Package != "" {
		p["package"] = c.Package
	}
	if !c.ModifiedAt.IsZero() {
		p["modified_at"] = c.ModifiedAt.UTC().Format(time.RFC3339Nano)
	}
	return p
}

// aclValues is the stored acl: the groups, or ACLEveryone when there are none.
func aclValues(acl []string) []string {
	if len(acl) == 0 {
		return []string{ACLEveryone}
	}
	return acl
}

// DeleteIDs deletes chunks by object id, as DeleteChunks does, without the
// count.
func (s *Store) DeleteIDs(ctx context.Context, ids []string) error {
	_, err := s.DeleteChunks(ctx, ids)
	return err
}

// isNotFound reports a 404 from the client.
func isNotFound(err error) bool {
	var we *fault.WeaviateClientError
	return errors.As(err, &we) && we.StatusCode == 404
}

// describe turns a client error into one that carries the server's message.
func describe(err error) error {
	var we *fault.WeaviateClientError
	if errors.As(err, &we) {
		if we.DerivedFromError != nil {
			return fmt.Errorf("status %d: %s: %w", we.StatusCode, we.Msg, we.DerivedFromError)
		}
		return fmt.Errorf("status %d: %s", we.StatusCode, we.Msg)
	}
	return err
}

// batchErrors folds the FAILED entries of a reply to a batch of single
// objects (a state, a vote) into one error with their messages, or nil;
// the caller names the object.
func batchErrors(resp []models.ObjectsGetResponse) error {
	failed := batchFailures(resp, nil)
	if len(failed) == 0 {
		return nil
	}
	msgs := make([]string, len(failed))
	for i, f := range failed {
		msgs[i] = fmt.Sprintf("object %s failed: %s", f.ID, f.Message)
	}
	return errors.New(strings.Join(msgs, " | "))
}
