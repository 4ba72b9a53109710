package forget

import (
	"context"
	"log/slog"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// RetentionTask is the scheduler task of the feedback retention job.
const RetentionTask = "feedback-retention"

// retentionEvery is how often the retention job runs: daily, so a vote
// outlives feedback.retention by at most a day.
const retentionEvery = 24 * time.Hour

// Retention deletes the votes and thread turns older than Keep
// (feedback.retention).
type Retention struct {
	Votes *weaviate.FeedbackLog
	Turns *weaviate.Turns // nil when Teams is off
	Keep  time.Duration
	Now   func() time.Time // the scheduler's clock
	Log   *slog.Logger     // one Info line per run
}

// Run deletes the votes and turns made before Now minus Keep. Its errors
// are the store's.
func (r Retention) Run(ctx context.Context) error {
	cutoff := r.Now().Add(-r.Keep)
	n, err := r.Votes.DeleteBefore(ctx, cutoff, false)
	if err != nil {
		return err
	}
	turns := 0
	if r.Turns != nil {
		if turns, err = r.Turns.DeleteBefore(ctx, cutoff, false); err != nil {
			return err
		}
	}
	r.Log.Info("feedback retention", "deleted", n, "turns_deleted", turns, "before", cutoff.UTC().Format(time.RFC3339), "retention", r.Keep.String())
	return nil
}

// Schedule adds the job to sched as RetentionTask: at once when sched
// starts, then daily (retentionEvery); a failed run is retried with the
// scheduler's backoff. Its error is sched.Add's.
func (r Retention) Schedule(sched *ingest.Scheduler) error {
	return sched.Add(RetentionTask, ingest.EverySpec(retentionEvery), time.Time{}, r.Run)
}
