package weaviate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate/entities/models"

	"github.com/ragbot/ragbot/retrieval"
)

// OpenStoreReembed is OpenStore for an index run that may re-embed: when
// the chunk collection holds vectors of another embedder (a retrained
// codesearch model, whose vectors are cheap to remake) or has the
// single-vector schema of an earlier ragbot (ErrLegacySchema), it drops the
// chunk and state collections and creates them empty for embedder instead
// of failing, and returns the name of the embedder whose vectors it
// dropped ("" when nothing was dropped; "single-vector schema" for a
// legacy collection). The caller must then index every source anew. Its
// other errors are OpenStore's.
func OpenStoreReembed(ctx context.Context, cfg StoreConfig, embedder string) (*Store, string, error) {
	s, err := OpenStore(ctx, cfg, embedder)
	if !errors.Is(err, ErrEmbedderMismatch) && !errors.Is(err, ErrLegacySchema) {
		return s, "", err
	}
	prev := "single-vector schema"
	if errors.Is(err, ErrEmbedderMismatch) {
		if prev, err = collectionEmbedder(ctx, cfg); err != nil {
			return nil, "", err
		}
	}
	if err := DropCollections(ctx, cfg); err != nil {
		return nil, prev, err
	}
	s, err = OpenStore(ctx, cfg, embedder)
	return s, prev, err
}

// DropCollections deletes cfg's chunk, state and vocabulary collections,
// whatever their schema, without opening them (`ragbot index --recreate`);
// missing ones are no error.
func DropCollections(ctx context.Context, cfg StoreConfig) error {
	client, err := newClient(cfg)
	if err != nil {
		return err
	}
	chunk, state := classNames(cfg)
	return dropClasses(ctx, client, chunk, state, vocabClassName(cfg))
}

// classNames are cfg's chunk and state collections with their defaults.
func classNames(cfg StoreConfig) (chunk, state string) {
	chunk = cmp.Or(cfg.ChunkClass, "Chunk")
	return chunk, cmp.Or(cfg.StateClass, companion(chunk, "SourceState"))
}

// vocabClassName is cfg's collection of source vocabularies: beside the
// chunk collection, "SourceVocabulary" for "Chunk".
func vocabClassName(cfg StoreConfig) string {
	chunk, _ := classNames(cfg)
	return companion(chunk, "SourceVocabulary")
}

// companion is the name of the collection that goes with the chunk
// collection chunk: name alone beside the default "Chunk", else chunk+name
// ("MyChunks" has "MyChunksSourceState", "MyChunksFeedback").
func companion(chunk, name string) string {
	if chunk == "Chunk" {
		return name
	}
	return chunk + name
}

// newClient is the Weaviate client of cfg.
func newClient(cfg StoreConfig) (*weaviate.Client, error) {
	c, _, err := newClients(cfg)
	return c, err
}

// newClients is the Weaviate client of cfg and the HTTP client under it
// (for the REST requests the Weaviate client lacks, see health.go): with
// cfg.Failover, it fails over between the nodes (failover.go); with
// cfg.Observe, it times every request.
func newClients(cfg StoreConfig) (*weaviate.Client, *http.Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Host == "" {
		return nil, nil, fmt.Errorf("weaviate url %q: want scheme://host:port", cfg.URL)
	}
	wc := weaviate.Config{Host: u.Host, Scheme: u.Scheme, Timeout: cfg.Timeout}
	hc, err := HTTPClient(cfg)
	if err != nil {
		return nil, nil, err
	}
	// The client takes either AuthConfig or its own http.Client; with ours,
	// the API key goes as the header auth.ApiKey sends.
	wc.ConnectionClient = hc
	if cfg.APIKey != "" {
		wc.Headers = map[string]string{"authorization": "Bearer " + cfg.APIKey}
	}
	client, err := weaviate.NewClient(wc)
	if err != nil {
		return nil, nil, fmt.Errorf("weaviate %s: %w", u.Host, err)
	}
	return client, hc, nil
}

// HTTPClient is the HTTP client under the store's Weaviate client, for
// REST requests made outside a Store (ragbot version's GET /v1/meta):
// requests go to cfg.URL and, with cfg.Failover, to the node that last
// answered, else the next that accepts a connection (failover.go); the
// response's Request.URL names the node that answered. With cfg.Observe
// it times every request. Its Timeout is cfg.Timeout [60s], over all the
// nodes tried. Errors: with cfg.Failover, a node URL that is not
// scheme://host:port.
func HTTPClient(cfg StoreConfig) (*http.Client, error) {
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	var transport http.RoundTripper = http.DefaultTransport
	if len(cfg.Failover) > 0 {
		f, err := newFailover(append([]string{cfg.URL}, cfg.Failover...))
		if err != nil {
			return nil, err
		}
		transport = f
	}
	if cfg.Observe != nil {
		transport = observedTransport{next: transport, observe: cfg.Observe}
	}
	transport = localSchemaTransport{next: transport}
	return &http.Client{Transport: transport, Timeout: timeout}, nil
}

// collectionEmbedder reads the (lexical) embedder name recorded in the
// description of cfg's chunk collection.
func collectionEmbedder(ctx context.Context, cfg StoreConfig) (string, error) {
	client, err := newClient(cfg)
	if err != nil {
		return "", err
	}
	class, _ := classNames(cfg)
	got, err := client.Schema().ClassGetter().WithClassName(class).Do(ctx)
	if err != nil {
		return "", fmt.Errorf("weaviate: read collection %s: %w", class, describe(err))
	}
	lex, _, _ := parseEmbedders(got.Description)
	return lex, nil
}

// A Reembedder remakes the semantic vectors of a collection (see
// StoreConfig.Reembed).
type Reembedder struct {
	// Embed returns the semantic vectors of texts, one per text, in order
	// (retrieval.Pair.EmbedSemantic).
	Embed func(ctx context.Context, texts []string) ([][]float32, error)
	// Text is what the semantic embedder reads for a chunk; only Symbol,
	// Path, Signature and Content are set (ingest.EmbedText reads those).
	Text func(retrieval.Chunk) string
	// Progress, when set, is called after each batch with the objects
	// re-embedded so far.
	Progress func(done int)
	// Batch is how many texts FillPending embeds at once; 0 means
	// fillBatch.
	Batch int
}

// reembedBatch is how many objects are read, embedded and written at once.
const reembedBatch = 100

// reembedSemantic brings the collection's semantic vectors in line with
// s.sem: it adds the named vector nextSlot(s.slot) to the collection
// (Weaviate docs, 'Collection definition', adding named vectors), reads
// every object with its properties and vectors (REST objects list, cursor
// `after`; Weaviate docs, 'Read all objects'), embeds it with re.Embed from
// re.Text, and writes the object back by batch with the same properties,
// its lexical vector and the new semantic one, which replaces the old. Only
// then is the new semantic embedder recorded in the collection, so an
// interrupted run is redone whole by the next one. Without a semantic
// embedder (s.sem "") nothing is embedded: the record is cleared, so that
// the vectors left behind, which later writes no longer keep current, are
// re-embedded whenever one is configured again.
//
// Weaviate gives an object whose vectors changed a new internal doc id, so
// its inverted-index postings are rewritten too (same terms, same BM25
// figures once compacted), as on any upsert of a changed chunk.
func (s *Store) reembedSemantic(ctx context.Context, re *Reembedder) error {
	sc := s.client.Schema()
	class, err := sc.ClassGetter().WithClassName(s.chunk).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: read collection %s: %w", s.chunk, describe(err))
	}
	slot := s.slot
	if s.sem != "" {
		slot = nextSlot(s.slot)
		if _, ok := class.VectorConfig[slot]; !ok {
			class.VectorConfig[slot] = class.VectorConfig[VectorLexical]
			if err := sc.ClassUpdater().WithClass(class).Do(ctx); err != nil {
				return fmt.Errorf("weaviate: add named vector %s to %s: %w", slot, s.chunk, describe(err))
			}
		}
		s.slot = slot
		done := 0
		err := s.eachObjectPage(ctx, "re-embed", func(objs []*models.Object) error {
			if err := s.reembedObjects(ctx, re, objs); err != nil {
				return err
			}
			done += len(objs)
			if re.Progress != nil {
				re.Progress(done)
			}
			return nil
		})
		if err != nil {
			return err
		}
		s.log.Info("re-embedded the semantic vectors", "collection", s.chunk, "from", s.semStore, "to", s.sem, "vector", slot, "objects", done)
		if class, err = sc.ClassGetter().WithClassName(s.chunk).Do(ctx); err != nil {
			return fmt.Errorf("weaviate: read collection %s: %w", s.chunk, describe(err))
		}
	}
	class.Description = describeEmbedders(s.emb, s.sem, slot)
	if err := sc.ClassUpdater().WithClass(class).Do(ctx); err != nil {
		return fmt.Errorf("weaviate: record semantic embedder of %s: %w", s.chunk, describe(err))
	}
	s.semStore = s.sem
	return nil
}

// eachObjectPage calls fn with each page of the collection's objects, with
// their properties and vectors, reembedBatch a page (REST objects list,
// cursor `after`; Weaviate docs, 'Read all objects'), until the last page
// or fn's error. why names the walk in a read error ("re-embed").
func (s *Store) eachObjectPage(ctx context.Context, why string, fn func([]*models.Object) error) error {
	after := ""
	for {
		get := s.client.Data().ObjectsGetter().WithClassName(s.chunk).WithVector().WithLimit(reembedBatch).WithConsistencyLevel(s.cl)
		if after != "" {
			get = get.WithAfter(after)
		}
		objs, err := get.Do(ctx)
		if err != nil {
			return fmt.Errorf("weaviate: read objects of %s to %s: %w", s.chunk, why, describe(err))
		}
		if len(objs) == 0 {
			return nil
		}
		if err := fn(objs); err != nil {
			return err
		}
		if len(objs) < reembedBatch {
			return nil
		}
		after = string(objs[len(objs)-1].ID)
	}
}

// reembedObjects gives objs new semantic vectors and writes them back.
func (s *Store) reembedObjects(ctx context.Context, re *Reembedder, objs []*models.Object) error {
	texts := make([]string, len(objs))
	for i, o := range objs {
		p, _ := o.Properties.(map[string]any)
		str := func(k string) string { v, _ := p[k].(string); return v }
		texts[i] = re.Text(retrieval.Chunk{Symbol: str("symbol"), Path: str("path"), Signature: str("signature"), Content: str("content")})
	}
	vecs, err := re.Embed(ctx, texts)
	if err != nil {
		return fmt.Errorf("re-embed semantic vectors: %w", err)
	}
	if len(vecs) != len(objs) {
		return fmt.Errorf("re-embed semantic vectors: %d vectors for %d texts", len(vecs), len(objs))
	}
	out := make([]*models.Object, len(objs))
	for i, o := range objs {
		lex := o.Vectors[VectorLexical]
		if len(lex) == 0 {
			return fmt.Errorf("re-embed semantic vectors: object %s has no %s vector", o.ID, VectorLexical)
		}
		if p, ok := o.Properties.(map[string]any); ok {
			delete(p, pendingProperty)
		}
		out[i] = &models.Object{Class: s.chunk, ID: o.ID, Properties: o.Properties,
			Vectors: models.Vectors{VectorLexical: lex, s.slot: vecs[i]}}
	}
	resp, err := s.client.Batch().ObjectsBatcher().WithObjects(out...).WithConsistencyLevel(s.cl).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: write re-embedded objects: %w", describe(err))
	}
	if err := batchErrors(resp); err != nil {
		return fmt.Errorf("weaviate: write re-embedded objects: %w", err)
	}
	return nil
}
