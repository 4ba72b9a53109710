package connect

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatelocal"
)

// Options say how a command uses the store.
type Options struct {
	Log *slog.Logger // the store's and the local server's logger [slog.Default()]
	// Notices receives short lines for the user: a local Weaviate starting,
	// a collection re-embedded and its progress [io.Discard].
	Notices io.Writer
	// Observe, when set, times the store's Weaviate requests (metrics).
	Observe weaviate.RequestObserver
	// Indexing is set by an index run: the collection's semantic vectors are
	// brought in line with embedder.semantic, re-embedding only them
	// (weaviate.Reembedder), and with embedder.kind codesearch a collection
	// embedded by another model, or of the single-vector schema of an
	// earlier version, is dropped and recreated, so that the run embeds
	// every source anew instead of failing with weaviate.ErrEmbedderMismatch.
	Indexing bool
	// Recreate drops the collections before opening them (index --recreate).
	Recreate bool
}

// Conn is an open store and, when this process started it, the local
// Weaviate server. Close stops that server.
type Conn struct {
	Store  *weaviate.Store
	server *weaviatelocal.Server // nil unless this process started it
	sc     weaviate.StoreConfig  // how Store was opened (Reopen)
}

// Open connects to the Weaviate of cfg and opens its store for emb (its
// lexical vectors, and with a retrieval.Pair, its semantic ones, weighted
// by retrieval.semantic_weight). Without weaviate.url or weaviate.urls it
// uses the local server answering on weaviate.port, or starts one (about
// 10 s) and says so on Notices. When the store cannot be opened because no
// node answers, the error says which nodes were tried and how to start
// one; other errors are the store's (weaviate.ErrEmbedderMismatch among
// them). On error nothing is left running.
func Open(ctx context.Context, cfg *config.Config, emb retrieval.Embedder, opt Options) (*Conn, error) {
	opt = opt.withDefaults()
	var url string
	var failover []string
	if eps := cfg.Weaviate.Endpoints(); len(eps) > 0 {
		url, failover = eps[0], eps[1:]
	}
	c := &Conn{}
	key := os.Getenv(cfg.Weaviate.APIKeyEnv)
	if url == "" {
		var err error
		if url, key, c.server, err = local(ctx, cfg, opt); err != nil {
			return nil, err
		}
	}
	c.sc = weaviate.StoreConfig{
		URL: url, Failover: failover, APIKey: key, ChunkClass: cfg.Weaviate.Collection,
		Timeout: cfg.Weaviate.Timeout, Logger: opt.Log, Observe: opt.Observe,
		ReplicationFactor: cfg.Weaviate.ReplicationFactor, ConsistencyLevel: cfg.Weaviate.ConsistencyLevel,
		Shards:      cfg.Weaviate.Shards,
		VectorIndex: cfg.Weaviate.VectorIndex,
	}
	var err error
	c.Store, err = open(ctx, cfg, emb, c.sc, opt)
	if err != nil {
		c.Close()
		nodes := append([]string{url}, failover...)
		if ctx.Err() == nil && !slices.ContainsFunc(nodes, func(u string) bool { return weaviatelocal.Ready(ctx, u) }) {
			// The client's own error for a refused connection is "status -1:
			// check the DerivedFromError field", which tells a new user nothing.
			opt.Log.Debug("weaviate unreachable", "url", url, "err", err)
			return nil, fmt.Errorf("cannot reach Weaviate at %s: is it running? (`ragbot weaviate`)", strings.Join(nodes, ", "))
		}
		return nil, err
	}
	return c, nil
}

// local returns the URL and API key of the embedded server: one already
// answering on the configured port (e.g. `ragbot weaviate` in another
// terminal), with the key in its data dir, or a child process started
// now, returned too.
func local(ctx context.Context, cfg *config.Config, opt Options) (string, string, *weaviatelocal.Server, error) {
	url := fmt.Sprintf("http://127.0.0.1:%d", cfg.Weaviate.Port)
	dataDir := cfg.Resolve(cfg.Weaviate.DataDir)
	if weaviatelocal.Ready(ctx, url) {
		opt.Log.Debug("using running weaviate", "url", url)
		key, err := runningKey(ctx, url, dataDir)
		return url, key, nil, err
	}
	fmt.Fprintf(opt.Notices, "starting local Weaviate on %s (about 10 s)...\n", url)
	srv, err := weaviatelocal.Start(ctx, weaviatelocal.Options{
		Binary: cfg.Weaviate.Binary, DataDir: dataDir, Port: cfg.Weaviate.Port, Logger: opt.Log,
	})
	if err != nil {
		return "", "", nil, err
	}
	return srv.URL, srv.APIKey, srv, nil
}

// runningKey is the API key of the local Weaviate already answering at url:
// the one in dataDir, checked against the server so that a server of
// another data dir on the port is named instead of failing later. A
// server that needs no key (started by an earlier ragbot) gets none.
func runningKey(ctx context.Context, url, dataDir string) (string, error) {
	if weaviatelocal.KeyAccepted(ctx, url, "") {
		return "", nil
	}
	key, err := weaviatelocal.ReadAPIKey(dataDir)
	if err != nil {
		return "", fmt.Errorf("a Weaviate answers on %s but wants an API key: %w (is it the server of another weaviate.data_dir?)", url, err)
	}
	if !weaviatelocal.KeyAccepted(ctx, url, key) {
		return "", fmt.Errorf("the Weaviate on %s refuses the API key in %s: it is the server of another weaviate.data_dir, or was started with another key",
			url, filepath.Join(dataDir, weaviatelocal.APIKeyFile))
	}
	return key, nil
}

// withDefaults fills in the defaults of o's fields.
func (o Options) withDefaults() Options {
	o.Log, o.Notices = cmp.Or(o.Log, slog.Default()), cmp.Or(o.Notices, io.Discard)
	return o
}

// open opens the store of sc for emb as Options say (see Indexing and
// Recreate).
func open(ctx context.Context, cfg *config.Config, emb retrieval.Embedder, sc weaviate.StoreConfig, opt Options) (*weaviate.Store, error) {
	lex := embedders.Lexical(emb)
	p, pair := emb.(retrieval.Pair)
	if pair {
		sc.Semantic, sc.LexicalDim, sc.SemanticWeight = p.Semantic.Name(), p.Lexical.Dim(), *cfg.Retrieval.SemanticWeight
	}
	if opt.Indexing {
		first := true
		sc.Reembed = &weaviate.Reembedder{Text: ingest.EmbedText, Progress: func(done int) {
			if first || done%1000 == 0 {
				fmt.Fprintf(opt.Notices, "re-embedding the semantic vectors with %s (lexical vectors and text kept): %d chunks so far\n", sc.Semantic, done)
			}
			first = false
		}}
		if pair {
			sc.Reembed.Embed = p.EmbedSemantic
		}
	}
	if opt.Recreate {
		if err := weaviate.DropCollections(ctx, sc); err != nil {
			return nil, err
		}
		return weaviate.OpenStore(ctx, sc, lex.Name())
	}
	if !opt.Indexing || cfg.Embedder.Kind != "codesearch" {
		return weaviate.OpenStore(ctx, sc, lex.Name())
	}
	s, prev, err := weaviate.OpenStoreReembed(ctx, sc, lex.Name())
	if prev != "" {
		fmt.Fprintf(opt.Notices, "the collection held vectors of embedder %s; re-embedding every source with %s\n", prev, emb.Name())
	}
	return s, err
}

// Close stops the local server if Open started it.
func (c *Conn) Close() {
	if c.server != nil {
		_ = c.server.Stop(context.Background())
	}
}

// ReopenSemantic runs when the semantic embedder of cfg could not be made
// at start (down: embedders.NewForQuestions), so the store was opened with
// lexical alone. When the collection records the vector length of the
// configured model ("openai:<model>:<dim>"), the semantic embedder is made
// with that length and no request and the store reopened with the Pair,
// which it returns with true (Store is then the reopened store), so that a
// breaker started open (embedders.Guard) brings the semantic side back once
// the endpoint answers. Otherwise it returns lexical and false: the command
// goes on with keywords and the lexical vector. Failures are logged to
// opt.Log.
func (c *Conn) ReopenSemantic(ctx context.Context, cfg *config.Config, lexical retrieval.Embedder, opt Options) (retrieval.Embedder, bool) {
	opt = opt.withDefaults()
	s := cfg.Embedder.Semantic
	dim := embedders.RecordedDim(c.Store.RecordedSemantic(), s.Model)
	if dim == 0 {
		return lexical, false
	}
	sem, err := embedders.SemanticKnown(ctx, *s, dim)
	if err != nil {
		opt.Log.Warn("semantic embedder unavailable; answering from keywords", "err", err)
		return lexical, false
	}
	pair := retrieval.Pair{Lexical: lexical, Semantic: sem, SemanticMaxInputTokens: s.MaxInputTokens}
	st, err := open(ctx, cfg, pair, c.sc, opt)
	if err != nil {
		opt.Log.Warn("semantic vectors unavailable; answering from keywords", "err", err)
		return lexical, false
	}
	c.Store = st
	return pair, true
}
