package main

import (
	"log/slog"
	"path/filepath"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/internal/doctor"
	"github.com/ragbot/ragbot/internal/forget"
)

// newIndexer is the indexer of the config, shared by index, ask --index and
// serve: source locks in indexing.repos_dir/locks, so that runs of one
// source in different processes never overlap.
func newIndexer(a *app) *ingest.Indexer {
	return &ingest.Indexer{
		Store: a.store, Embedder: a.embedder, Log: a.log, Workers: a.cfg.Indexing.Workers,
		MaxInputTokens: a.cfg.Embedder.MaxInputTokens,
		Code:           codeOptions(a.cfg),
		LockDir:        filepath.Join(a.cfg.Resolve(a.cfg.Indexing.ReposDir), "locks"),
		OnRun:          a.onRun,
		Redact:         a.redactor,
	}
}

// codeOptions are the code chunker's sizes of indexing.max_symbol_lines and
// indexing.window_lines.
func codeOptions(cfg *config.Config) code.Options {
	return code.Options{MaxLines: cfg.Indexing.MaxSymbolLines, WindowLines: cfg.Indexing.WindowLines}
}

// repoOf is the ingest view of a git source: the local repository at path,
// or the clone of url under indexing.repos_dir with the token from
// token_env; its branches, poll interval, webhook secret and links.
func repoOf(cfg *config.Config, s config.Source) ingest.Repo {
	sec := cfg.GitSecrets(s)
	r := ingest.Repo{
		Name: s.Name,
		Source: ingest.GitSource{ID: s.SourceID(), Dir: cfg.Resolve(s.Path), Include: s.Include, Exclude: s.Exclude,
			LinkTemplate: s.Links(), ACL: s.ACL},
		Branches: s.Branches, Poll: s.PollInterval, WebhookSecret: sec.Webhook,
	}
	if s.URL != "" {
		r.Source.Dir = ingest.CloneDir(cfg.Resolve(cfg.Indexing.ReposDir), s.Name)
		r.Remote = &ingest.Remote{URL: s.URL, Token: sec.Token, TokenUser: s.TokenUser}
		r.URLs = append(r.URLs, s.URL)
	}
	if web := s.RepoWebURL(); web != "" {
		r.URLs = append(r.URLs, web)
	}
	return r
}

// gitRepos returns the git sources of the config, in order.
func gitRepos(cfg *config.Config) []ingest.Repo {
	var out []ingest.Repo
	for _, s := range cfg.Sources {
		if s.Kind == config.KindGit {
			out = append(out, repoOf(cfg, s))
		}
	}
	return out
}

// configSources is the config's sources as index runs read them, for the
// packages that take a source view (forget, doctor); pageSet logs to log.
type configSources struct {
	cfg *config.Config
	log *slog.Logger
}

func (c configSources) Repo(src config.Source) ingest.Repo     { return repoOf(c.cfg, src) }
func (c configSources) Dir(src config.Source) ingest.DirSource { return dirSourceOf(c.cfg, src) }
func (c configSources) Pages(src config.Source) (ingest.PageSet, error) {
	return pageSet(c.cfg, src, c.log)
}

var (
	_ forget.Sources = configSources{}
	_ doctor.Sources = configSources{}
)
