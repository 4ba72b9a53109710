package ingest

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"time"

	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/retrieval"
)

// IndexGit indexes src at its branch head. Unless full is set, a source
// whose state already records this commit and settings, after a successful
// run, is left alone (Stats.UpToDate).
//
// When the last indexed commit is an ancestor of the head, the run is
// incremental (ModeIncremental): only the files in `git diff-tree -M` between
// the two are chunked again, and the Go files whose type-resolved calls
// changed with them (Indexer.retyped); the chunks of deleted files and of
// symbols gone from changed files are deleted, and a renamed file's chunks move to the new
// path. Otherwise (first run, full set, settings changed, the last commit
// rewritten away by a force push, or the previous run did not finish) every
// file is chunked and every stored chunk of the branch that is not among the
// results is deleted (ModeFull). Either way, chunks whose embedded text is
// stored already are not embedded again.
//
// Before writing anything the run marks the state as unfinished; the state
// advances to the new commit only after every chunk is stored and every
// stale one deleted. A run that is interrupted, even by a crash, is followed
// by a full reconcile at the next run, so the index ends up with neither
// holes nor duplicates (ids are deterministic).
//
// Errors name the source and branch, and the file when one is to blame.
func (ix *Indexer) IndexGit(ctx context.Context, src GitSource, full bool) (Stats, error) {
	st, err := ix.indexGit(ctx, src, full)
	ix.report(RunReport{Source: src.ID, UpToDate: st.UpToDate, Embedded: st.Embedded, Deleted: st.Deleted, Err: err})
	return st, err
}

func (ix *Indexer) indexGit(ctx context.Context, src GitSource, full bool) (Stats, error) {
	start := time.Now()
	repo := gitRepo{dir: src.Dir}
	commit, branch, err := repo.head(ctx, src.Branch)
	if err != nil {
		return Stats{}, fmt.Errorf("ingest: %s: %w", src.ID, err)
	}
	st := Stats{Source: src.ID, Branch: branch, Commit: commit}
	log := ix.log().With("source", src.ID, "branch", branch, "commit", short(commit))
	settings := ix.GitSettings(src)
	prev, ok, err := ix.Store.State(ctx, src.ID, branch)
	if err != nil {
		return st, fmt.Errorf("ingest: %s@%s: %w", src.ID, branch, err)
	}
	if !full && ok && prev.CommitSHA == commit && prev.Settings == settings && prev.LastError == "" {
		ix.ensureVocabulary(ctx, log, prev)
		st.UpToDate, st.Chunks, st.Files, st.Duration = true, prev.Chunks, prev.Files, time.Since(start)
		log.Debug("index up to date", "chunks", prev.Chunks)
		return st, nil
	}
	st.Mode, st.Reason = ix.planGit(ctx, repo, prev, ok, settings, commit, full)
	log.Info("index run", "mode", st.Mode, "reason", st.Reason)
	if err := ix.markRunning(ctx, prev, st); err != nil {
		return st, fmt.Errorf("ingest: %s@%s: %w", src.ID, branch, err)
	}
	meta := runMeta{source: src.ID, branch: branch, commit: commit, link: src.LinkTemplate, acl: src.ACL}
	vr := &vocabRun{full: st.Mode != ModeIncremental, acl: src.ACL}
	if st.Mode == ModeIncremental {
		err = ix.indexDelta(ctx, log, &st, vr, repo, src, meta, prev)
	} else {
		err = ix.indexTree(ctx, log, &st, vr, repo, src, meta, ok && prev.Settings != settings)
	}
	st.Duration = time.Since(start)
	return st, ix.finish(ctx, log, &st, vr, settings, err)
}

// planGit decides between an incremental run from prev's commit and a full
// reconcile, and says why.
func (ix *Indexer) planGit(ctx context.Context, repo gitRepo, prev retrieval.SourceState, ok bool,
	settings, head string, full bool) (mode, reason string) {
	switch {
	case full:
		return ModeFull, "full run requested"
	case !ok || prev.CommitSHA == "":
		return ModeFull, "first index of the branch"
	case prev.LastError != "":
		return ModeFull, "the previous run did not finish: " + prev.LastError
	case prev.Settings != settings:
		return ModeFull, "chunking settings, links, filters or embedder changed"
	case !repo.hasCommit(ctx, prev.CommitSHA):
		return ModeFull, fmt.Sprintf("last indexed commit %s is gone (history rewritten)", short(prev.CommitSHA))
	}
	anc, err := repo.isAncestor(ctx, prev.CommitSHA, head)
	switch {
	case err != nil:
		return ModeFull, err.Error()
	case !anc:
		return ModeFull, fmt.Sprintf("force push: last indexed commit %s is not an ancestor of %s", short(prev.CommitSHA), short(head))
	}
	return ModeIncremental, fmt.Sprintf("diff %s..%s", short(prev.CommitSHA), short(head))
}

// markRunning records, before the run writes anything, that a run towards
// st.Commit has started and not finished. finish replaces the mark; if the
// process dies first, the mark makes the next run a full reconcile.
func (ix *Indexer) markRunning(ctx context.Context, prev retrieval.SourceState, st Stats) error {
	next := prev
	next.Source, next.Branch = st.Source, st.Branch
	next.LastError = fmt.Sprintf("run to %s started at %s did not finish", short(st.Commit), ix.now().UTC().Format(time.RFC3339))
	return ix.Store.PutState(ctx, next)
}

// indexTree is the full reconcile: every file of the commit is chunked, and
// every stored chunk of the branch not among the results is deleted.
func (ix *Indexer) indexTree(ctx context.Context, log *slog.Logger, st *Stats, vr *vocabRun, repo gitRepo, src GitSource,
	meta runMeta, rewrite bool) error {
	entries, err := repo.files(ctx, meta.commit)
	if err != nil {
		return err
	}
	meta.types = ix.resolveGo(ctx, log, repo, src, meta.commit, false, nil, st)
	meta.scip = ix.resolveSCIP(ctx, log, repo, src, meta.commit, false, nil, st)
	st.Skipped = map[string]int{}
	keep := treeFiles(entries, src, func(e treeEntry, reason string) {
		st.Skipped[reason]++
		log.Debug("skip file", "path", e.path, "reason", reason)
	})
	want := map[string]bool{}
	for _, e := range keep {
		want[e.path] = true
	}
	hist, err := repo.histories(ctx, meta.commit, want)
	if err != nil {
		return err
	}
	return ix.run(ctx, log, st, vr, meta, len(keep), rewrite, func(ctx context.Context, out chan<- fileInput) error {
		return readFiles(ctx, repo, keep, out, func(e treeEntry, f *fileInput) {
			h := hist[e.path]
			f.author, f.modified = h.last.author, h.last.when
			if h.blame {
				f.blame = blameFunc(repo, meta.commit, e.path)
			}
		})
	})
}

// indexDelta is the incremental run from prev.CommitSHA to meta.commit.
func (ix *Indexer) indexDelta(ctx context.Context, log *slog.Logger, st *Stats, vr *vocabRun, repo gitRepo, src GitSource,
	meta runMeta, prev retrieval.SourceState) error {
	changes, err := repo.diffTree(ctx, prev.CommitSHA, meta.commit)
	if err != nil {
		return err
	}
	meta.types = ix.resolveGo(ctx, log, repo, src, meta.commit, true, changes, st)
	meta.scip = ix.resolveSCIP(ctx, log, repo, src, meta.commit, true, changes, st)
	st.Skipped = map[string]int{}
	affected := map[string]bool{}
	var oldFiles, newFiles []treeEntry
	for _, c := range changes {
		if c.status == 'M' && c.oldBlob == c.newBlob && isFile(c.oldMode) && isFile(c.newMode) {
			continue // only the executable bit changed: the chunks stay as they are
		}
		if c.oldPath != "" && included(c.oldPath, src.Include, src.Exclude) {
			affected[c.oldPath] = true
			if isFile(c.oldMode) {
				oldFiles = append(oldFiles, treeEntry{mode: c.oldMode, blob: c.oldBlob, path: c.oldPath})
			}
		}
		if c.newPath != "" && included(c.newPath, src.Include, src.Exclude) {
			affected[c.newPath] = true
			if !isFile(c.newMode) {
				continue // a symlink or a submodule now: not indexed
			}
			if r := pathSkipReason(c.newPath, 0); r != "" {
				st.Skipped[r]++
				continue
			}
			newFiles = append(newFiles, treeEntry{mode: c.newMode, blob: c.newBlob, path: c.newPath})
		}
	}
	retyped, err := ix.retyped(ctx, repo, meta, meta.types, affected, src)
	if err != nil {
		return err
	}
	rescoped, err := ix.rescoped(ctx, repo, meta, meta.scip, affected, src)
	if err != nil {
		return err
	}
	for _, e := range slices.Concat(retyped, rescoped) { // unchanged, but their calls resolve differently now
		if affected[e.path] {
			continue
		}
		affected[e.path] = true
		oldFiles, newFiles = append(oldFiles, e), append(newFiles, e)
	}
	if len(affected) == 0 {
		st.Files, st.Chunks, st.Kept = prev.Files, prev.Chunks, prev.Chunks
		return nil
	}
	paths := slices.Sorted(maps.Keys(affected))
	wasIndexed, err := countIndexed(ctx, repo, oldFiles)
	if err != nil {
		return err
	}
	headInfo, err := repo.commitInfo(ctx, meta.commit)
	if err != nil {
		return err
	}
	prog := ix.newProgress(meta.source, len(newFiles))
	defer prog.done()
	produce := func(ctx context.Context, out chan<- fileInput) error {
		return readFiles(ctx, repo, newFiles, out, func(e treeEntry, f *fileInput) {
			f.author, f.modified = headInfo.author, headInfo.when
			f.blame = blameFunc(repo, meta.commit, e.path)
		})
	}
	var out leftOut
	seen, stored, err := ix.stream(ctx, log, st, vr, meta, prog, false, &out, produce)
	if err != nil {
		return err
	}
	// The affected paths that gave no chunk (deleted, renamed away, now
	// skipped): their stored chunks go.
	var gone []string
	for _, p := range paths {
		if !seen[p] {
			gone = append(gone, p)
		}
	}
	deleted, found, err := ix.deletePaths(ctx, meta, gone, vr)
	st.Deleted += deleted
	stored += found
	if err != nil {
		return err
	}
	st.Pending, st.Deferred = out.pending, ix.DeferSemantic
	// Totals over the whole branch: the unchanged files' chunks stay as stored.
	untouched := prev.Chunks - stored
	if untouched < 0 {
		log.Warn("stored chunks of the changed files exceed the recorded total", "recorded", prev.Chunks, "stored", stored)
		untouched = 0
	}
	st.Chunks += untouched
	st.Kept += untouched
	st.Files = max(prev.Files-wasIndexed, 0) + st.Files
	log.Debug("incremental run", "changes", len(changes), "paths", len(paths), "stored", stored)
	return out.err() // nil, or the files left out
}

// readFiles sends the content of entries to out, in order, through one
// `git cat-file --batch`; fill adds what the caller knows about each file.
// A file over code.MaxFileBytes is sent as skipped, unread.
func readFiles(ctx context.Context, repo gitRepo, entries []treeEntry, out chan<- fileInput,
	fill func(treeEntry, *fileInput)) error {
	cf, err := repo.catFile(ctx)
	if err != nil {
		return err
	}
	defer cf.Close()
	for _, e := range entries {
		f, err := readEntry(cf, e)
		if err != nil {
			return err
		}
		fill(e, &f)
		select {
		case out <- f:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// readEntry reads the blob of e, at most code.MaxFileBytes of it: a larger
// file comes back with skip set and no data.
func readEntry(cf *catFile, e treeEntry) (fileInput, error) {
	data, size, err := cf.readMax(e.blob, code.MaxFileBytes)
	if err != nil {
		return fileInput{}, fmt.Errorf("%s: %w", e.path, err)
	}
	f := fileInput{path: e.path, data: data}
	if size > code.MaxFileBytes {
		f.skip = code.SkipTooLarge
	}
	return f, nil
}

// countIndexed returns how many of the files (of the last indexed commit)
// the last run indexed: those that passed the same skip rules.
func countIndexed(ctx context.Context, repo gitRepo, files []treeEntry) (int, error) {
	if len(files) == 0 {
		return 0, nil
	}
	cf, err := repo.catFile(ctx)
	if err != nil {
		return 0, err
	}
	defer cf.Close()
	n := 0
	for _, e := range files {
		if pathSkipReason(e.path, 0) != "" {
			continue
		}
		data, size, err := cf.readMax(e.blob, code.MaxFileBytes)
		if err != nil {
			return 0, fmt.Errorf("%s (before): %w", e.path, err)
		}
		if size <= code.MaxFileBytes && fileSkipReason(e.path, data) == "" {
			n++
		}
	}
	return n, nil
}

// blameFunc blames path at commit when called.
func blameFunc(repo gitRepo, commit, path string) func(context.Context) (*blameLines, error) {
	return func(ctx context.Context) (*blameLines, error) { return repo.blame(ctx, commit, path) }
}
