package ingest

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Branches knows the tracked branches of the git sources: the configured
// ones, or the branch checked out in the repository (for a remote source,
// the clone's HEAD: the remote's default branch as of the last fetch). It is
// read from the repositories by Refresh, at start and after index runs, so
// answering a question runs no git command to find its branch. It
// implements retrieval.BranchResolver and is safe for concurrent use.
type Branches struct {
	repos []Repo

	mu      sync.RWMutex
	tracked map[string][]string // source id -> tracked branch names, first is the main one
}

// NewBranches returns the branches of repos, read now (see Refresh).
func NewBranches(ctx context.Context, repos []Repo) *Branches {
	b := &Branches{repos: repos}
	b.Refresh(ctx)
	return b
}

// Refresh reads again the branch of each source without configured branches
// (a clone made or fetched since, a checkout switched). A repository that
// cannot be read (not cloned yet) tracks nothing known until a later
// Refresh.
func (b *Branches) Refresh(ctx context.Context) {
	tracked := make(map[string][]string, len(b.repos))
	for _, r := range b.repos {
		if len(r.Branches) > 0 {
			tracked[r.Source.ID] = r.Branches
			continue
		}
		if _, name, err := BranchHead(ctx, r.Source.Dir, ""); err == nil {
			tracked[r.Source.ID] = []string{name}
		}
	}
	b.mu.Lock()
	b.tracked = tracked
	b.mu.Unlock()
}

// Tracked returns the tracked branches of each git source in scope (source
// ids; empty means all), by source id.
func (b *Branches) Tracked(scope []string) map[string][]string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := map[string][]string{}
	for id, bs := range b.tracked {
		if len(scope) == 0 || slices.Contains(scope, id) {
			out[id] = bs
		}
	}
	return out
}

// MainBranch is the branch a question without one is asked about: the main
// (first tracked) branch of the git sources in scope when they agree, e.g.
// "main"; "" (every branch) when they differ or there is no git source in
// scope, since a query takes one branch filter for all its sources.
func (b *Branches) MainBranch(scope []string) string {
	main := ""
	for _, bs := range b.Tracked(scope) {
		switch {
		case main == "":
			main = bs[0]
		case main != bs[0]:
			return ""
		}
	}
	return main
}

// Check returns an error unless branch is tracked by a git source in scope;
// the error lists the tracked branches.
func (b *Branches) Check(branch string, scope []string) error {
	var all []string
	for _, bs := range b.Tracked(scope) {
		if slices.Contains(bs, branch) {
			return nil
		}
		all = append(all, bs...)
	}
	sort.Strings(all)
	return fmt.Errorf("branch %q is not tracked by the git sources in scope (tracked: %s)", branch, strings.Join(slices.Compact(all), ", "))
}
