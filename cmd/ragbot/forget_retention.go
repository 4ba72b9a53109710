package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// retentionTask is the scheduler task of the feedback retention job.
const retentionTask = "feedback-retention"

// retentionEvery is how often the retention job runs: daily, so a vote
// outlives feedback.retention by at most a day.
const retentionEvery = 24 * time.Hour

// retention deletes the votes older than keep (feedback.retention).
type retention struct {
	votes *weaviate.FeedbackLog
	keep  time.Duration
	now   func() time.Time // the scheduler's clock
	log   *slog.Logger
}

// run deletes the votes cast before now minus keep.
func (r retention) run(ctx context.Context) error {
	cutoff := r.now().Add(-r.keep)
	n, err := r.votes.DeleteBefore(ctx, cutoff, false)
	if err != nil {
		return err
	}
	r.log.Info("feedback retention", "deleted", n, "before", cutoff.UTC().Format(time.RFC3339), "retention", r.keep.String())
	return nil
}

// schedule adds the job to sched: at once when sched starts, then every
// retentionEvery; a failed run is retried with the scheduler's backoff.
func (r retention) schedule(sched *ingest.Scheduler) error {
	return sched.Add(retentionTask, ingest.EverySpec(retentionEvery), time.Time{}, r.run)
}
