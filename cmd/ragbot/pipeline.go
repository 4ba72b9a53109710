package main

import (
	"context"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/retrieval"
)

// pipeline builds the one answer pipeline of ask, serve and eval from the
// config (docs/architecture.md, "Answering flow"): the retrieval.Asker with
// its thresholds and optional summary, the main branches of the git sources
// (read now; serve refreshes them after each index run), and the answer
// guards in order: git snippets against their branch heads
// (ingest.StaleCode), doc snippets against their source's TTL
// (ingest.StaleDocs), and the index against the branch heads
// (ingest.BranchFreshness).
func (a *app) pipeline(ctx context.Context) (*retrieval.Asker, *ingest.Branches) {
	r := a.cfg.Retrieval
	sum, err := newSummarizer(a.cfg)
	if err != nil { // the config was validated; answer without a summary
		a.log.Warn("llm summary disabled", "err", err)
	}
	repos := gitRepos(a.cfg)
	branches := ingest.NewBranches(ctx, repos)
	stale := ingest.StaleRepos{Sources: map[string]ingest.GitSource{},
		Code: code.Options{MaxLines: a.cfg.Indexing.MaxSymbolLines, WindowLines: a.cfg.Indexing.WindowLines}}
	for _, repo := range repos {
		stale.Sources[repo.Source.ID] = repo.Source
	}
	return &retrieval.Asker{
		Store: a.store, Embedder: a.embedder, Alpha: *r.Alpha, TopK: r.TopK, Candidates: r.Candidates,
		Thresholds: thresholdsFor(a.cfg, lexicalOf(a.embedder)), Summarizer: sum, Branches: branches, Log: a.log,
		Guards: []retrieval.Guard{
			ingest.StaleCode{Repos: stale},
			ingest.StaleDocs{States: a.store, TTLs: docTTLs(a.cfg)},
			ingest.BranchFreshness{Repos: repos, States: a.store},
		},
	}, branches
}
