package main

import (
	"context"
	"log/slog"
	"net/http"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
)

// gitIndexing is what `ragbot serve` runs for its git sources: the index
// queue fed by push webhooks and polls (ingest.GitService), and the stale
// guard every answer passes before it is shown. Wiring in serve:
//
//	git, err := newGitIndexing(s.app, nil, s.log)   // or the shared *ingest.Scheduler
//	mux.Handle("/webhooks/", git.Webhooks())         // POST /webhooks/<source name>, or /webhooks/ for an org hook
//	g.Go(func() error { return git.Run(ctx) })       // startup index + polls + webhook runs; returns after runs stop
//	Answerer: git.Guarded(asker), Lister: git.Guarded(&lister)
type gitIndexing struct {
	svc *ingest.GitService
	cfg *config.Config
	log *slog.Logger
}

// newGitIndexing builds the git indexing of a's config. sched is the
// scheduler serve shares with the Confluence TTLs; nil makes one that Run
// starts and stops.
func newGitIndexing(a *app, sched *ingest.Scheduler, log *slog.Logger) (*gitIndexing, error) {
	ix := newIndexer(a)
	ix.Log = log // serve's logger: one Info line per index run
	svc, err := ingest.NewGitService(ix, gitRepos(a.cfg), ingest.GitServiceOptions{Scheduler: sched, Log: log})
	if err != nil {
		return nil, err
	}
	return &gitIndexing{svc: svc, cfg: a.cfg, log: log}, nil
}

// Webhooks is the GitHub and GitLab push-hook handler (ingest.WebhookHandler).
func (g *gitIndexing) Webhooks() http.Handler { return g.svc.Webhooks() }

// Run indexes every git source once, then keeps them indexed on webhooks
// and polls until ctx ends; it returns after the runs under way stopped.
func (g *gitIndexing) Run(ctx context.Context) error { return g.svc.Run(ctx) }

// Guarded wraps an answerer so that a question without a branch is asked
// about the main branch of the git sources in scope, and every answer
// passes ingest.GuardStale before it is shown.
func (g *gitIndexing) Guarded(next bot.Answerer) bot.Answerer {
	return guardedAnswerer{next: next, cfg: g.cfg, repos: g.svc.StaleRepos(), log: g.log}
}

// guardedAnswerer is gitIndexing.Guarded's answerer.
type guardedAnswerer struct {
	next  bot.Answerer
	cfg   *config.Config
	repos ingest.StaleRepos
	log   *slog.Logger
}

var _ bot.Answerer = guardedAnswerer{}

// Ask answers r, on its branch or the main one, and marks stale snippets.
func (g guardedAnswerer) Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error) {
	if r.Branch == "" {
		if b, err := askBranch(ctx, g.cfg, r.Sources, ""); err == nil {
			r.Branch = b
		}
	}
	ans, err := g.next.Ask(ctx, r)
	if err != nil {
		return ans, err
	}
	if err := ingest.GuardStale(ctx, &ans, g.repos); err != nil {
		g.log.Warn("stale check", "err", err) // the snippets concerned carry a warning
	}
	return ans, nil
}
