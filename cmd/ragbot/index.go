package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"golang.org/x/term"

	"github.com/ragbot/ragbot/internal/forget"
)

const indexAbout = `ragbot index indexes the configured sources into Weaviate: git repositories at
each branch head (one chunk per symbol, markdown by H1-H3 section), markdown
folders, and Confluence spaces and HTML exports (by H1-H3 section; only pages
whose version changed are fetched again). A remote git source (url:) is
cloned into indexing.repos_dir and fetched first; a branch indexed before is
updated from the diff since its last indexed commit, and reconciled whole
after a force push or an interrupted run. An unchanged source is skipped;
unchanged chunks are never embedded again.
Chunks of sources no longer in the config are reported (they are not
searched); --prune deletes them and their index state. --prune --dry-run
prints what --prune would delete and stops there: it deletes nothing and
indexes nothing, no re-embedding either (so it takes no --source, --full
or --recreate). A branch dropped
from a git source's branches (or gone from the repository) is deleted from
the index, chunks and state, with a line in the summary.
Progress goes to stderr, the summary to stdout.

Examples:
  ragbot index --config ragbot.yaml
  ragbot index --config ragbot.yaml --source payments --full
  ragbot index --config ragbot.yaml --prune --dry-run
  ragbot index --config ragbot.yaml --prune`

func runIndex(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, cf := newFlags("index", indexAbout, stderr)
	only := fs.String("source", "", "index only these sources (comma-separated names); empty means all")
	full := fs.Bool("full", false, "re-chunk every file even when the source is at the indexed commit (still re-embeds nothing unchanged)")
	recreate := fs.Bool("recreate", false, "drop the collection and index everything anew (needed after a change of embedder.kind or from the single-vector schema of an earlier version; a new embedder.semantic needs none)")
	prune := fs.Bool("prune", false, "delete the chunks and index state of sources the config no longer lists (without it they are reported)")
	dryRun := fs.Bool("dry-run", false, "with --prune: print what --prune would delete; index nothing, delete nothing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *dryRun {
		indexing := map[string]bool{"source": *only != "", "full": *full, "recreate": *recreate}
		return pruneDryRun(ctx, *prune, indexing, *cf, stdout, stderr)
	}
	cf.indexing = true // a collection of another model is re-embedded, not refused (connect.Options)
	cf.recreate = *recreate
	a, err := openApp(ctx, *cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close() // with --recreate, connect.Open dropped the collections
	want := map[string]bool{}
	for _, n := range commaList(*only) {
		if _, ok := a.cfg.SourceNamed(n); !ok {
			return fmt.Errorf("%w: --source %q is not a configured source", errUsage, n)
		}
		want[n] = true
	}
	err = indexAll(ctx, a, want, *full || *recreate, stdout)
	action := forget.Report
	if *prune {
		action = forget.Prune
	}
	if perr := forgetterOf(a).Unconfigured(ctx, action, stdout); perr != nil {
		return errors.Join(err, perr)
	}
	return err
}

// pruneDryRun is `ragbot index --prune --dry-run`: it reports the sources
// --prune would delete, and indexes nothing. It opens the store as ragbot
// forget does, not as an index run (no re-embedding
// of a collection of another model), so no chunk or index state is
// written; like every command, it creates the collections if Weaviate has
// none. --dry-run without --prune, or with one of the indexing flags given
// (true in indexing, by flag name), is a usage error.
func pruneDryRun(ctx context.Context, prune bool, indexing map[string]bool, cf commonFlags, stdout, stderr io.Writer) error {
	if !prune {
		return fmt.Errorf("%w: --dry-run goes with --prune (ragbot index --prune --dry-run prints what --prune would delete)", errUsage)
	}
	for _, name := range slices.Sorted(maps.Keys(indexing)) {
		if indexing[name] {
			return fmt.Errorf("%w: --prune --dry-run indexes nothing, so --%s does not go with it; run without --dry-run to index", errUsage, name)
		}
	}
	a, err := openApp(ctx, cf, stderr)
	if err != nil {
		return err
	}
	defer a.Close()
	return forgetterOf(a).Unconfigured(ctx, forget.PruneDryRun, stdout)
}

// indexAll indexes the sources named in want (all when empty) as
// sources.Sources.Index does, with progress on a's stderr, printing one
// summary line per source and branch to out. With a semantic embedder of
// kind onnx (a transformer on the CPU), the chunks are first written with
// their lexical vector alone, so that they answer at once from BM25 and
// that vector, then their semantic vectors are filled in
// (ingest.Indexer.FillSemantic), with a progress line and a summary line;
// a fill interrupted before is resumed here.
func indexAll(ctx context.Context, a *app, want map[string]bool, full bool, out io.Writer) error {
	ix := newIndexer(a)
	ix.Progress, ix.ProgressTTY = a.stderr, isTerminal(a.stderr)
	ix.DeferSemantic = a.cfg.DefersSemantic()
	err := a.sources().Index(ctx, ix, want, full, out)
	if !ix.DeferSemantic || ctx.Err() != nil {
		return err
	}
	st, ferr := ix.FillSemantic(ctx)
	if st.Pending > 0 {
		fmt.Fprintf(out, "semantic vectors: %d of %d chunks filled in %s (%.0f chunks/s)\n",
			st.Filled, st.Pending, st.Duration.Round(time.Second), float64(st.Filled)/max(st.Duration.Seconds(), 1e-3))
	}
	return errors.Join(err, ferr)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
