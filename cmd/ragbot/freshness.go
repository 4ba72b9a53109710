package main

import (
	"context"
	"fmt"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
)

// freshnessWarnings compares, for each git source in scope, the indexed
// commit with the branch head in the local repository, and says when the
// index is behind or was never built: snippets may then be stale.
func freshnessWarnings(ctx context.Context, a *app, scope []string) []string {
	in := map[string]bool{}
	for _, id := range scope {
		in[id] = true
	}
	var warns []string
	for _, src := range a.cfg.Sources {
		if src.Kind != config.KindGit || (len(in) > 0 && !in[src.SourceID()]) {
			continue
		}
		branches := src.Branches
		if len(branches) == 0 {
			branches = []string{""}
		}
		for _, b := range branches {
			head, name, err := ingest.BranchHead(ctx, a.cfg.Resolve(src.Path), b)
			if err != nil {
				continue // the index run reports unreadable repositories
			}
			st, ok, err := a.store.State(ctx, src.SourceID(), name)
			switch {
			case err != nil:
				continue
			case !ok || st.CommitSHA == "":
				warns = append(warns, fmt.Sprintf("%s@%s has not been indexed yet (run ragbot index)", src.Name, name))
			case st.CommitSHA != head:
				warns = append(warns, fmt.Sprintf("%s@%s is indexed at %s but the branch is at %s: snippets may be stale (run ragbot index)",
					src.Name, name, st.CommitSHA[:7], head[:7]))
			}
		}
	}
	return warns
}
