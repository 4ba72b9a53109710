package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/code"
)

// newIndexer is the indexer of the config, shared by index, ask --index and
// serve: source locks in indexing.repos_dir/locks, so that runs of one
// source in different processes never overlap.
func newIndexer(a *app) *ingest.Indexer {
	return &ingest.Indexer{
		Store: a.store, Embedder: a.embedder, Log: a.log, Workers: a.cfg.Indexing.Workers,
		Code:    code.Options{MaxLines: a.cfg.Indexing.MaxSymbolLines, WindowLines: a.cfg.Indexing.WindowLines},
		LockDir: filepath.Join(a.cfg.Resolve(a.cfg.Indexing.ReposDir), "locks"),
	}
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

// staleRepos is what ingest.GuardStale needs about the config's git sources.
func staleRepos(cfg *config.Config) ingest.StaleRepos {
	sr := ingest.StaleRepos{Sources: map[string]ingest.GitSource{},
		Code: code.Options{MaxLines: cfg.Indexing.MaxSymbolLines, WindowLines: cfg.Indexing.WindowLines}}
	for _, r := range gitRepos(cfg) {
		sr.Sources[r.Source.ID] = r.Source
	}
	return sr
}

// trackedBranches returns, for each git source in scope (source ids; empty
// means all), its tracked branches by name: the configured ones, or the
// checked-out branch of its repository (for a remote source, the clone's
// HEAD: the remote's default branch as of the last fetch). A repository
// that cannot be read (not cloned yet) tracks nothing known.
func trackedBranches(ctx context.Context, cfg *config.Config, scope []string) map[string][]string {
	out := map[string][]string{}
	for _, r := range gitRepos(cfg) {
		if len(scope) > 0 && !slices.Contains(scope, r.Source.ID) {
			continue
		}
		if len(r.Branches) > 0 {
			out[r.Source.ID] = r.Branches
			continue
		}
		if _, name, err := ingest.BranchHead(ctx, r.Source.Dir, ""); err == nil {
			out[r.Source.ID] = []string{name}
		}
	}
	return out
}

// askBranch decides the branch a question is asked about. An explicit
// branch must be tracked by a git source in scope. Without one, it is the
// main branch (the first tracked) of the git sources in scope when they
// agree, e.g. "main"; when they differ, "" (every branch), since the query
// takes one branch filter for all sources.
func askBranch(ctx context.Context, cfg *config.Config, scope []string, branch string) (string, error) {
	tracked := trackedBranches(ctx, cfg, scope)
	if branch != "" {
		var all []string
		for _, bs := range tracked {
			if slices.Contains(bs, branch) {
				return branch, nil
			}
			all = append(all, bs...)
		}
		sort.Strings(all)
		all = slices.Compact(all)
		return "", fmt.Errorf("%w: --branch %q is not tracked by the git sources in scope (tracked: %s)", errUsage, branch, strings.Join(all, ", "))
	}
	main := ""
	for _, bs := range tracked {
		switch {
		case main == "":
			main = bs[0]
		case main != bs[0]:
			return "", nil
		}
	}
	return main, nil
}
