package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
)

// freshnessWarnings compares, for each git source in scope, the indexed
// commit with the branch head in the local repository, and says when the
// index is behind or was never built: snippets may then be stale.
func freshnessWarnings(ctx context.Context, a *app, scope []string) []string {
	return branchFreshness(ctx, a.cfg, a.store, scope, "")
}

// branchFreshness is freshnessWarnings for one branch ("" for every tracked
// branch). The repository is the source's path, or its clone for a remote
// source (as of the last fetch).
func branchFreshness(ctx context.Context, cfg *config.Config, states ingest.StateReader, scope []string, branch string) []string {
	var warns []string
	for _, r := range gitRepos(cfg) {
		if len(scope) > 0 && !slices.Contains(scope, r.Source.ID) {
			continue
		}
		branches := r.Branches
		if len(branches) == 0 {
			branches = []string{""}
		}
		for _, b := range branches {
			if branch != "" && b != "" && b != branch {
				continue
			}
			head, name, err := ingest.BranchHead(ctx, r.Source.Dir, b)
			if err != nil {
				if r.Remote != nil {
					warns = append(warns, fmt.Sprintf("%s has not been fetched yet (run ragbot index)", r.Name))
				}
				continue // the index run reports unreadable local repositories
			}
			if branch != "" && name != branch {
				continue
			}
			st, ok, err := states.State(ctx, r.Source.ID, name)
			switch {
			case err != nil:
				continue
			case !ok || st.CommitSHA == "":
				warns = append(warns, fmt.Sprintf("%s@%s has not been indexed yet (run ragbot index)", r.Name, name))
			case st.CommitSHA != head:
				warns = append(warns, fmt.Sprintf("%s@%s is indexed at %s but the branch is at %s: snippets may be stale (run ragbot index)",
					r.Name, name, st.CommitSHA[:7], head[:7]))
			}
		}
	}
	return warns
}
