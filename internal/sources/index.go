package sources

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
)

// Index indexes the configured sources named in want (all when want is
// empty) with ix, in the config's order, and prints one summary line per
// source, or per branch of a git source, to out: a git source is fetched
// when remote, then each branch indexed from its diff when possible
// (ingest.Indexer.IndexRepo); a confluence or html source syncs its
// changed pages (IndexPages; the Confluence client logs to c.Log); an
// openapi file and a markdown folder are read again (IndexSpec, IndexDir). full re-chunks what is
// unchanged. A failing source does not stop the others: the errors of all
// are joined. It stops after the source under way when ctx ends.
func (c Sources) Index(ctx context.Context, ix *ingest.Indexer, want map[string]bool, full bool, out io.Writer) error {
	var errs []error
	for _, src := range c.Config.Sources {
		if len(want) > 0 && !want[src.Name] {
			continue
		}
		if isPageSource(src) {
			if st, err := c.indexPages(ctx, ix, src, full); err != nil {
				errs = append(errs, err)
			} else {
				fmt.Fprintf(out, "%s: %s\n", src.Name, st)
			}
			continue
		}
		stats, err := c.index(ctx, ix, src, full)
		if err != nil {
			errs = append(errs, err)
		}
		for _, st := range stats {
			fmt.Fprintln(out, st.Summary(src.Name))
		}
		if ctx.Err() != nil {
			break
		}
	}
	return errors.Join(errs...)
}

// index runs one git, openapi or markdown source: the stats of each
// branch of a git source (those indexed when it fails), or of the source.
func (c Sources) index(ctx context.Context, ix *ingest.Indexer, src config.Source, full bool) ([]ingest.Stats, error) {
	var st ingest.Stats
	var err error
	switch src.Kind {
	case config.KindGit: // fetch a remote one, then each branch, incrementally when possible
		return ix.IndexRepo(ctx, c.Repo(src), nil, full)
	case config.KindOpenAPI:
		st, err = ix.IndexSpec(ctx, ingest.SpecSource{ID: src.SourceID(), File: c.Config.Resolve(src.Path), ACL: src.ACL}, full)
	case config.KindMarkdown:
		st, err = ix.IndexDir(ctx, c.Dir(src))
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return []ingest.Stats{st}, nil
}

// indexPages syncs one page source (see ingest.Indexer.IndexPages).
func (c Sources) indexPages(ctx context.Context, ix *ingest.Indexer, src config.Source, full bool) (ingest.PageStats, error) {
	set, err := c.Pages(src)
	if err != nil {
		return ingest.PageStats{Source: src.SourceID()}, err
	}
	return ix.IndexPages(ctx, set, full)
}
