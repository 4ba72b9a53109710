package sources

import (
	"cmp"
	"fmt"
	"log/slog"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/confluence"
	"github.com/ragbot/ragbot/ingest"
)

// Sources gives the sources of Config as index runs read them. It
// satisfies forget.Sources and doctor.Sources. Its methods read the
// config only, except Pages, which reads a Confluence source's
// credentials from the environment.
type Sources struct {
	Config *config.Config
	Log    *slog.Logger // the Confluence clients' logger [slog.Default()]
}

// Repo is the ingest view of the git source s: the local repository at
// path, or the clone of url under indexing.repos_dir with the token from
// token_env; its branches, poll interval, webhook secret, links and
// whether its Go types are resolved (go_types) and its Python and
// JavaScript calls (scip).
func (c Sources) Repo(s config.Source) ingest.Repo {
	cfg := c.Config
	sec := cfg.GitSecrets(s)
	r := ingest.Repo{
		Name: s.Name,
		Source: ingest.GitSource{ID: s.SourceID(), Dir: cfg.Resolve(s.Path), Include: s.Include, Exclude: s.Exclude,
			LinkTemplate: s.Links(), ACL: s.ACL, NoGoTypes: !s.ResolveGoTypes(), NoSCIP: !s.ResolveSCIP()},
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

// Repos returns the git sources of the config (Repo), in order.
func (c Sources) Repos() []ingest.Repo {
	var out []ingest.Repo
	for _, s := range c.Config.Sources {
		if s.Kind == config.KindGit {
			out = append(out, c.Repo(s))
		}
	}
	return out
}

// Dir is the markdown folder source src as ingest reads it: its chunk
// paths start with the folder as configured (Source.CitationPrefix), and
// it links as its own template or the git source holding it
// (Config.DirLinks).
func (c Sources) Dir(src config.Source) ingest.DirSource {
	return ingest.DirSource{ID: src.SourceID(), Dir: c.Config.Resolve(src.Path), Exclude: src.Exclude, ACL: src.ACL,
		Prefix: src.CitationPrefix(), LinkTemplate: c.Config.DirLinks(src)}
}

// isPageSource reports a source indexed with ingest.Indexer.IndexPages.
func isPageSource(src config.Source) bool {
	return src.Kind == config.KindConfluence || src.Kind == config.KindHTML
}

// Pages is the page set of the confluence or html source src. For
// confluence it reads the credentials now, so a missing token fails the
// source (the error names the variable), not the whole config; a client
// that cannot be made is an error starting with the source's name, as is a
// source of another kind.
func (c Sources) Pages(src config.Source) (ingest.PageSet, error) {
	log := cmp.Or(c.Log, slog.Default())
	switch src.Kind {
	case config.KindConfluence:
		sec, err := c.Config.ConfluenceSecrets(src.Name)
		if err != nil {
			return ingest.PageSet{}, err
		}
		cl, err := confluence.NewClient(confluence.Options{
			BaseURL: src.URL, Flavour: src.Flavour, Email: sec.Email, Token: sec.Token,
			Log: log.With("source", src.SourceID()),
		})
		if err != nil {
			return ingest.PageSet{}, fmt.Errorf("%s: %w", src.Name, err)
		}
		scope := confluence.Scope{Spaces: src.Spaces, Label: src.Label, CQL: src.CQL}
		return ingest.PageSet{ID: src.SourceID(), Pages: confluence.NewSource(cl, scope), Settings: confluence.Settings(cl), ACL: src.ACL}, nil
	case config.KindHTML:
		es := &confluence.ExportSource{Dir: c.Config.Resolve(src.Path), Exclude: src.Exclude}
		return ingest.PageSet{ID: src.SourceID(), Pages: es, Settings: es.Settings(), ACL: src.ACL}, nil
	}
	return ingest.PageSet{}, fmt.Errorf("%s: a %s source has no pages", src.Name, src.Kind)
}

// PageSyncs returns the scheduled re-sync of each confluence source, for
// ingest.SchedulePageSyncs: at its cron schedule, else every TTL; its page
// set (Pages), with the credentials, is made at each run.
func (c Sources) PageSyncs() []ingest.PageSync {
	var syncs []ingest.PageSync
	for _, src := range c.Config.Sources {
		if src.Kind != config.KindConfluence {
			continue
		}
		syncs = append(syncs, ingest.PageSync{ID: src.SourceID(), Spec: cmp.Or(src.Schedule, ingest.EverySpec(src.TTLDuration)),
			Set: func() (ingest.PageSet, error) { return c.Pages(src) }})
	}
	return syncs
}
