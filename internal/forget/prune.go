package forget

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/ragbot/ragbot/internal/humanize"
)

// Action is what Unconfigured does with each source the config no longer
// lists.
type Action int

const (
	Report      Action = iota // say how to delete it (ragbot index)
	Prune                     // delete its chunks and state (--prune)
	PruneDryRun               // say what Prune would delete (--prune --dry-run)
)

// Unconfigured handles the sources the index holds (chunks or an index
// state) that the config no longer lists, from one Aggregate of chunks
// grouped by source (and one of states), one line each on out, as action
// says; a dry run ends with a line saying nothing was deleted. Its errors
// are the store's.
func (f *Forgetter) Unconfigured(ctx context.Context, action Action, out io.Writer) error {
	counts, err := f.Store.SourceCounts(ctx)
	if err != nil {
		return err
	}
	for _, s := range f.Config.Sources {
		delete(counts, s.SourceID())
	}
	for _, id := range slices.Sorted(maps.Keys(counts)) {
		name := id
		if _, n, ok := strings.Cut(id, ":"); ok {
			name = n
		}
		switch action {
		case Report:
			fmt.Fprintf(out, "source %s: %s, not configured; `ragbot forget --source %s` or `ragbot index --prune` deletes them\n",
				name, humanize.Plural(counts[id], "chunk"), name)
		case PruneDryRun:
			fmt.Fprintf(out, "source %s: would prune %s and its index state (not configured)\n", name, humanize.Plural(counts[id], "chunk"))
		case Prune:
			n, err := f.Store.ForgetSource(ctx, id)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "source %s: pruned %s and its index state (not configured)\n", name, humanize.Plural(n, "chunk"))
		}
	}
	if action == PruneDryRun {
		if len(counts) == 0 {
			fmt.Fprintln(out, "every source in the index is configured: nothing to prune")
		}
		fmt.Fprintln(out, "dry run: nothing was deleted, nothing was indexed")
	}
	return nil
}
