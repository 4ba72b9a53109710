package ingest

import "context"

// A PageSync is a page source that SchedulePageSyncs keeps in sync.
type PageSync struct {
	// ID is the source id ("confluence:ops-runbooks"): the scheduler task's
	// name and, with "pages:" before it, the lease's key.
	ID string
	// Spec is when to sync: a cron spec ("0 3 * * *") or "@every <TTL>"
	// (EverySpec).
	Spec string
	// Set makes the source's page set at each run, reading its credentials
	// then, so that a missing token fails the run (recorded and retried),
	// not the schedule.
	Set func() (PageSet, error)
}

// SchedulePageSyncs adds a task per sync to sched, named by its source id,
// at its Spec; the first run comes at the Spec's next time after the last
// successful sync (SourceState.IndexedAt, read from ix.Store now), at once
// when that has passed or the source was never synced. A run is
// ix.IndexPages; a failed one keeps the old chunks, records the error in
// SourceState and is retried with the scheduler's backoff. With lease's
// Leaser set, a run first takes the lease "pages:<source id>"; when
// another replica holds it the run is skipped (that replica syncs the
// source) and onSkip, when not nil, is told the source id. Its errors are
// the store's (reading the states) and sched.Add's (a bad Spec).
func SchedulePageSyncs(ctx context.Context, sched *Scheduler, ix *Indexer, syncs []PageSync, lease Leased, onSkip func(source string)) error {
	log := ix.log()
	for _, ps := range syncs {
		st, _, err := ix.Store.State(ctx, ps.ID, "")
		if err != nil {
			return err
		}
		sync := func(ctx context.Context) error {
			set, err := ps.Set()
			if err != nil {
				return err
			}
			stats, err := ix.IndexPages(ctx, set, false)
			if err == nil {
				log.Info("confluence synced", "source", ps.ID, "summary", stats.String())
			}
			return err
		}
		err = sched.Add(ps.ID, ps.Spec, st.IndexedAt, func(ctx context.Context) error {
			if lease.Leaser == nil {
				return sync(ctx)
			}
			held, err := lease.Run(ctx, "pages:"+ps.ID, sync)
			if held != nil {
				holder, until := held.LeaseHeld()
				log.Info("confluence sync skipped: another replica holds the source's lease", "source", ps.ID, "holder", holder, "until", until)
				if onSkip != nil {
					onSkip(ps.ID)
				}
			}
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
