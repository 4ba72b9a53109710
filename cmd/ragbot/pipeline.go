package main

import (
	"context"
	"os"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/embedders"
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
	repos := a.sources().Repos()
	branches := ingest.NewBranches(ctx, repos)
	stale := ingest.StaleRepos{Sources: map[string]ingest.GitSource{},
		Code: codeOptions(a.cfg), Redact: a.redactor}
	for _, repo := range repos {
		stale.Sources[repo.Source.ID] = repo.Source
	}
	return &retrieval.Asker{
		Store: retrieval.OnlySources(a.store, a.cfg.SourceIDs()), Embedder: a.embedder, Alpha: *r.Alpha, TopK: r.TopK, Candidates: r.Candidates,
		Thresholds: embedders.Thresholds(a.cfg.Retrieval, embedders.Lexical(a.embedder)), Summarizer: sum, Branches: branches, Log: a.log,
		Rewriter: rw, RewriteTimeout: r.Rewrite.Timeout, Vocabularies: retrieval.OnlySourcesVocabulary(a.store, a.cfg.SourceIDs()),
		Guards: []retrieval.Guard{
			ingest.StaleCode{Repos: stale},
			ingest.StaleDocs{States: a.store, TTLs: a.cfg.DocTTLs()},
			ingest.BranchFreshness{Repos: repos, States: a.store},
			weaviate.HealthGuard{Store: a.store},
		},
	}, branches
}

// newSummarizer returns the LLM summarizer of retrieval.summary, or a nil
// interface (not a nil pointer) when it is not enabled.
func newSummarizer(cfg *config.Config) (retrieval.Summarizer, error) {
	s := cfg.Retrieval.Summary
	if !s.Enabled {
		return nil, nil
	}
	sum, err := openai.NewSummarizer(openai.SummaryConfig{BaseURL: s.BaseURL, Model: s.Model, APIKey: os.Getenv(s.APIKeyEnv), Timeout: s.Timeout})
	if err != nil {
		return nil, err
	}
	return sum, nil
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
	w, err := openai.NewRewriter(openai.RewriteConfig{BaseURL: base, Model: model, APIKey: os.Getenv(keyEnv),
		Timeout: rw.Timeout, Variants: rw.Variants, HyDE: rw.HyDE == nil || *rw.HyDE})
	if err != nil {
		return nil, err
	}
	return w, nil
}
