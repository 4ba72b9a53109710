package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/ragbot/ragbot/ingest"
)

// gitIndexing is what `ragbot serve` runs for its git sources: the index
// queue fed by push webhooks and polls (ingest.GitService). Wiring in serve:
//
//	git, err := newGitIndexing(s.app, sched, branches, s.log, lease, onSkip) // sched shared with the Confluence TTLs, or nil
//	mux.Handle("/webhooks/", git.Webhooks())                  // POST /webhooks/<source name>, or /webhooks/ for an org hook
//	g.Go(func() error { return git.Run(ctx) })                // startup index + polls + webhook runs; returns after runs stop
type gitIndexing struct {
	svc *ingest.GitService
}

// newGitIndexing builds the git indexing of a's config. sched is the
// scheduler serve shares with the Confluence TTLs; nil makes one that Run
// starts and stops. branches, when not nil, is read again after every index
// run, so that questions go to the branch now checked out or fetched.
// lease, when its Leaser is set, is taken by each run, so that one replica
// runs a source at a time; onSkip (may be nil) is told the source id of
// each run skipped because another replica held it.
func newGitIndexing(a *app, sched *ingest.Scheduler, branches *ingest.Branches, log *slog.Logger, lease ingest.Leased, onSkip func(source string)) (*gitIndexing, error) {
	ix := newIndexer(a)
	ix.Log = log // serve's logger: one Info line per index run
	opt := ingest.GitServiceOptions{Scheduler: sched, Log: log, Lease: lease}
	if onSkip != nil {
		opt.OnLeaseSkip = func(name string) {
			if src, ok := a.cfg.SourceNamed(name); ok {
				onSkip(src.SourceID())
			}
		}
	}
	if branches != nil {
		// A few git rev-parse calls, one per source without configured
		// branches: short enough for OnDone, which must not block.
		opt.Queue.OnDone = func(string, []string, error) { branches.Refresh(context.Background()) }
	}
	svc, err := ingest.NewGitService(ix, a.sources().Repos(), opt)
	if err != nil {
		return nil, err
	}
	return &gitIndexing{svc: svc}, nil
}

// Webhooks is the GitHub and GitLab push-hook handler (ingest.WebhookHandler).
func (g *gitIndexing) Webhooks() http.Handler { return g.svc.Webhooks() }

// Run indexes every git source once, then keeps them indexed on webhooks
// and polls until ctx ends; it returns after the runs under way stopped.
func (g *gitIndexing) Run(ctx context.Context) error { return g.svc.Run(ctx) }
