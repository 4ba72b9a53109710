package main

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// adaptModel returns the static embedder refined on the configured sources
// (item 3 of issue 8), reading the refined model at path when it was made
// from this base model and, unless refresh is set, reusing it as it is, so
// incremental index runs stay incremental. Otherwise it reads the sources'
// text (git sources at their first branch's head, markdown folders, OpenAPI
// files; Confluence sources are not read), and when that text differs from
// what the refined model was made of, refines the base model on it with
// wordvec.Refine (deterministic: the same base and text give the same
// file), refits the SIF common component on the sources' blocks and saves
// the result. A model with new vectors has a new Name, so the caller's
// store open sees a mismatch and re-embeds the collection (reembed.go).
func adaptModel(ctx context.Context, cfg *config.Config, base *wordvec.Model, baseHash, path string, refresh bool, stderr io.Writer) (retrieval.Embedder, error) {
	old, oldHash, meta, err := wordvec.LoadFile(path)
	have := err == nil && embed.RefinedFrom(meta, baseHash)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "note: refined model %s unreadable (%v); refining again\n", path, err)
	}
	if have && !refresh {
		return embed.NewStatic(old, oldHash), nil
	}
	start := time.Now()
	docs, print, err := sourceTexts(ctx, cfg)
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

// maxAdaptFile is the largest file of a source read for refinement, in bytes.
const maxAdaptFile = 16 << 20

// sourceTexts returns the text of every configured source in config order
// (files in path order), and a hex SHA-256 over the source names, paths and
// texts that identifies it.
func sourceTexts(ctx context.Context, cfg *config.Config) ([]string, string, error) {
	var docs []string
	h := sha256.New()
	add := func(src, path, text string) {
		if strings.IndexByte(text[:min(len(text), 8192)], 0) >= 0 {
			return // binary
		}
		fmt.Fprintf(h, "%s\x00%s\x00%d\x00", src, path, len(text))
		io.WriteString(h, text)
		docs = append(docs, text)
	}
	for _, src := range cfg.Sources {
		var err error
		switch src.Kind {
		case config.KindGit:
			err = gitTexts(ctx, cfg.Resolve(src.Path), src, func(p, t string) { add(src.Name, p, t) })
		case config.KindOpenAPI:
			var b []byte
			if b, err = os.ReadFile(cfg.Resolve(src.Path)); err == nil {
				add(src.Name, src.Path, string(b))
			}
		case config.KindMarkdown:
			err = markdownTexts(cfg.Resolve(src.Path), func(p, t string) { add(src.Name, p, t) })
		}
		if err != nil {
			return nil, "", fmt.Errorf("embedder.adapt: source %s: %w", src.Name, err)
		}
	}
	return docs, hex.EncodeToString(h.Sum(nil)), nil
}

// gitTexts calls f with each file of the git source at its first branch's
// head (HEAD when none is configured), honouring include and exclude.
func gitTexts(ctx context.Context, dir string, src config.Source, f func(path, text string)) error {
	rev := "HEAD"
	if len(src.Branches) > 0 {
		rev = src.Branches[0]
	}
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "archive", "--format=tar", rev)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("git archive %s: %w: %s", rev, err, strings.TrimSpace(stderr.String()))
	}
	tr := tar.NewReader(bytes.NewReader(out))
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if hdr.Typeflag != tar.TypeReg || hdr.Size > maxAdaptFile || !prefixed(hdr.Name, src.Include, src.Exclude) {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		f(hdr.Name, string(b))
	}
}

// prefixed reports whether path is under one of include (or include is
// empty) and under none of exclude.
func prefixed(path string, include, exclude []string) bool {
	under := func(prefixes []string) bool {
		for _, p := range prefixes {
			if p = strings.Trim(p, "/"); path == p || strings.HasPrefix(path, p+"/") {
				return true
			}
		}
		return false
	}
	return (len(include) == 0 || under(include)) && !under(exclude)
}

// markdownTexts calls f with each .md or .markdown file under dir, in path order.
func markdownTexts(dir string, f func(path, text string)) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != dir && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if ext := strings.ToLower(filepath.Ext(p)); d.Type().IsRegular() && (ext == ".md" || ext == ".markdown") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		f(filepath.ToSlash(rel), string(b))
	}
	return nil
}
