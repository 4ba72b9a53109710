package ingest

import (
	"cmp"
	"context"
	"log/slog"
	"slices"

	"github.com/ragbot/ragbot/ingest/scipcalls"
)

// resolveSCIP indexes the Python and JavaScript/TypeScript files of commit
// with the SCIP indexers (scipcalls.Resolve) for a run of git source src,
// unless Indexer.NoSCIP or src.NoSCIP is set. For an incremental run it
// does so only when the diff touches such a file, and returns nil
// otherwise. The outcome and cost are added to st.Types and logged; a tool
// that is missing or fails is not an error of the run: its files' chunks
// record why in Chunk.Types and usage answers match their names by text,
// saying so.
func (ix *Indexer) resolveSCIP(ctx context.Context, log *slog.Logger, repo gitRepo, src GitSource, commit string,
	incremental bool, changes []fileChange, st *Stats) *scipcalls.Result {
	touched := func(c fileChange) bool {
		return scipcalls.Handles(c.oldPath) || scipcalls.Handles(c.newPath)
	}
	if ix.NoSCIP || src.NoSCIP || incremental && !slices.ContainsFunc(changes, touched) {
		return nil
	}
	res := scipcalls.Resolve(ctx, repo.dir, commit, scipcalls.Options{Dir: ix.SCIPDir})
	if res == nil {
		return nil // no Python or JavaScript
	}
	if s := res.Summary(); s != "" {
		if st.Types != "" {
			st.Types += ", "
		}
		st.Types += s
	}
	switch {
	case res.Err != "":
		log.Warn("scip resolution failed, usage answers match Python and JavaScript names by text", "reason", res.Err)
		return nil
	case res.Failed == len(res.Files) && scipcalls.Installed(cmp.Or(ix.SCIPDir, scipcalls.Dir())) != nil:
		log.Info("scip indexers not installed, usage answers match Python and JavaScript names by text", "reason", res.FirstErr())
		return res
	case res.Failed > 0:
		log.Warn("files not resolved by scip, their usage answers match names by text", "files", res.Failed, "reason", res.FirstErr())
	}
	log.Info("scip resolved", "calls", res.Calls, "by_name", res.Unresolved, "tools", res.Tools,
		"seconds", res.Elapsed.Seconds())
	return res
}

// rescoped is retyped for SCIP: the unchanged files whose stored calls
// differ from res's (scipcalls.Result.Changed), to chunk again.
func (ix *Indexer) rescoped(ctx context.Context, repo gitRepo, meta runMeta, res *scipcalls.Result,
	affected map[string]bool, src GitSource) ([]treeEntry, error) {
	if res == nil {
		return nil, nil
	}
	return recalled(ctx, ix, repo, meta, affected, src, res.Changed)
}
