package serve

import (
	"context"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/sources"
)

// gitService is the index queue of the git sources, fed by push webhooks
// and polls (ingest.GitService) on s.sched: it indexes every git source
// once when it runs, then on each push and poll. Each run takes the
// source's lease, so that one replica runs a source at a time; a run
// skipped because another replica held it is counted by source id; after
// every run the tracked branches (p.Branches) are read again, so that
// questions go to the branch now checked out or fetched.
func (s *Server) gitService(p Parts) (*ingest.GitService, error) {
	ix := p.NewIndexer()
	ix.Log = s.log // serve's logger: one Info line per index run
	opt := ingest.GitServiceOptions{Scheduler: s.sched, Log: s.log, Lease: s.indexLease()}
	opt.OnLeaseSkip = func(name string) {
		if src, ok := p.Config.SourceNamed(name); ok {
			s.metrics.ScheduleSkipped(src.SourceID())
		}
	}
	if p.Branches != nil {
		// A few git rev-parse calls, one per source without configured
		// branches: short enough for OnDone, which must not block.
		opt.Queue.OnDone = func(string, []string, error) { p.Branches.Refresh(context.Background()) }
	}
	return ingest.NewGitService(ix, sources.Sources{Config: p.Config}.Repos(), opt)
}
