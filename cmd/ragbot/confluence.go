package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/confluence"
	"github.com/ragbot/ragbot/ingest"
)

// Wiring of the page sources (confluence spaces, HTML export folders):
// `ragbot index` calls indexPages. `ragbot serve` shares one scheduler
// between the Confluence TTLs and the git polls:
//
//	sched := ingest.NewScheduler(ingest.SchedulerOptions{Log: s.log})
//	err := schedulePageSyncs(ctx, sched, newIndexer(s.app), s.app.cfg, s.indexLease(), onSkip) // one task per confluence source
//	git, err := newGitIndexing(s.app, sched, branches, s.log, s.indexLease(), onSkip)
//	sched.Start()                 // tasks may be added before or after; a shared one the git service leaves alone
//	defer sched.Stop(shutdownCtx) // waits for running syncs, cancels them at the deadline
//
// Answers mark doc snippets past their source's TTL with the
// ingest.StaleDocs guard of the pipeline (pipeline.go).

// isPageSource reports a source indexed with ingest.IndexPages.
func isPageSource(src config.Source) bool {
	return src.Kind == config.KindConfluence || src.Kind == config.KindHTML
}

// pageSet builds the ingest.PageSet of a confluence or html source. For
// confluence it reads the credentials now, so a missing token fails the
// source (naming the variable), not the whole config.
func pageSet(cfg *config.Config, src config.Source, log *slog.Logger) (ingest.PageSet, error) {
	if log == nil {
		log = slog.Default()
	}
	switch src.Kind {
	case config.KindConfluence:
		sec, err := cfg.ConfluenceSecrets(src.Name)
		if err != nil {
			return ingest.PageSet{}, err
		}
		c, err := confluence.NewClient(confluence.Options{
			BaseURL: src.URL, Flavour: src.Flavour, Email: sec.Email, Token: sec.Token,
			Log: log.With("source", src.SourceID()),
		})
		if err != nil {
			return ingest.PageSet{}, fmt.Errorf("%s: %w", src.Name, err)
		}
		scope := confluence.Scope{Spaces: src.Spaces, Label: src.Label, CQL: src.CQL}
		return ingest.PageSet{ID: src.SourceID(), Pages: confluence.NewSource(c, scope), Settings: confluence.Settings(c), ACL: src.ACL}, nil
	case config.KindHTML:
		es := &confluence.ExportSource{Dir: cfg.Resolve(src.Path), Exclude: src.Exclude}
		return ingest.PageSet{ID: src.SourceID(), Pages: es, Settings: es.Settings(), ACL: src.ACL}, nil
	}
	return ingest.PageSet{}, fmt.Errorf("%s: a %s source has no pages", src.Name, src.Kind)
}

// indexPages syncs one page source (see ingest.Indexer.IndexPages).
func indexPages(ctx context.Context, ix *ingest.Indexer, cfg *config.Config, src config.Source, full bool) (ingest.PageStats, error) {
	set, err := pageSet(cfg, src, ix.Log)
	if err != nil {
		return ingest.PageStats{Source: src.SourceID()}, err
	}
	return ix.IndexPages(ctx, set, full)
}

// schedulePageSyncs adds a re-sync task per confluence source to sched
// (ingest.SchedulePageSyncs): at its cron schedule, else every TTL; its
// page set, with the credentials, is made at each run.
func schedulePageSyncs(ctx context.Context, sched *ingest.Scheduler, ix *ingest.Indexer, cfg *config.Config, lease ingest.Leased, onSkip func(source string)) error {
	var syncs []ingest.PageSync
	for _, src := range cfg.Sources {
		if src.Kind != config.KindConfluence {
			continue
		}
		spec := src.Schedule
		if spec == "" {
			spec = ingest.EverySpec(src.TTLDuration)
		}
		syncs = append(syncs, ingest.PageSync{ID: src.SourceID(), Spec: spec,
			Set: func() (ingest.PageSet, error) { return pageSet(cfg, src, ix.Log) }})
	}
	return ingest.SchedulePageSyncs(ctx, sched, ix, syncs, lease, onSkip)
}

// docTTLs maps the source id of each confluence source to its TTL.
func docTTLs(cfg *config.Config) map[string]time.Duration {
	out := map[string]time.Duration{}
	for _, src := range cfg.Sources {
		if src.Kind == config.KindConfluence {
			out[src.SourceID()] = src.TTLDuration
		}
	}
	return out
}
