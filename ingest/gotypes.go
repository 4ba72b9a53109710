package ingest

import (
	"context"
	"log/slog"
	"path"
	"slices"

	"github.com/ragbot/ragbot/ingest/gocalls"
)

// resolveGo type-checks the Go modules of commit (gocalls.Resolve) for a
// run of git source src, unless Indexer.NoGoTypes or src.NoGoTypes is set. For an incremental
// run (changes are the diff from the last indexed commit) it does so only when the diff touches a file that
// can change how a Go name resolves (a .go file, go.mod, go.sum, go.work,
// included or not), and returns nil otherwise: the stored calls of the
// unchanged files are then still right. The outcome and cost go in
// st.Types and the log, except for .go files without a go.mod
// (gocalls.NoModule), which are only marked so in their chunks; a failure is not an error of the run (the chunks
// record it in Chunk.Types and usage answers fall back to name matching).
func (ix *Indexer) resolveGo(ctx context.Context, log *slog.Logger, repo gitRepo, src GitSource, commit string,
	incremental bool, changes []fileChange, st *Stats) *gocalls.Result {
	if ix.NoGoTypes || src.NoGoTypes || (incremental && !slices.ContainsFunc(changes, func(c fileChange) bool {
		return goInput(c.oldPath) || goInput(c.newPath)
	})) {
		return nil
	}
	res := gocalls.Resolve(ctx, repo.dir, commit)
	switch {
	case len(res.Files) == 0 && res.Err != "": // the commit could not be extracted
		st.Types = res.Summary()
		log.Warn("go type resolution failed, usage answers match Go names by text", "reason", res.Err)
		return nil
	case len(res.Files) == 0:
		return nil // no Go code
	case res.Err == gocalls.NoModule: // .go files, but not a module: nothing to report
		log.Debug("go files outside any module, usage answers match their names by text")
		return res
	}
	st.Types = res.Summary()
	switch {
	case res.Err != "":
		log.Warn("go type resolution unavailable, usage answers match Go names by text", "reason", res.Err)
	case res.Failed > 0:
		log.Warn("go files not type-checked, their usage answers match names by text", "files", res.Failed)
	}
	log.Info("go types resolved", "modules", res.Modules, "calls", res.Calls, "untyped_files", res.Failed,
		"seconds", res.Elapsed.Seconds(), "peak_rss_bytes", res.PeakRSS)
	return res
}

// goInput reports whether a change of path p can change resolution.
func goInput(p string) bool {
	switch path.Base(p) {
	case "go.mod", "go.sum", "go.work":
		return true
	}
	return path.Ext(p) == ".go"
}

// retyped adds to an incremental run the files whose text did not change
// but whose stored calls differ from types' (gocalls.Result.Changed): an
// edit in one file can change what a name in another resolves to (a
// receiver's type, an embedded field, a package function moved). Each
// such file is chunked again as if modified (its chunks then keep their
// vectors: the embedded text is the same), so that the precise data of
// the whole branch is that of the new commit, the same as a full run's.
// It reads every stored chunk of the branch (Store.ListStored).
func (ix *Indexer) retyped(ctx context.Context, repo gitRepo, meta runMeta, types *gocalls.Result,
	affected map[string]bool, src GitSource) ([]treeEntry, error) {
	if types == nil {
		return nil, nil
	}
	return recalled(ctx, ix, repo, meta, affected, src, types.Changed)
}

// recalled returns the files of meta's commit that affected does not hold
// (no change touched them) but whose stored chunks' calls changed
// resolves differently now (gocalls or scipcalls Result.Changed of those
// chunks), within src's include and exclude. It reads every stored chunk
// of the branch (Store.ListStored). Errors are the store's and git's.
func recalled(ctx context.Context, ix *Indexer, repo gitRepo, meta runMeta,
	affected map[string]bool, src GitSource, changed func([]gocalls.Stored) []string) ([]treeEntry, error) {
	stored, err := ix.Store.ListStored(ctx, meta.source, meta.branch)
	if err != nil {
		return nil, err
	}
	var spans []gocalls.Stored
	for _, s := range stored {
		if !affected[s.Path] {
			spans = append(spans, gocalls.Stored{Path: s.Path, StartLine: s.StartLine, EndLine: s.EndLine, Calls: s.Calls, Types: s.Types})
		}
	}
	paths := changed(spans)
	if len(paths) == 0 {
		return nil, nil
	}
	entries, err := repo.files(ctx, meta.commit)
	if err != nil {
		return nil, err
	}
	var out []treeEntry
	for _, e := range entries {
		if _, ok := slices.BinarySearch(paths, e.path); ok && included(e.path, src.Include, src.Exclude) {
			out = append(out, e)
		}
	}
	return out, nil
}
