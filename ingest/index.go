package ingest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/ingest/markdown"
	"github.com/ragbot/ragbot/retrieval"
)

// pipelineVersion changes whenever chunking or search_text changes in a way
// that must rewrite stored chunks; it is part of SourceState.Settings.
const pipelineVersion = "2"

// Indexer runs index runs: source -> files -> chunks -> embed -> upsert, then
// deletes the chunks that no longer exist and records the SourceState.
// Runs for different sources may go in parallel; one source must not be
// indexed by two runs at once (the caller serialises them).
type Indexer struct {
	Store    *retrieval.Store
	Embedder retrieval.Embedder
	Log      *slog.Logger     // [slog.Default()]
	Now      func() time.Time // [time.Now]
	Code     code.Options     // symbol and window sizes
	Workers  int              // files chunked at once [GOMAXPROCS]
	// Progress, when not nil, receives a progress line at most every
	// ProgressEvery (default 500ms on a terminal; callers pass 10s for logs).
	Progress      io.Writer
	ProgressEvery time.Duration
	ProgressTTY   bool // rewrite one line with \r instead of printing lines
}

// Stats summarise one index run.
type Stats struct {
	Source   string         // source id
	Branch   string         // "" for non-git sources
	Commit   string         // commit indexed ("" for non-git)
	UpToDate bool           // nothing to do: state already at this commit and settings
	Files    int            // files chunked
	Chunks   int            // chunks of the source after the run
	Embedded int            // chunks embedded and written
	Reused   int            // chunks rewritten with their stored vector (same content; new commit, or no commit)
	Kept     int            // chunks already stored unchanged, not written
	Deleted  int            // stored chunks removed (symbols or files gone)
	Skipped  map[string]int // files not indexed, by reason (binary, vendored, generated, minified, too large, lockfile, read error)
	Fallback map[string]int // files indexed as line windows, by reason (parse error, no grammar, no symbols)
	Duration time.Duration
}

// fileInput is one file to chunk.
type fileInput struct {
	path     string
	data     []byte
	author   string
	modified time.Time
}

// runMeta is what every chunk of a run shares.
type runMeta struct {
	source, branch, commit, link string
	acl                          []string
}

func (ix *Indexer) now() time.Time {
	if ix.Now != nil {
		return ix.Now()
	}
	return time.Now()
}

func (ix *Indexer) log() *slog.Logger {
	if ix.Log != nil {
		return ix.Log
	}
	return slog.Default()
}

// settings fingerprints everything that shapes stored chunks.
func (ix *Indexer) settings(extra string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("v%s|%+v|%s|%s", pipelineVersion, ix.Code, ix.Embedder.Name(), extra)))
	return hex.EncodeToString(sum[:8])
}

// IndexGit indexes src at its branch head. Unless full is set, a source whose
// state already records this commit, embedder and settings is left alone
// (Stats.UpToDate). Otherwise every file at the commit is chunked; chunks
// whose id and content_hash are stored already are not embedded again. The
// state advances only after all chunks are stored and stale ones deleted, so
// an interrupted run is redone from scratch by the next, without holes or
// duplicates (ids are deterministic).
func (ix *Indexer) IndexGit(ctx context.Context, src GitSource, full bool) (Stats, error) {
	start := time.Now()
	repo := gitRepo{dir: src.Dir}
	commit, branch, err := repo.head(ctx, src.Branch)
	if err != nil {
		return Stats{}, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	st := Stats{Source: src.ID, Branch: branch, Commit: commit}
	log := ix.log().With("source", src.ID, "branch", branch, "commit", short(commit))
	settings := ix.settings(fmt.Sprint(src.Include, src.Exclude, src.LinkTemplate, src.ACL))
	prev, ok, err := ix.Store.State(ctx, src.ID, branch)
	if err != nil {
		return st, err
	}
	if !full && ok && prev.CommitSHA == commit && prev.Settings == settings && prev.LastError == "" {
		st.UpToDate, st.Chunks, st.Files, st.Duration = true, prev.Chunks, prev.Files, time.Since(start)
		log.Info("index up to date", "chunks", prev.Chunks)
		return st, nil
	}
	entries, err := repo.files(ctx, commit)
	if err != nil {
		return st, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	st.Skipped = map[string]int{}
	var keep []treeEntry
	want := map[string]bool{}
	for _, e := range entries {
		if !included(e.path, src.Include, src.Exclude) {
			continue
		}
		if r := pathSkipReason(e.path, e.size); r != "" {
			st.Skipped[r]++
			log.Debug("skip file", "path", e.path, "reason", r)
			continue
		}
		keep = append(keep, e)
		want[e.path] = true
	}
	changes, err := repo.lastChanges(ctx, commit, want)
	if err != nil {
		return st, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	meta := runMeta{source: src.ID, branch: branch, commit: commit, link: src.LinkTemplate, acl: src.ACL}
	produce := func(ctx context.Context, out chan<- fileInput) error {
		cf, err := repo.catFile(ctx)
		if err != nil {
			return err
		}
		defer cf.Close()
		for _, e := range keep {
			data, err := cf.read(e.blob)
			if err != nil {
				return fmt.Errorf("%s: %w", e.path, err)
			}
			ch := changes[e.path]
			select {
			case out <- fileInput{path: e.path, data: data, author: ch.author, modified: ch.when}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	err = ix.run(ctx, log, &st, meta, len(keep), ok && prev.Settings != settings, produce)
	st.Duration = time.Since(start)
	return st, ix.finish(ctx, log, &st, settings, err)
}

// IndexDir indexes the markdown files (.md, .markdown) under src.Dir.
func (ix *Indexer) IndexDir(ctx context.Context, src DirSource) (Stats, error) {
	start := time.Now()
	st := Stats{Source: src.ID, Skipped: map[string]int{}}
	log := ix.log().With("source", src.ID)
	var files []string
	err := filepath.WalkDir(src.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src.Dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || !included(rel, nil, src.Exclude)) {
				return filepath.SkipDir
			}
			return nil
		}
		if isMarkdown(rel) && d.Type().IsRegular() && included(rel, nil, src.Exclude) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	sort.Strings(files)
	meta := runMeta{source: src.ID, acl: src.ACL}
	produce := func(ctx context.Context, out chan<- fileInput) error {
		for _, rel := range files {
			full := filepath.Join(src.Dir, filepath.FromSlash(rel))
			data, err := os.ReadFile(full)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			fi, err := os.Stat(full)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			select {
			case out <- fileInput{path: rel, data: data, modified: fi.ModTime().UTC()}:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	settings := ix.settings(fmt.Sprint(src.Exclude, src.ACL))
	prev, ok, err := ix.Store.State(ctx, src.ID, "")
	if err != nil {
		return st, err
	}
	err = ix.run(ctx, log, &st, meta, len(files), ok && prev.Settings != settings, produce)
	st.Duration = time.Since(start)
	return st, ix.finish(ctx, log, &st, settings, err)
}

// finish records the run's outcome in SourceState: on success the new commit,
// on failure only the error (the previous commit stays, so the next run
// redoes this one).
func (ix *Indexer) finish(ctx context.Context, log *slog.Logger, st *Stats, settings string, runErr error) error {
	if runErr != nil && ctx.Err() != nil { // interrupted: record with a fresh context
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		ctx = c
	}
	prev, _, err := ix.Store.State(ctx, st.Source, st.Branch)
	if err != nil {
		if runErr == nil {
			return err
		}
		// Writing a state without prev's commit would erase it: leave it be.
		log.Warn("could not record failed run", "err", err)
		return fmt.Errorf("ingest: %s: %w", st.Source, runErr)
	}
	next := prev
	next.Source, next.Branch = st.Source, st.Branch
	if runErr != nil {
		next.LastError = runErr.Error()
		if err := ix.Store.PutState(ctx, next); err != nil {
			log.Warn("could not record failed run", "err", err)
		}
		return fmt.Errorf("ingest: %s: %w", st.Source, runErr)
	}
	next.CommitSHA, next.Embedder, next.Settings = st.Commit, ix.Embedder.Name(), settings
	next.IndexedAt, next.LastError, next.Files, next.Chunks = ix.now(), "", st.Files, st.Chunks
	if err := ix.Store.PutState(ctx, next); err != nil {
		return fmt.Errorf("ingest: %s: %w", st.Source, err)
	}
	log.Info("index run done", "files", st.Files, "chunks", st.Chunks, "embedded", st.Embedded,
		"reused", st.Reused, "kept", st.Kept, "deleted", st.Deleted, "skipped", st.Skipped,
		"fallback", st.Fallback, "seconds", st.Duration.Seconds())
	return nil
}

// run chunks the files that produce sends, in parallel, then writes what
// changed and deletes what vanished.
func (ix *Indexer) run(ctx context.Context, log *slog.Logger, st *Stats, meta runMeta, total int, rewrite bool,
	produce func(context.Context, chan<- fileInput) error) error {
	stored, err := ix.Store.ListStored(ctx, meta.source, meta.branch)
	if err != nil {
		return err
	}
	prog := ix.newProgress(meta.source, total)
	defer prog.done()
	indexedAt := ix.now().UTC()
	workers := ix.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	files := make(chan fileInput, workers*2)
	var (
		mu     sync.Mutex
		chunks []retrieval.Chunk
	)
	st.Fallback = map[string]int{}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { // producer: exits when all files are sent or ctx ends
		defer close(files)
		return produce(gctx, files)
	})
	for range workers {
		g.Go(func() error { // worker: exits when files is closed
			for f := range files {
				cs, skip, fallback := chunkFile(f, ix.Code)
				for i := range cs {
					finishChunk(&cs[i], f, meta, indexedAt)
				}
				mu.Lock()
				switch {
				case skip != "":
					st.Skipped[skip]++
					log.Debug("skip file", "path", f.path, "reason", skip)
				default:
					st.Files++
					if fallback != "" {
						st.Fallback[fallback]++
						if fallback == "parse error" {
							log.Warn("parse failed, indexed as line windows", "path", f.path)
						}
					}
				}
				chunks = append(chunks, cs...)
				prog.add(1, len(cs), skip != "")
				mu.Unlock()
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	sort.Slice(chunks, func(i, j int) bool { // deterministic write order
		if chunks[i].Path != chunks[j].Path {
			return chunks[i].Path < chunks[j].Path
		}
		return chunks[i].StartLine < chunks[j].StartLine
	})
	return ix.write(ctx, st, chunks, stored, rewrite, prog)
}

// write embeds and upserts the chunks that changed, rewrites moved-commit
// chunks with their stored vectors, and deletes stored chunks not in chunks.
// With rewrite set (the settings changed since the last run), unchanged
// chunks are written again too, with their stored vectors, so that derived
// fields such as search_text follow the new settings.
func (ix *Indexer) write(ctx context.Context, st *Stats, chunks []retrieval.Chunk,
	stored map[string]retrieval.Stored, rewrite bool, prog *progress) error {
	var embed, reuse []retrieval.Chunk
	seen := make(map[string]bool, len(chunks))
	for _, c := range chunks {
		id := c.ID()
		if seen[id] {
			return fmt.Errorf("%s: two chunks with id %s (symbol %q, ordinal %d)", c.Path, id, c.Symbol, c.Ordinal)
		}
		seen[id] = true
		old, ok := stored[id]
		switch {
		// Only a commit says that nothing but the content could have changed:
		// without one (IndexDir), a chunk with the same content may have moved
		// to other lines, so it is rewritten with its stored vector.
		case ok && old.ContentHash == c.ContentHash && c.CommitSHA != "" && old.CommitSHA == c.CommitSHA && !rewrite:
			st.Kept++
		case ok && old.ContentHash == c.ContentHash:
			reuse = append(reuse, c)
		default:
			embed = append(embed, c)
		}
	}
	var stale []string
	for id := range stored {
		if !seen[id] {
			stale = append(stale, id)
		}
	}
	sort.Strings(stale)
	if len(reuse) > 0 {
		ids := make([]string, len(reuse))
		for i, c := range reuse {
			ids[i] = c.ID()
		}
		vecs, err := ix.Store.Vectors(ctx, ids)
		if err != nil {
			return err
		}
		var vs [][]float32
		var cs []retrieval.Chunk
		for _, c := range reuse {
			if v := vecs[c.ID()]; len(v) == ix.Embedder.Dim() {
				cs, vs = append(cs, c), append(vs, v)
			} else {
				embed = append(embed, c)
			}
		}
		if err := ix.Store.Upsert(ctx, cs, vs); err != nil {
			return err
		}
		st.Reused = len(cs)
	}
	if err := ix.embedAndUpsert(ctx, embed, prog); err != nil {
		return err
	}
	st.Embedded = len(embed)
	if err := ix.Store.DeleteIDs(ctx, stale); err != nil {
		return err
	}
	st.Deleted = len(stale)
	st.Chunks = len(chunks)
	return nil
}

// embedBatch is how many chunks are embedded and written together.
const embedBatch = 256

func (ix *Indexer) embedAndUpsert(ctx context.Context, chunks []retrieval.Chunk, prog *progress) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2) // one batch embedding while the previous one is written
	for start := 0; start < len(chunks); start += embedBatch {
		batch := chunks[start:min(start+embedBatch, len(chunks))]
		g.Go(func() error {
			texts := make([]string, len(batch))
			for i, c := range batch {
				texts[i] = EmbedText(c)
			}
			vecs, err := ix.Embedder.Embed(gctx, texts)
			if err != nil {
				return fmt.Errorf("embed: %w", err)
			}
			if err := ix.Store.Upsert(gctx, batch, vecs); err != nil {
				return err
			}
			prog.stored(len(batch))
			return nil
		})
	}
	return g.Wait()
}

// EmbedText is what the embedder reads for a chunk: its symbol, path and
// signature, then its content. Queries are embedded as they are.
func EmbedText(c retrieval.Chunk) string {
	return c.Symbol + "\n" + c.Path + "\n" + c.Signature + "\n" + c.Content
}

// chunkFile chunks one file: markdown by heading, everything else by symbol
// (line windows when there is no grammar or the parse fails).
func chunkFile(f fileInput, opt code.Options) (chunks []retrieval.Chunk, skip, fallback string) {
	if isMarkdown(f.path) {
		if r := code.SkipReason(f.path, f.data); r == "binary" || r == "too large" {
			return nil, r, ""
		}
		return markdown.Chunk(f.path, f.data), "", ""
	}
	if r := code.SkipReason(f.path, f.data); r != "" {
		return nil, r, ""
	}
	res := code.Chunk(f.path, f.data, opt)
	return res.Chunks, "", res.Fallback
}

// finishChunk fills the fields a chunker leaves to the pipeline.
func finishChunk(c *retrieval.Chunk, f fileInput, m runMeta, indexedAt time.Time) {
	c.Source, c.Branch, c.CommitSHA = m.source, m.branch, m.commit
	c.Author, c.ModifiedAt, c.IndexedAt = f.author, f.modified, indexedAt
	c.ACL = m.acl
	c.ContentHash = retrieval.HashContent(c.Content)
	c.SearchText = retrieval.SearchText(*c)
	c.URL = link(m.link, m.commit, c.Path, c.StartLine, c.EndLine)
}

func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// lockfiles are generated dependency pins: large, and never the answer to
// "where is X".
var lockfiles = map[string]bool{
	"go.sum": true, "package-lock.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"Cargo.lock": true, "poetry.lock": true, "Gemfile.lock": true, "composer.lock": true,
}

// pathSkipReason skips by name and size before the content is read.
func pathSkipReason(p string, size int64) string {
	if lockfiles[path.Base(p)] {
		return "lockfile"
	}
	if size > 1<<20 {
		return "too large"
	}
	return ""
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
