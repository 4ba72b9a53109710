package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/models"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// newEmbedder returns the configured embedder. For kind "static" it loads
// the model (embedder.model, or the one built into the binary) and, with
// embedder.adapt, the model refined on the indexed sources when one was made
// from this base model; it never refines (`ragbot index` does, refine.go).
func newEmbedder(ctx context.Context, cfg *config.Config, stderr io.Writer) (retrieval.Embedder, error) {
	if cfg.Embedder.Kind == "openai" {
		return newOpenAIEmbedder(ctx, cfg) // llm.go
	}
	if cfg.Embedder.Kind == "codesearch" {
		return newCodeSearchEmbedder(cfg)
	}
	if cfg.Embedder.Kind != "static" {
		return embed.NewOffline(), nil
	}
	base, hash, err := loadStaticModel(cfg)
	if err != nil {
		return nil, err
	}
	if !cfg.Embedder.Adapt {
		return embed.NewStatic(base, hash), nil
	}
	path := adaptedModelPath(cfg)
	m, h, meta, err := wordvec.LoadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(stderr, "note: embedder.adapt is set but no refined model exists yet (%s); using the base model until `ragbot index` makes one\n", path)
		return embed.NewStatic(base, hash), nil
	case err != nil:
		return nil, err
	case !embed.RefinedFrom(meta, hash):
		fmt.Fprintf(stderr, "note: the refined model %s was made from another base model; using the base model until `ragbot index` refines it again\n", path)
		return embed.NewStatic(base, hash), nil
	}
	return embed.NewStatic(m, h), nil
}

// loadStaticModel reads embedder.model, or the built-in model when it is
// empty, and returns it with its hex SHA-256.
func loadStaticModel(cfg *config.Config) (*wordvec.Model, string, error) {
	if cfg.Embedder.Model == "" {
		m, _, err := wordvec.Load(bytes.NewReader(models.StaticV1))
		if err != nil {
			return nil, "", fmt.Errorf("built-in static model: %w", err)
		}
		sum := sha256.Sum256(models.StaticV1)
		return m, hex.EncodeToString(sum[:]), nil
	}
	path := cfg.Resolve(cfg.Embedder.Model)
	m, hash, _, err := wordvec.LoadFile(path)
	if err != nil {
		return nil, "", fmt.Errorf("embedder.model: %w", err)
	}
	return m, hash, nil
}

// adaptedModelPath is where the model refined on the indexed sources is
// kept: beside the local Weaviate data dir, one file per collection.
func adaptedModelPath(cfg *config.Config) string {
	dir := filepath.Dir(cfg.Resolve(cfg.Weaviate.DataDir))
	return filepath.Join(dir, "embedder", cfg.Weaviate.Collection+".static.bin")
}

// openStore opens the store for a's embedder. For an index run with the
// static embedder, or with --recreate, a collection embedded by another
// model (retrained, refined, or another kind) is dropped and recreated, so
// the run embeds every source anew with the current vectors instead of
// failing with weaviate.ErrEmbedderMismatch; other commands still refuse
// the mismatch.
func (a *app) openStore(ctx context.Context, sc weaviate.StoreConfig, flags commonFlags) (*weaviate.Store, error) {
	if !flags.indexing || (a.cfg.Embedder.Kind != "static" && !flags.recreate) {
		return weaviate.OpenStore(ctx, sc, a.embedder.Name())
	}
	s, prev, err := weaviate.OpenStoreReembed(ctx, sc, a.embedder.Name())
	if prev != "" {
		fmt.Fprintf(a.stderr, "the collection held vectors of embedder %s; re-embedding every source with %s\n", prev, a.embedder.Name())
	}
	return s, err
}

// newCodeSearchEmbedder loads embedder.model, or the codesearch model built
// into the binary when it is empty.
func newCodeSearchEmbedder(cfg *config.Config) (retrieval.Embedder, error) {
	if cfg.Embedder.Model == "" {
		m, hash, err := codesearch.Load(models.CodeSearchV1)
		if err != nil {
			return nil, fmt.Errorf("built-in codesearch model: %w", err)
		}
		return embed.NewCodeSearch(m, hash), nil
	}
	m, hash, err := codesearch.LoadFile(cfg.Resolve(cfg.Embedder.Model))
	if err != nil {
		return nil, fmt.Errorf("embedder.model: %w", err)
	}
	return embed.NewCodeSearch(m, hash), nil
}
