package ingest

import (
	"context"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/ragbot/ragbot/retrieval"
)

// The answer guards of ingest: each knows one way an indexed snippet can be
// out of date, and retrieval.Asker runs them in order on every answer.
var (
	_ retrieval.Guard          = StaleCode{}
	_ retrieval.Guard          = StaleDocs{}
	_ retrieval.Guard          = BranchFreshness{}
	_ retrieval.BranchResolver = (*Branches)(nil)
)

// StaleCode checks the git snippets of an answer against the heads of their
// branches (guardStale): a snippet whose file changed since it was indexed
// shows its current lines or carries a warning.
type StaleCode struct {
	Repos StaleRepos
}

// Guard runs guardStale; the error, for the log, never stops the answer.
func (g StaleCode) Guard(ctx context.Context, _ retrieval.Request, ans *retrieval.Answer) error {
	return guardStale(ctx, ans, g.Repos)
}

// StaleDocs marks the doc snippets of sources that re-sync by TTL (the
// Confluence spaces) and have not synced successfully within it ("may be
// outdated, last indexed 26 hours ago"; markStale). A state that cannot be
// read adds an answer-wide warning and is returned for the log.
type StaleDocs struct {
	States StateReader
	TTLs   map[string]time.Duration // source id -> TTL
	Now    func() time.Time         // [time.Now]
}

// Guard runs markStale with the current time.
func (g StaleDocs) Guard(ctx context.Context, _ retrieval.Request, ans *retrieval.Answer) error {
	if len(g.TTLs) == 0 {
		return nil
	}
	now := time.Now
	if g.Now != nil {
		now = g.Now
	}
	if err := markStale(ctx, g.States, ans, g.TTLs, now()); err != nil {
		ans.Warnings = append(ans.Warnings, "could not check whether the Confluence snippets are up to date")
		return err
	}
	return nil
}

// headReaders is how many branch heads BranchFreshness reads at once.
const headReaders = 4

// BranchFreshness compares, for each git source in the request's scope, the
// indexed commit (SourceState) with the head of the branch asked about (or
// of every tracked branch when the request names none), and adds an
// answer-wide warning when the index is behind or was never built: any
// snippet may then be stale. The repository is the source's path, or its
// clone for a remote source (as of the last fetch).
type BranchFreshness struct {
	Repos  []Repo
	States StatesReader
}

// StatesReader reads the SourceStates of every branch of some sources in
// one request; *weaviate.Store implements it.
type StatesReader interface {
	States(ctx context.Context, sources []string) ([]retrieval.SourceState, error)
}

// Guard adds the warnings; it returns no error (an unreadable state or
// repository is reported by the index runs, not in answers). The states
// of the repositories in scope are read in one request.
func (g BranchFreshness) Guard(ctx context.Context, r retrieval.Request, ans *retrieval.Answer) error {
	type headRead struct {
		repo       Repo
		branch     string
		head, name string
		err        error
	}
	var reads []headRead
	for _, repo := range g.Repos {
		if len(r.Sources) > 0 && !slices.Contains(r.Sources, repo.Source.ID) {
			continue
		}
		branches := repo.Branches
		if len(branches) == 0 {
			branches = []string{""}
		}
		for _, b := range branches {
			if r.Branch != "" && b != "" && b != r.Branch {
				continue
			}
			reads = append(reads, headRead{repo: repo, branch: b})
		}
	}
	// Each head is a git process: a question in every one of 15 sources
	// spent most of its own time starting them one after the other
	// (docs/deploy.md, "Sizing"), so they run headReaders at a time.
	var heads errgroup.Group
	heads.SetLimit(headReaders)
	for i := range reads {
		heads.Go(func() error {
			reads[i].head, reads[i].name, reads[i].err = BranchHead(ctx, reads[i].repo.Source.Dir, reads[i].branch)
			return nil
		})
	}
	_ = heads.Wait()
	// asked: a head that was read and is the branch asked about, if any.
	asked := func(rd headRead) bool { return rd.err == nil && (r.Branch == "" || rd.name == r.Branch) }
	var sources []string
	for _, rd := range reads {
		if asked(rd) && !slices.Contains(sources, rd.repo.Source.ID) {
			sources = append(sources, rd.repo.Source.ID)
		}
	}
	var states []retrieval.SourceState
	var read error
	if len(sources) > 0 {
		states, read = g.States.States(ctx, sources)
	}
	for _, rd := range reads {
		if rd.err != nil && rd.repo.Remote != nil { // a remote source's clone has no such branch yet
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("%s has not been fetched yet (run ragbot index)", rd.repo.Name))
		}
		if !asked(rd) || read != nil {
			continue // the index run reports unreadable local repositories and states
		}
		i := slices.IndexFunc(states, func(st retrieval.SourceState) bool {
			return st.Source == rd.repo.Source.ID && st.Branch == rd.name
		})
		switch {
		case i < 0 || states[i].CommitSHA == "":
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("%s@%s has not been indexed yet (run ragbot index)", rd.repo.Name, rd.name))
		case states[i].CommitSHA != rd.head:
			ans.Warnings = append(ans.Warnings, fmt.Sprintf("%s@%s is indexed at %s but the branch is at %s: snippets may be stale (run ragbot index)",
				rd.repo.Name, rd.name, short(states[i].CommitSHA), short(rd.head)))
		}
	}
	return nil
}
