package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// refineStatic is the refinement step of `ragbot index` for the static
// embedder with embedder.adapt, and returns that embedder (nil for any
// other embedder: nothing to do). It keeps the refined model at adaptedPath when it was made from the
// current base model and refresh (index --adapt) is not set, so
// incremental index runs stay incremental. Otherwise it reads the sources'
// text as the index reads it (sourceTexts) and, when that text or the
// refinement differs from what the refined model was made of, refines the
// base model on it (embed.Refine: deterministic, the same base and text
// give the same file) and saves the result. A model with new vectors has a
// new Name, so the index run's store open sees the mismatch and re-embeds
// the collection (openStore). Every other command only reads the refined
// model (newEmbedder). Errors name embedder.adapt and the source to blame.
func refineStatic(ctx context.Context, cfg *config.Config, refresh bool, stderr io.Writer) (retrieval.Embedder, error) {
	if cfg.Embedder.Kind == "codesearch" && cfg.Embedder.Adapt {
		return refineCodeSearch(ctx, cfg, refresh, stderr) // embedder.go
	}
	if cfg.Embedder.Kind != "static" || !cfg.Embedder.Adapt {
		return nil, nil
	}
	base, baseHash, err := loadStaticModel(cfg)
	if err != nil {
		return nil, err
	}
	path := adaptedPath(cfg, "static")
	old, oldHash, meta, err := wordvec.LoadFile(path)
	have := err == nil && embed.RefinedFrom(meta, baseHash)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "note: refined model %s unreadable (%v); refining again\n", path, err)
	}
	if have && !refresh {
		return embed.NewStatic(old, oldHash), nil
	}
	start := time.Now()
	docs, print, err := sourceTexts(ctx, cfg, stderr)
	if err != nil {
		return nil, err
	}
	if have && embed.RefineCurrent(meta, base, baseHash, print) {
		return embed.NewStatic(old, oldHash), nil
	}
	if len(docs) == 0 {
		return nil, errors.New("embedder.adapt: the sources have no text to refine on (only Confluence sources?)")
	}
	fmt.Fprintf(stderr, "refining the static model on %d documents of the sources...\n", len(docs))
	r, err := embed.Refine(ctx, base, baseHash, docs, print)
	if err != nil {
		return nil, fmt.Errorf("embedder.adapt: %w", err)
	}
	if err := writeFileAtomic(path, r.File); err != nil {
		return nil, fmt.Errorf("embedder.adapt: save refined model: %w", err)
	}
	fmt.Fprintf(stderr, "refined the static model: %d tokens, %d new words, vocabulary %d, %s; embedder %s\n",
		r.Stats.Tokens, r.Stats.NewWords, r.Stats.Vocab, time.Since(start).Round(100*time.Millisecond), r.Static.Name())
	return r.Static, nil
}

// writeFileAtomic writes data to path through a temporary file and a rename.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// sourceTexts returns the text of the files `ragbot index` chunks, source
// by source in config order, and a hex SHA-256 over the source names,
// paths and texts that identifies it. Git sources are read at their first
// tracked branch's head (the checked-out branch when none is configured)
// and markdown folders from the file system, both through ingest's
// listing (ingest.GitFiles, ingest.DirFiles), so include, exclude and the
// skip rules are the index's; an OpenAPI file is read whole. A remote git
// source not cloned yet is left out, with a note on stderr; Confluence
// sources are not read.
func sourceTexts(ctx context.Context, cfg *config.Config, stderr io.Writer) ([]string, string, error) {
	_, docs, print, err := sourceFiles(ctx, cfg, stderr)
	return docs, print, err
}

// sourceFiles is sourceTexts with the path of each text, relative to its
// source.
func sourceFiles(ctx context.Context, cfg *config.Config, stderr io.Writer) (paths, docs []string, print string, err error) {
	h := sha256.New()
	for _, src := range cfg.Sources {
		add := func(path string, data []byte) error {
			fmt.Fprintf(h, "%s\x00%s\x00%d\x00", src.Name, path, len(data))
			h.Write(data)
			paths = append(paths, path)
			docs = append(docs, string(data))
			return nil
		}
		var err error
		switch src.Kind {
		case config.KindGit:
			r := repoOf(cfg, src)
			gs := r.Source
			if len(r.Branches) > 0 {
				gs.Branch = r.Branches[0]
			}
			if _, statErr := os.Stat(gs.Dir); r.Remote != nil && errors.Is(statErr, os.ErrNotExist) {
				fmt.Fprintf(stderr, "note: %s is not cloned yet, so the static model is not refined on it; run `ragbot index --adapt` after this run\n", src.Name)
				continue
			}
			_, err = ingest.GitFiles(ctx, gs, add)
		case config.KindOpenAPI:
			var b []byte
			if b, err = os.ReadFile(cfg.Resolve(src.Path)); err == nil {
				err = add(src.Path, b)
			}
		case config.KindMarkdown:
			err = ingest.DirFiles(dirSourceOf(cfg, src), add)
		}
		if err != nil {
			return nil, nil, "", fmt.Errorf("embedder.adapt: source %s: %w", src.Name, err)
		}
	}
	return paths, docs, hex.EncodeToString(h.Sum(nil)), nil
}
