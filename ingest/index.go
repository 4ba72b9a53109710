package ingest

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/ingest/gocalls"
	"github.com/ragbot/ragbot/ingest/markdown"
	"github.com/ragbot/ragbot/ingest/scipcalls"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// pipelineVersion changes whenever chunking, search_text or the chunk's
// metadata change in a way that must rewrite stored chunks; it is part of
// SourceState.Settings. 3: author and modified_at from blame per symbol.
// 4: search_text splits the identifiers inside content too. 5: code chunks
// carry the names they use (refs). 6: Go chunks carry their type-resolved
// calls (calls, types; ingest/gocalls). 7: Python and JavaScript chunks
// carry their SCIP-resolved calls (ingest/scipcalls).
const pipelineVersion = "7"

// Indexer runs index runs: source -> files -> chunks -> embed -> upsert, then
// deletes the chunks that no longer exist and records the SourceState.
// Runs for different sources may go in parallel; one source must not be
// indexed by two runs at once: IndexRepo takes a per-source lock, and Queue
// serialises the runs it starts.
type Indexer struct {
	Store    *weaviate.Store
	Embedder retrieval.Embedder
	Log      *slog.Logger     // [slog.Default()]
	Now      func() time.Time // [time.Now]
	Code     code.Options     // symbol and window sizes
	Workers  int              // files chunked at once [GOMAXPROCS]
	// MaxInputTokens is the longest text the embedder accepts, in tokens
	// (8,192 for OpenAI's embedding models: API reference, "Create
	// embeddings"); 0 for no limit. The embedded text of a longer chunk is
	// cut to a prefix of MaxInputTokens tokens (retrieval.CutText); the chunk is
	// stored whole.
	MaxInputTokens int
	// Progress, when not nil, receives a progress line at most every
	// ProgressEvery (0: 500 ms with ProgressTTY, else 10 s, for logs).
	Progress      io.Writer
	ProgressEvery time.Duration
	ProgressTTY   bool // rewrite one line with \r instead of printing lines
	// LockDir, when set, holds one lock file per source, so that IndexRepo
	// runs of a source never overlap, even in different processes.
	LockDir string
	// After waits before another try at a source lock that another run
	// holds [time.After].
	After func(time.Duration) <-chan time.Time
	// OnRun, when set, is called after each IndexGit and IndexPages run
	// with its outcome (metrics). It must not block.
	OnRun func(RunReport)
	// DeferSemantic, with a retrieval.Pair embedder, stores chunks with
	// their lexical vector alone, marked pending, so that a run's chunks
	// are searchable by BM25 and the lexical vector as soon as they are
	// written; FillSemantic then gives them their semantic vectors. For a
	// semantic embedder that is slow on CPU (kind onnx), so that the first
	// answer never waits for it. A pending chunk counts as stored: the run
	// neither rewrites it nor asks the next run to.
	DeferSemantic bool
	// Redact, when not nil, replaces the secrets in every file, page
	// section and API operation before it is chunked, embedded or stored
	// (redact.go); nil stores text as it is.
	Redact *Redactor
	// NoGoTypes turns off type resolution of Go modules (ingest/gocalls):
	// Go chunks then get no Calls, and usage answers match Go names by
	// text. Resolution costs a type-check of each module per indexed commit
	// (seconds to minutes, and the memory of go/types; Stats.Types).
	// GitSource.NoGoTypes turns it off for one source.
	NoGoTypes bool
	// NoSCIP turns off the SCIP resolution of Python and
	// JavaScript/TypeScript calls (ingest/scipcalls): usage answers then
	// match their names by text. It costs seconds per indexed commit (Node,
	// and scip-python's scan of the Python environment; Stats.Types).
	// GitSource.NoSCIP turns it off for one source.
	NoSCIP bool
	// SCIPDir is where scripts/install-scip.sh installed the indexers; ""
	// for scipcalls.Dir().
	SCIPDir string
}

// RunReport is the outcome of one index run, for Indexer.OnRun.
type RunReport struct {
	Source   string // source id
	Pages    bool   // an IndexPages run (Confluence, HTML export), else IndexGit
	UpToDate bool   // nothing to do (IndexGit's Stats.UpToDate)
	Embedded int    // chunks embedded and written
	Deleted  int    // stored chunks removed
	Err      error  // nil when the run succeeded
}

func (ix *Indexer) report(r RunReport) {
	if ix.OnRun != nil {
		ix.OnRun(r)
	}
}

// Stats summarise one index run.
type Stats struct {
	Source   string         // source id
	Branch   string         // "" for non-git sources
	Commit   string         // commit indexed ("" for non-git)
	UpToDate bool           // nothing to do: state already at this commit and settings
	Mode     string         // ModeFull or ModeIncremental; "" when UpToDate or not a git source
	Reason   string         // why this mode: "diff 1a2b3c4..5d6e7f8", "first index of the branch", "force push: ..."
	Files    int            // files indexed at the commit (an incremental run counts the unchanged ones too)
	Chunks   int            // chunks of the source after the run
	Embedded int            // chunks embedded and written
	Reused   int            // chunks written with the stored vector of a chunk with the same embedded text (new commit, lines, id or branch)
	Kept     int            // chunks already stored unchanged, not written (an incremental run counts those of unchanged files)
	Deleted  int            // stored chunks removed (symbols or files gone)
	Skipped  map[string]int // files not indexed, by reason (binary, vendored, generated, minified, too large, lockfile); an incremental run counts changed files only
	Fallback map[string]int // files indexed as line windows, by reason (parse error, no grammar, no symbols)
	Redacted RedactCounts   // secrets replaced by a marker in the text chunked by this run (Indexer.Redact), by rule
	Pending  int            // chunks of Embedded stored without their semantic vector, its embedder failing (the next run embeds them) or Deferred
	Deferred bool           // Indexer.DeferSemantic: the Pending chunks wait for FillSemantic
	Duration time.Duration
	Types    string // cost and outcome of the Go type and SCIP resolutions (gocalls and scipcalls Result.Summary), ", " between; "" when none ran
	Removed  string // BranchUntracked or BranchGone when IndexRepo removed the branch from the index (its chunks, Deleted of them, and its state) instead of indexing it
}

// Index run modes of a git source, in Stats.Mode.
const (
	// ModeFull chunks every file at the commit and deletes every stored
	// chunk of the branch that is not among the results (a reconcile).
	ModeFull = "full"
	// ModeIncremental chunks only the files that differ between the last
	// indexed commit and the head (git diff-tree -M) and touches only their
	// chunks.
	ModeIncremental = "incremental"
)

// fileInput is one file to chunk.
type fileInput struct {
	path     string
	data     []byte
	skip     string    // set instead of data: why the file is not indexed (too large to read)
	author   string    // of the file's last commit: the fallback for every chunk
	modified time.Time // commit time of the file's last commit: the fallback
	// blame, when set, dates each chunk by the newest commit among its lines.
	blame func(context.Context) (*blameLines, error)
	// commit, for a markdown folder's file unchanged at HEAD of the work
	// tree holding it, is that commit (the run's has none); repoPath is then
	// the file's path in the repository, for links.
	commit, repoPath string
}

// runMeta is what every chunk of a run shares.
type runMeta struct {
	source, branch, commit, link string
	acl                          []string
	types                        *gocalls.Result   // Go calls of the commit; nil when not resolved
	scip                         *scipcalls.Result // Python and JavaScript calls of the commit; nil when not resolved
}

func (ix *Indexer) now() time.Time {
	if ix.Now != nil {
		return ix.Now()
	}
	return time.Now()
}

func (ix *Indexer) after(d time.Duration) <-chan time.Time {
	if ix.After != nil {
		return ix.After(d)
	}
	return time.After(d)
}

func (ix *Indexer) log() *slog.Logger { return cmp.Or(ix.Log, slog.Default()) }

// settings fingerprints everything that shapes stored chunks.
func (ix *Indexer) settings(extra string) string {
	sum := sha256.Sum256([]byte(fmt.Sprintf("v%s|%+v|%s|%s%s", pipelineVersion, ix.Code, ix.Embedder.Name(), extra, ix.Redact.Fingerprint())))
	return hex.EncodeToString(sum[:8])
}

// IndexDir indexes the markdown files (.md, .markdown) under src.Dir. When
// the folder lies in a git work tree, each file unchanged at HEAD (tracked,
// no staged or unstaged edits) is cited at HEAD: its chunks get the commit,
// the author and time of the newest commit among their lines (git blame),
// and a link from src.LinkTemplate; other files, and folders outside git,
// get none of these, and are dated by the file's modification time.
func (ix *Indexer) IndexDir(ctx context.Context, src DirSource) (Stats, error) {
	start := time.Now()
	st := Stats{Source: src.ID, Skipped: map[string]int{}}
	log := ix.log().With("source", src.ID)
	files, err := markdownFiles(src)
	if err != nil {
		return st, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	meta := runMeta{source: src.ID, acl: src.ACL, link: src.LinkTemplate}
	g, err := openDirGit(ctx, src.Dir, files)
	if err != nil {
		log.Warn("git failed on the folder's work tree, indexed without commits", "err", err)
	}
	if g != nil {
		st.Commit = g.head
	}
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
			f := fileInput{path: path.Join(src.Prefix, rel), data: data, modified: fi.ModTime().UTC()}
			g.fill(rel, &f)
			select {
			case out <- f:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	}
	settings := ix.DirSettings(src)
	prev, ok, err := ix.Store.State(ctx, src.ID, "")
	if err != nil {
		return st, err
	}
	vr := &vocabRun{full: true, acl: src.ACL}
	err = ix.run(ctx, log, &st, vr, meta, len(files), ok && prev.Settings != settings, produce)
	st.Duration = time.Since(start)
	return st, ix.finish(ctx, log, &st, vr, settings, err)
}

// finish records the run's outcome in SourceState: on success the new commit,
// and the source's vocabulary as vr says the run changed it; on failure
// only the error (the previous commit stays, so the next run redoes this
// one). The error it returns names the source and branch.
func (ix *Indexer) finish(ctx context.Context, log *slog.Logger, st *Stats, vr *vocabRun, settings string, runErr error) error {
	// The files hold these secrets whether or not the run stored them.
	logRedacted(log, st.Redacted)
	where := st.Source
	if st.Branch != "" {
		where += "@" + st.Branch
	}
	if runErr != nil && ctx.Err() != nil { // interrupted: record with a fresh context
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		ctx = c
	}
	prev, _, err := ix.Store.State(ctx, st.Source, st.Branch)
	if err != nil {
		if runErr == nil {
			return fmt.Errorf("ingest: %s: %w", where, err)
		}
		// Writing a state without prev's commit would erase it: leave it be.
		log.Warn("could not record failed run", "err", err)
		return fmt.Errorf("ingest: %s: %w", where, runErr)
	}
	next := prev
	next.Source, next.Branch = st.Source, st.Branch
	var partial *UnembeddedError
	if runErr != nil && !errors.As(runErr, &partial) {
		next.LastError = runErr.Error()
		if err := ix.Store.PutState(ctx, next); err != nil {
			log.Warn("could not record failed run", "err", err)
		}
		return fmt.Errorf("ingest: %s: %w", where, runErr)
	}
	next.CommitSHA, next.Embedder, next.Settings = st.Commit, ix.Embedder.Name(), settings
	next.IndexedAt, next.LastError, next.Files, next.Chunks = ix.now(), "", st.Files, st.Chunks
	if partial != nil { // the commit is indexed but for these files: the next run is a full one
		next.LastError = partial.Error()
	} else if st.Pending > 0 && !ix.DeferSemantic { // and so here: a full run finds the chunks waiting for semantic vectors
		next.LastError = fmt.Sprintf("%d%s", st.Pending, pendingNote)
	}
	if err := ix.Store.PutState(ctx, next); err != nil {
		return fmt.Errorf("ingest: %s: %w", where, err)
	}
	ix.putVocabulary(ctx, log, vr, prev, next)
	if partial != nil {
		// The summary line; the caller logs the error that names the files.
		log.Info("index run done but for some files", "left_out", len(partial.Files), "files", st.Files,
			"chunks", st.Chunks, "embedded", st.Embedded, "seconds", st.Duration.Seconds())
		return fmt.Errorf("ingest: %s: %w", where, runErr)
	}
	log.Info("index run done", "mode", st.Mode, "files", st.Files, "chunks", st.Chunks, "embedded", st.Embedded, "semantic_pending", st.Pending,
		"reused", st.Reused, "kept", st.Kept, "deleted", st.Deleted, "skipped", st.Skipped,
		"fallback", st.Fallback, "redacted", st.Redacted.Total(), "types", st.Types, "seconds", st.Duration.Seconds())
	return nil
}

// run chunks the files that produce sends, in parallel, and writes them as
// they come (stream), then deletes the stored chunks of the paths that gave
// no chunk: files deleted, or now skipped. It holds a few batches of chunks
// at a time and the set of paths chunked, never the source's chunks.
func (ix *Indexer) run(ctx context.Context, log *slog.Logger, st *Stats, vr *vocabRun, meta runMeta, total int, rewrite bool,
	produce func(context.Context, chan<- fileInput) error) error {
	prog := ix.newProgress(meta.source, total)
	defer prog.done()
	var out leftOut
	seen, _, err := ix.stream(ctx, log, st, vr, meta, prog, rewrite, &out, produce)
	if err != nil {
		return err
	}
	have, err := ix.Store.StoredPaths(ctx, meta.source, meta.branch)
	if err != nil {
		return err
	}
	var gone []string
	for p := range have {
		if !seen[p] {
			gone = append(gone, p)
		}
	}
	slices.Sort(gone)
	n, _, err := ix.deletePaths(ctx, meta, gone, nil)
	st.Deleted += n
	if err != nil {
		return err
	}
	st.Pending, st.Deferred = out.pending, ix.DeferSemantic
	if out.err() != nil && vr != nil {
		vr.leftOut()
	}
	return out.err()
}

// deletePaths deletes the stored chunks of source and branch whose path is
// one of paths, 100 paths at a time, and returns how many it deleted and
// how many it found. With vr (an incremental run), their search texts are
// recorded as removed from the vocabulary.
func (ix *Indexer) deletePaths(ctx context.Context, meta runMeta, paths []string, vr *vocabRun) (deleted, found int, err error) {
	for start := 0; start < len(paths); start += 100 {
		stored, err := ix.Store.ListStoredPaths(ctx, meta.source, meta.branch, paths[start:min(start+100, len(paths))])
		if err != nil {
			return deleted, found, err
		}
		found += len(stored)
		ids := slices.Sorted(maps.Keys(stored))
		if err := ix.Store.DeleteIDs(ctx, ids); err != nil {
			return deleted, found, err
		}
		deleted += len(ids)
		if vr != nil {
			texts := make([]string, 0, len(stored))
			for _, s := range stored {
				texts = append(texts, s.SearchText)
			}
			vr.record(nil, texts)
		}
	}
	return deleted, found, nil
}

// fileChunks are the chunks of one file, seq its place in produce's order.
type fileChunks struct {
	seq    int
	path   string
	chunks []retrieval.Chunk
}

// maxWriting is how many batches stream writes at once: one embedding
// while the previous one is written.
const maxWriting = 2

// streamHeld, when set (by a test), gets at the end of each stream the
// most chunks it held at once: chunked and not yet written.
var streamHeld func(max int64)

// stream chunks the files that produce sends, Workers at a time, and
// writes their chunks (write) in batches of whole files of at least
// embedBatch chunks, in produce's order, each file's chunks by line; each
// batch is compared with the stored chunks of its own paths
// (weaviate.Store.ListStoredPaths), so the chunks of a file no longer there
// are deleted with it. At most maxWriting batches are written at once and
// the workers wait for them, so what it holds is bounded by the batch size
// and the files in flight, whatever the source's size. It counts files,
// skips (in the st.Skipped its caller made), fallbacks and the writes in
// st, and returns the paths that gave chunks and how many stored chunks
// those paths had. Files the embedder or the store refuses are left out,
// in out.
func (ix *Indexer) stream(ctx context.Context, log *slog.Logger, st *Stats, vr *vocabRun, meta runMeta, prog *progress, rewrite bool,
	out *leftOut, produce func(context.Context, chan<- fileInput) error) (seen map[string]bool, stored int, err error) {
	indexedAt := ix.now().UTC()
	workers := ix.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type numbered struct {
		seq int
		f   fileInput
	}
	raw := make(chan fileInput)
	files := make(chan numbered, workers)
	// ahead bounds the files handed out and not yet taken in order by the
	// writer: without it one slow file lets the other workers run ahead
	// without limit, their chunks waiting in early.
	ahead := make(chan struct{}, 3*workers)
	results := make(chan fileChunks, workers)
	var mu sync.Mutex // st, seen, stored
	var held, maxHeld atomic.Int64
	hold := func(n int) {
		if h := held.Add(int64(n)); n > 0 {
			for m := maxHeld.Load(); h > m && !maxHeld.CompareAndSwap(m, h); m = maxHeld.Load() {
			}
		}
	}
	if streamHeld != nil {
		defer func() { streamHeld(maxHeld.Load()) }()
	}
	seen = map[string]bool{}
	st.Fallback = map[string]int{}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { // producer: exits when all files are sent or ctx ends
		defer close(raw)
		return produce(gctx, raw)
	})
	g.Go(func() error { // numbers the files, for the writer's order
		defer close(files)
		seq := 0
		for f := range raw {
			select {
			case ahead <- struct{}{}:
			case <-gctx.Done():
				return gctx.Err()
			}
			select {
			case files <- numbered{seq, f}:
			case <-gctx.Done():
				return gctx.Err()
			}
			seq++
		}
		return nil
	})
	var chunking sync.WaitGroup
	for range workers {
		chunking.Add(1)
		g.Go(func() error { // worker: exits when files is closed
			defer chunking.Done()
			for nf := range files {
				f := nf.f
				cs, skip, fallback, enc, found := chunkFile(f, ix.Code, ix.Redact)
				if enc != "" {
					log.Warn("file is not valid UTF-8, "+enc, "path", f.path)
				}
				logRedactions(log, found)
				lines := ix.blameFile(gctx, log, f, len(cs))
				for i := range cs {
					finishChunk(&cs[i], f, lines, meta, indexedAt)
				}
				slices.SortStableFunc(cs, func(a, b retrieval.Chunk) int { return cmp.Compare(a.StartLine, b.StartLine) })
				mu.Lock()
				st.Redacted.add(found)
				switch {
				case skip != "":
					st.Skipped[skip]++
					log.Debug("skip file", "path", f.path, "reason", skip)
				default:
					st.Files++
					if fallback != "" {
						st.Fallback[fallback]++
						if fallback == "parse error" {
							log.Warn("syntax error, declarations that did not parse indexed as line windows", "path", f.path)
						}
					}
				}
				prog.add(1, len(cs), skip != "")
				mu.Unlock()
				hold(len(cs))
				select {
				case results <- fileChunks{seq: nf.seq, path: f.path, chunks: cs}:
				case <-gctx.Done():
					return gctx.Err()
				}
			}
			return nil
		})
	}
	g.Go(func() error {
		chunking.Wait()
		close(results)
		return nil
	})
	g.Go(func() error { // writer: exits when results is closed or a batch fails
		wg, wctx := errgroup.WithContext(gctx)
		wg.SetLimit(maxWriting)
		var batch []retrieval.Chunk
		var paths []string
		flush := func() {
			b, p := batch, paths
			batch, paths = nil, nil
			wg.Go(func() error {
				had, err := ix.Store.ListStoredPaths(wctx, meta.source, meta.branch, p)
				if err != nil {
					return err
				}
				var bst Stats
				if err := ix.write(wctx, log, &bst, vr, b, had, rewrite, prog, out); err != nil {
					return err
				}
				hold(-len(b))
				mu.Lock()
				stored += len(had)
				st.Kept += bst.Kept
				st.Reused += bst.Reused
				st.Embedded += bst.Embedded
				st.Deleted += bst.Deleted
				st.Chunks += bst.Chunks
				mu.Unlock()
				return nil
			})
		}
		early := map[int]fileChunks{} // results ahead of their turn: at most cap(ahead) files
		next := 0
		for r := range results {
			early[r.seq] = r
			for {
				fc, ok := early[next]
				if !ok {
					break
				}
				delete(early, next)
				next++
				<-ahead
				if len(fc.chunks) == 0 {
					continue
				}
				mu.Lock()
				seen[fc.chunks[0].Path] = true
				mu.Unlock()
				batch = append(batch, fc.chunks...)
				paths = append(paths, fc.chunks[0].Path)
				if len(batch) >= embedBatch {
					flush()
				}
			}
			if wctx.Err() != nil {
				break
			}
		}
		if len(batch) > 0 && wctx.Err() == nil {
			flush()
		}
		return wg.Wait()
	})
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	return seen, stored, nil
}

// blameFile blames a file that gave chunks, when its fileInput asks for it.
// A failed blame is logged, and the file's chunks get its last commit.
func (ix *Indexer) blameFile(ctx context.Context, log *slog.Logger, f fileInput, chunks int) *blameLines {
	if f.blame == nil || chunks == 0 {
		return nil
	}
	lines, err := f.blame(ctx)
	if err != nil {
		if ctx.Err() == nil {
			log.Warn("blame failed, chunks dated by the file's last commit", "path", f.path, "err", err)
		}
		return nil
	}
	return lines
}

// write embeds and upserts the chunks that changed and deletes the stored
// chunks that are not among chunks. stored is what the store holds of the
// files that chunks come from (all of the source, or the changed files of an
// incremental run), by id. A chunk stored with the same id, content and
// commit is kept as it is; any other chunk whose embedded text (symbol, path,
// signature, content) equals that of a stored chunk of the source, on any
// branch and under any id, is written with that chunk's vector; the rest are
// embedded. With rewrite set (the settings changed since the last run),
// unchanged chunks are written again too, with their stored vectors, so that
// derived fields such as search_text follow the new settings.
//
// A file whose chunks the embedder or the store refuses is left out, in
// out, and its stored chunks stay; the rest is written (out.err() is then
// an *UnembeddedError naming the files). vr, when not nil, records what the
// run changed in the source's vocabulary (vocabRun.record). The caller
// sets st.Pending and st.Deferred from out once every batch is written.
func (ix *Indexer) write(ctx context.Context, log *slog.Logger, st *Stats, vr *vocabRun, chunks []retrieval.Chunk,
	stored map[string]weaviate.Stored, rewrite bool, prog *progress, out *leftOut) error {
	var todo []retrieval.Chunk
	seen := make(map[string]bool, len(chunks))
	for _, c := range chunks {
		id := c.ID()
		if seen[id] {
			return fmt.Errorf("%s: two chunks with id %s (symbol %q, ordinal %d)", c.Path, id, c.Symbol, c.Ordinal)
		}
		seen[id] = true
		old, ok := stored[id]
		// A chunk is kept when nothing it shows changed: with a commit, the
		// same content at the same commit; without one (API specs, folders
		// outside git), the same content, lines and version. Keeping it, not
		// writing it again, matters beyond the work saved: Weaviate counts a
		// rewritten object's old postings in its BM25 statistics until it
		// compacts them, so rewriting a whole unchanged source moves the
		// ranking of every other source in the collection.
		// A chunk waiting for its semantic vector (Indexer.embed) is written
		// again, embedded whole. So is one whose type-resolved calls changed
		// (Go: an edit elsewhere changed what its names resolve to), with
		// its stored vector.
		same := ok && old.ContentHash == c.ContentHash && !rewrite && (!old.Pending || ix.DeferSemantic) &&
			old.Types == c.Types && slices.Equal(old.Calls, c.Calls)
		if c.CommitSHA != "" {
			same = same && old.CommitSHA == c.CommitSHA
		} else {
			same = same && old.CommitSHA == "" && old.StartLine == c.StartLine && old.EndLine == c.EndLine && old.Version == c.Version
		}
		if same {
			st.Kept++
			continue
		}
		todo = append(todo, c)
	}
	embed, err := ix.reuseVectors(ctx, st, todo, out)
	if err != nil {
		return err
	}
	embedded, err := ix.embedAndUpsert(ctx, log, embed, prog, out)
	if err != nil {
		return err
	}
	st.Embedded = embedded
	var stale []string
	for id, s := range stored {
		if !seen[id] && !out.has(s.Path) {
			stale = append(stale, id)
		}
	}
	slices.Sort(stale)
	if err := ix.Store.DeleteIDs(ctx, stale); err != nil {
		return err
	}
	st.Deleted = len(stale)
	kept := slices.DeleteFunc(slices.Clone(chunks), func(c retrieval.Chunk) bool { return out.has(c.Path) })
	st.Chunks = len(kept)
	if vr != nil {
		var replaced []string
		for _, s := range stored {
			if !out.has(s.Path) {
				replaced = append(replaced, s.SearchText)
			}
		}
		vr.record(kept, replaced)
	}
	return nil
}

// reuseVectors writes the chunks whose embedded text is stored already with
// that vector (counted in st.Reused) and returns the others, to embed.
func (ix *Indexer) reuseVectors(ctx context.Context, st *Stats, chunks []retrieval.Chunk, out *leftOut) ([]retrieval.Chunk, error) {
	if len(chunks) == 0 {
		return nil, nil
	}
	var hashes []string
	have := map[string]bool{}
	for _, c := range chunks {
		if !have[c.ContentHash] {
			have[c.ContentHash] = true
			hashes = append(hashes, c.ContentHash)
		}
	}
	found, err := ix.Store.VectorsByHash(ctx, chunks[0].Source, hashes)
	if err != nil {
		return nil, err
	}
	vecs := make(map[string][]float32, len(found))
	for _, f := range found {
		if len(f.Vector) == ix.Embedder.Dim() {
			vecs[embedKey(f.Symbol, f.Path, f.Signature, f.ContentHash)] = f.Vector
		}
	}
	var (
		embed, reuse []retrieval.Chunk
		vs           [][]float32
	)
	for _, c := range chunks {
		if v, ok := vecs[embedKey(c.Symbol, c.Path, c.Signature, c.ContentHash)]; ok {
			reuse, vs = append(reuse, c), append(vs, v)
		} else {
			embed = append(embed, c)
		}
	}
	n, err := ix.upsertOrLeaveOut(ctx, reuse, vs, out)
	if err != nil {
		return nil, err
	}
	st.Reused = n
	return embed, nil
}

// embedKey identifies the text EmbedText makes of a chunk, with the
// content's hash standing for the content.
func embedKey(symbol, path, signature, contentHash string) string {
	return symbol + "\x00" + path + "\x00" + signature + "\x00" + contentHash
}

// embedBatch is how many chunks are embedded and written together.
const embedBatch = 256

// embedAndUpsert embeds and stores chunks in batches of embedBatch (see
// embedBatch for the files it leaves out, in out) and returns how many it
// stored.
func (ix *Indexer) embedAndUpsert(ctx context.Context, log *slog.Logger, chunks []retrieval.Chunk, prog *progress,
	out *leftOut) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(2) // one batch embedding while the previous one is written
	var stored atomic.Int64
	for start := 0; start < len(chunks); start += embedBatch {
		batch := chunks[start:min(start+embedBatch, len(chunks))]
		g.Go(func() error {
			n, err := ix.embedBatch(gctx, log, batch, out)
			stored.Add(int64(n))
			prog.stored(n)
			return err
		})
	}
	err := g.Wait()
	return int(stored.Load()), err
}

// EmbedText is what the embedder reads for a chunk: its symbol, path and
// signature, then its content. Queries are embedded as they are.
func EmbedText(c retrieval.Chunk) string {
	return c.Symbol + "\n" + c.Path + "\n" + c.Signature + "\n" + c.Content
}

// chunkFile chunks one file: markdown by heading, everything else by symbol
// (line windows when there is no grammar or the parse fails). Content that
// is not UTF-8 is converted first (see toUTF8); enc says how, "" when it
// was UTF-8. With red, the secrets of the whole file are replaced first
// (Redactor.Text keeps its lines), so that every chunk, window and
// signature cut from it is redacted, even a secret across two chunks.
func chunkFile(f fileInput, opt code.Options, red *Redactor) (chunks []retrieval.Chunk, skip, fallback, enc string, found []Redaction) {
	if r := f.skipReason(); r != "" {
		return nil, r, "", "", nil
	}
	data, enc := toUTF8(f.data)
	if red != nil {
		var text string
		if text, found = red.Text(f.path, string(data)); len(found) > 0 {
			data = []byte(text)
		}
	}
	if isMarkdown(f.path) {
		return markdown.Chunk(f.path, data), "", "", enc, found
	}
	res := code.Chunk(f.path, data, opt)
	return res.Chunks, "", res.Fallback, enc, found
}

// skipReason says why f is not chunked, or "": too large to read, or a
// reason of fileSkipReason.
func (f fileInput) skipReason() string {
	if f.skip != "" {
		return f.skip
	}
	return fileSkipReason(f.path, f.data)
}

// fileSkipReason says why a file's content is not indexed, or "": markdown
// is only refused when binary or too large, code for every reason of
// code.SkipReason.
func fileSkipReason(path string, data []byte) string {
	r := code.SkipReason(path, data)
	if isMarkdown(path) && r != code.SkipBinary && r != code.SkipTooLarge {
		return ""
	}
	return r
}

// finishChunk fills the fields a chunker leaves to the pipeline. With
// blame lines, the chunk's author and modified_at are those of the newest
// commit among its lines; without, those of the file's last commit.
func finishChunk(c *retrieval.Chunk, f fileInput, lines *blameLines, m runMeta, indexedAt time.Time) {
	c.Source, c.Branch, c.CommitSHA = m.source, m.branch, m.commit
	linkPath := c.Path
	if f.commit != "" {
		c.CommitSHA, linkPath = f.commit, f.repoPath
	}
	c.Author, c.ModifiedAt, c.IndexedAt = f.author, f.modified, indexedAt
	if lines != nil {
		if lc, ok := lines.span(c.StartLine, c.EndLine); ok {
			c.Author, c.ModifiedAt = lc.author, lc.when
		}
	}
	c.ACL = m.acl
	m.types.Attach(c)
	m.scip.Attach(c)
	c.ContentHash = retrieval.HashContent(c.Content)
	c.SearchText = retrieval.SearchText(*c)
	if c.CommitSHA != "" { // a link points at lines of a commit
		c.URL = link(m.link, c.CommitSHA, linkPath, c.StartLine, c.EndLine)
	}
}

func isMarkdown(p string) bool {
	return slices.Contains([]string{".md", ".markdown", ".mdx"}, strings.ToLower(path.Ext(p)))
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

// pendingNote ends the LastError that a run records when it stored chunks
// without their semantic vector, the semantic embedder failing: the run
// succeeded, but the next one must be a full one to embed them.
const pendingNote = " chunks stored without their semantic vector, the next run embeds them"

// PendingVectors reports whether lastError, a SourceState's, is the note of
// a successful run that stored n chunks without their semantic vector
// rather than a failure.
func PendingVectors(lastError string) (n int, ok bool) {
	num, found := strings.CutSuffix(lastError, pendingNote)
	if !found {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}
