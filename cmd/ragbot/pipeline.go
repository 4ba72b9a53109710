package main

import (
	"context"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/openai"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// pipeline builds the one answer pipeline of ask, serve and eval from the
// config (docs/architecture.md, "Answering flow"): the retrieval.Asker with
// its thresholds, optional query rewriter and optional summary, the main
// branches of the git sources (read now; serve refreshes them after each
// index run), and the answer guards in order: git snippets against their
// branch heads (ingest.StaleCode), doc snippets against their source's TTL
// (ingest.StaleDocs), the index against the branch heads
// (ingest.BranchFreshness), and the chunk collection's shards: part of the
// index unavailable or read-only (weaviate.HealthGuard). It searches the
// configured sources only (retrieval.OnlySources), and checks the
// question's words against their vocabularies stored in Weaviate (absent
// names, typos; retrieval.OnlySourcesVocabulary).
func (a *app) pipeline(ctx context.Context) (*retrieval.Asker, *ingest.Branches) {
	r := a.cfg.Retrieval
	sum, err := newSummarizer(a.cfg)
	if err != nil { // the config was validated; answer without a summary
		a.log.Warn("llm summary disabled", "err", err)
	}
	rw, err := newRewriter(a.cfg)
	if err != nil { // the config was validated; search without rewrites
		a.log.Warn("llm query rewrite disabled", "err", err)
	}
	repos := gitRepos(a.cfg)
	branches := ingest.NewBranches(ctx, repos)
	stale := ingest.StaleRepos{Sources: map[string]ingest.GitSource{},
		Code: codeOptions(a.cfg), Redact: a.redactor}
	for _, repo := range repos {
		stale.Sources[repo.Source.ID] = repo.Source
	}
	return &retrieval.Asker{
		Store: retrieval.OnlySources(a.store, configuredIDs(a.cfg)), Embedder: a.embedder, Alpha: *r.Alpha, TopK: r.TopK, Candidates: r.Candidates,
		Thresholds: thresholdsFor(a.cfg, lexicalOf(a.embedder)), Summarizer: sum, Branches: branches, Log: a.log,
		Rewriter: rw, RewriteTimeout: r.Rewrite.Timeout, Vocabularies: retrieval.OnlySourcesVocabulary(a.store, configuredIDs(a.cfg)),
		Guards: []retrieval.Guard{
			ingest.StaleCode{Repos: stale},
			ingest.StaleDocs{States: a.store, TTLs: docTTLs(a.cfg)},
			ingest.BranchFreshness{Repos: repos, States: a.store},
			weaviate.HealthGuard{Store: a.store},
		},
	}, branches
}

// newRewriter returns the LLM query rewriter of retrieval.rewrite, or a nil
// interface (not a nil pointer) when it is not enabled. Its endpoint
// defaults to retrieval.summary's (config.Retrieval.RewriteEndpoint); HyDE
// is on unless retrieval.rewrite.hyde is false.
func newRewriter(cfg *config.Config) (retrieval.QueryRewriter, error) {
	rw := cfg.Retrieval.Rewrite
	if !rw.Enabled {
		return nil, nil
	}
	base, model, keyEnv := cfg.Retrieval.RewriteEndpoint()
	w, err := openai.NewRewriter(openai.RewriteConfig{BaseURL: base, Model: model, APIKey: envValue(keyEnv),
		Timeout: rw.Timeout, Variants: rw.Variants, HyDE: rw.HyDE == nil || *rw.HyDE})
	if err != nil {
		return nil, err
	}
	return w, nil
}

// configuredIDs are the source ids of the configured sources, in order.
func configuredIDs(cfg *config.Config) []string {
	ids := make([]string, len(cfg.Sources))
	for i, src := range cfg.Sources {
		ids[i] = src.SourceID()
	}
	return ids
}

// sourcesByName maps each configured source's name to its source id (an
// eval question's corpus is a source name).
func sourcesByName(cfg *config.Config) map[string]string {
	m := map[string]string{}
	for _, s := range cfg.Sources {
		if _, dup := m[s.Name]; !dup { // the first, as cfg.SourceNamed
			m[s.Name] = s.SourceID()
		}
	}
	return m
}
