package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/models"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// embedderKinds makes the embedder of each embedder kind from its settings
// e (embedder, or embedder.semantic): adding a kind is one entry here (init
// adds its name to config.EmbedderKinds, so the config accepts it).
var embedderKinds = map[string]func(ctx context.Context, cfg *config.Config, e config.Embedder, stderr io.Writer) (retrieval.Embedder, error){
	"offline": func(context.Context, *config.Config, config.Embedder, io.Writer) (retrieval.Embedder, error) {
		return embed.NewOffline(), nil
	},
	"codesearch": func(_ context.Context, cfg *config.Config, e config.Embedder, _ io.Writer) (retrieval.Embedder, error) {
		c := *cfg
		c.Embedder = e
		return newCodeSearchEmbedder(&c)
	},
	"openai": func(ctx context.Context, cfg *config.Config, e config.Embedder, _ io.Writer) (retrieval.Embedder, error) {
		c := *cfg
		c.Embedder = e
		return newOpenAIEmbedder(ctx, &c) // llm.go
	},
}

func init() {
	kinds := slices.Sorted(maps.Keys(embedderKinds))
	for _, k := range kinds {
		if !slices.Contains(config.EmbedderKinds, k) {
			config.EmbedderKinds = append(config.EmbedderKinds, k)
		}
	}
}

// newEmbedder returns the configured embedder: the embedder of
// embedder.kind, or, with embedder.semantic, a retrieval.Pair of it and the
// semantic embedder.
func newEmbedder(ctx context.Context, cfg *config.Config, stderr io.Writer) (retrieval.Embedder, error) {
	lex, err := embedderOf(ctx, cfg, cfg.Embedder, "embedder", stderr)
	if err != nil {
		return nil, err
	}
	return withSemantic(ctx, cfg, lex, stderr)
}

// withSemantic returns lex, or with embedder.semantic set, the Pair of lex
// and the semantic embedder.
func withSemantic(ctx context.Context, cfg *config.Config, lex retrieval.Embedder, stderr io.Writer) (retrieval.Embedder, error) {
	e := cfg.Embedder.Semantic
	if e == nil {
		return lex, nil
	}
	sem, err := embedderOf(ctx, cfg, *e, "embedder.semantic", stderr)
	if err != nil {
		return nil, err
	}
	return retrieval.Pair{Lexical: lex, Semantic: sem, SemanticMaxInputTokens: e.MaxInputTokens}, nil
}

// embedderOf makes the embedder of settings e, found at path p in the config.
func embedderOf(ctx context.Context, cfg *config.Config, e config.Embedder, p string, stderr io.Writer) (retrieval.Embedder, error) {
	mk, ok := embedderKinds[e.Kind]
	if !ok {
		return nil, fmt.Errorf("%s.kind: unknown embedder kind %q", p, e.Kind)
	}
	return mk(ctx, cfg, e, stderr)
}

// lexicalOf is the embedder of emb's lexical vectors: a Pair's Lexical, or
// emb itself.
func lexicalOf(emb retrieval.Embedder) retrieval.Embedder {
	if p, ok := emb.(retrieval.Pair); ok {
		return p.Lexical
	}
	return emb
}

// openStore opens the store for a's embedder: its lexical vectors, and with
// a Pair, its semantic ones. An index run (flags.indexing) brings the
// collection's semantic vectors in line with embedder.semantic, re-embedding
// only them (weaviate.Reembedder), and with --recreate drops the
// collections first. For an index run with the codesearch embedder, a
// collection embedded by another model (retrained, or another kind) or of
// the single-vector schema of an earlier version is dropped and recreated,
// so the run embeds every source anew with the current vectors instead of
// failing with weaviate.ErrEmbedderMismatch; other commands still refuse
// the mismatch.
func (a *app) openStore(ctx context.Context, sc weaviate.StoreConfig, flags commonFlags) (*weaviate.Store, error) {
	lex := lexicalOf(a.embedder)
	if p, ok := a.embedder.(retrieval.Pair); ok {
		sc.Semantic, sc.LexicalDim, sc.SemanticWeight = p.Semantic.Name(), p.Lexical.Dim(), *a.cfg.Retrieval.SemanticWeight
	}
	if flags.indexing {
		first := true
		sc.Reembed = &weaviate.Reembedder{Text: ingest.EmbedText, Progress: func(done int) {
			if first || done%1000 == 0 {
				fmt.Fprintf(a.stderr, "re-embedding the semantic vectors with %s (lexical vectors and text kept): %d chunks so far\n", sc.Semantic, done)
			}
			first = false
		}}
		if p, ok := a.embedder.(retrieval.Pair); ok {
			sc.Reembed.Embed = p.EmbedSemantic
		}
	}
	if flags.recreate {
		if err := weaviate.DropCollections(ctx, sc); err != nil {
			return nil, err
		}
		return weaviate.OpenStore(ctx, sc, lex.Name())
	}
	if !flags.indexing || a.cfg.Embedder.Kind != "codesearch" {
		return weaviate.OpenStore(ctx, sc, lex.Name())
	}
	s, prev, err := weaviate.OpenStoreReembed(ctx, sc, lex.Name())
	if prev != "" {
		fmt.Fprintf(a.stderr, "the collection held vectors of embedder %s; re-embedding every source with %s\n", prev, a.embedder.Name())
	}
	return s, err
}

// newCodeSearchEmbedder loads embedder.model, or the codesearch model built
// into the binary when it is empty.
func newCodeSearchEmbedder(cfg *config.Config) (retrieval.Embedder, error) {
	m, hash, err := loadCodeSearchModel(cfg)
	if err != nil {
		return nil, err
	}
	return embed.NewCodeSearch(m, hash), nil
}

// loadCodeSearchModel reads embedder.model, or the built-in codesearch
// model when it is empty, and returns it with its hex SHA-256.
func loadCodeSearchModel(cfg *config.Config) (*codesearch.Model, string, error) {
	if cfg.Embedder.Model == "" {
		m, hash, err := codesearch.Load(models.CodeSearchV1)
		if err != nil {
			return nil, "", fmt.Errorf("built-in codesearch model: %w", err)
		}
		return m, hash, nil
	}
	m, hash, err := codesearch.LoadFile(cfg.Resolve(cfg.Embedder.Model))
	if err != nil {
		return nil, "", fmt.Errorf("embedder.model: %w", err)
	}
	return m, hash, nil
}
