package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

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
		return newCodeSearchEmbedder(cfg, stderr)
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
// static or codesearch embedder, or with --recreate, a collection embedded by another
// model (retrained, refined, or another kind) is dropped and recreated, so
// the run embeds every source anew with the current vectors instead of
// failing with weaviate.ErrEmbedderMismatch; other commands still refuse
// the mismatch.
func (a *app) openStore(ctx context.Context, sc weaviate.StoreConfig, flags commonFlags) (*weaviate.Store, error) {
	if !flags.indexing || (a.cfg.Embedder.Kind != "static" && a.cfg.Embedder.Kind != "codesearch" && !flags.recreate) {
		return weaviate.OpenStore(ctx, sc, a.embedder.Name())
	}
	s, prev, err := weaviate.OpenStoreReembed(ctx, sc, a.embedder.Name())
	if prev != "" {
		fmt.Fprintf(a.stderr, "the collection held vectors of embedder %s; re-embedding every source with %s\n", prev, a.embedder.Name())
	}
	return s, err
}

// newCodeSearchEmbedder loads embedder.model, or the codesearch model built
// into the binary when it is empty, and with embedder.adapt the model
// refined from it on the indexed sources when `ragbot index` made one
// (refineCodeSearch); it never refines.
func newCodeSearchEmbedder(cfg *config.Config, stderr io.Writer) (retrieval.Embedder, error) {
	base, hash, err := loadCodeSearchModel(cfg)
	if err != nil {
		return nil, err
	}
	if !cfg.Embedder.Adapt {
		return embed.NewCodeSearch(base, hash), nil
	}
	path := adaptedCodeSearchPath(cfg)
	m, h, err := codesearch.LoadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		fmt.Fprintf(stderr, "note: embedder.adapt is set but no refined model exists yet (%s); using the base model until `ragbot index` makes one\n", path)
	case err != nil:
		return nil, err
	case codeSearchRefinementOf(m).Base != hash:
		fmt.Fprintf(stderr, "note: the refined model %s was made from another base model; using the base model until `ragbot index` refines it again\n", path)
	default:
		return embed.NewCodeSearch(m, h), nil
	}
	return embed.NewCodeSearch(base, hash), nil
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

// adaptedCodeSearchPath is where the codesearch model refined on the
// indexed sources is kept: beside the local Weaviate data dir, one file per
// collection.
func adaptedCodeSearchPath(cfg *config.Config) string {
	dir := filepath.Dir(cfg.Resolve(cfg.Weaviate.DataDir))
	return filepath.Join(dir, "embedder", cfg.Weaviate.Collection+".codesearch.bin")
}

// codeSearchRefinement is what a refined codesearch model records of its
// making, in its header's train field: the base model's hash, the
// fingerprint of the sources' text (sourceFiles) and the parameters.
type codeSearchRefinement struct {
	Base    string            `json:"refined_from"`
	Sources string            `json:"sources"`
	Pairs   int               `json:"pairs"`
	Params  codesearch.Params `json:"params"`
}

func codeSearchRefinementOf(m *codesearch.Model) codeSearchRefinement {
	var r codeSearchRefinement
	json.Unmarshal(m.Train, &r) // a model without the record has an empty Base
	return r
}

// refineCodeSearch is the refinement step of `ragbot index` for the
// codesearch embedder with embedder.adapt, as refineStatic is for the
// static one: it keeps the refined model when it was made from the current
// base model and, with refresh (index --adapt), from the same source text;
// else it mines the (doc comment, code) pairs of the files the index reads
// (codesearch.MineSourceFile) and refines the base model on them
// (codesearch.Refine with codesearch.DefaultRefineParams: deterministic,
// the same base and sources give the same file). With fewer than two pairs
// it says so and uses the base model.
func refineCodeSearch(ctx context.Context, cfg *config.Config, refresh bool, stderr io.Writer) (retrieval.Embedder, error) {
	base, baseHash, err := loadCodeSearchModel(cfg)
	if err != nil {
		return nil, err
	}
	path := adaptedCodeSearchPath(cfg)
	old, oldHash, err := codesearch.LoadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "note: refined model %s unreadable (%v); refining again\n", path, err)
	}
	have := err == nil && codeSearchRefinementOf(old).Base == baseHash
	if have && !refresh {
		return embed.NewCodeSearch(old, oldHash), nil
	}
	start := time.Now()
	paths, docs, print, err := sourceFiles(ctx, cfg, stderr)
	if err != nil {
		return nil, err
	}
	if have && codeSearchRefinementOf(old).Sources == print {
		return embed.NewCodeSearch(old, oldHash), nil
	}
	var pairs []codesearch.Pair
	for i, p := range paths {
		pairs = append(pairs, codesearch.MineSourceFile(p, []byte(docs[i]))...)
	}
	if len(pairs) < 2 {
		fmt.Fprintf(stderr, "note: embedder.adapt: the sources have %d documented functions to learn from; using the base codesearch model\n", len(pairs))
		return embed.NewCodeSearch(base, baseHash), nil
	}
	fmt.Fprintf(stderr, "refining the codesearch model on %d (doc comment, code) pairs of the sources...\n", len(pairs))
	rec := codeSearchRefinement{Base: baseHash, Sources: print, Pairs: len(pairs), Params: codesearch.DefaultRefineParams}
	m, err := codesearch.Refine(ctx, base, pairs, codesearch.DefaultRefineParams, rec, nil)
	if err != nil {
		return nil, fmt.Errorf("embedder.adapt: %w", err)
	}
	var buf bytes.Buffer
	if err := m.Write(&buf); err != nil {
		return nil, err
	}
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return nil, fmt.Errorf("embedder.adapt: save refined model: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	e := embed.NewCodeSearch(m, hex.EncodeToString(sum[:]))
	fmt.Fprintf(stderr, "refined the codesearch model: %d pairs, %s; embedder %s\n", len(pairs), time.Since(start).Round(100*time.Millisecond), e.Name())
	return e, nil
}
