package ingest_test

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// waitTask blocks until task has run once (successfully or not) and is not
// running, or fails after a minute.
func waitTask(t *testing.T, sched *ingest.Scheduler, task string) ingest.TaskStatus {
	t.Helper()
	for range 6000 {
		st, ok := sched.Status(task)
		if !ok {
			t.Fatalf("no task %s", task)
		}
		if !st.Running && (st.LastErr != nil || !st.LastOK.IsZero()) {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("task %s did not run", task)
	return ingest.TaskStatus{}
}

// TestSchedulePageSyncs: a page source never synced is synced at once when
// the scheduler starts and its chunks are stored; a source whose page set
// cannot be made fails its run with that error, leaving the other alone.
func TestSchedulePageSyncs(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	ix := newIndexer(t, store, emb, t0)
	src := &memPages{pages: map[string]ingest.Page{"A/One": memPage("1", "A/One", "1", "Setup", "Run")}}
	noToken := errors.New(`sources[1]: RAGBOT_CONFLUENCE_TOKEN is not set`)
	syncs := []ingest.PageSync{
		{ID: "confluence:mem", Spec: ingest.EverySpec(24 * time.Hour), Set: func() (ingest.PageSet, error) {
			return ingest.PageSet{ID: "confluence:mem", Pages: src, Settings: "v1"}, nil
		}},
		{ID: "confluence:locked", Spec: "0 3 * * *", Set: func() (ingest.PageSet, error) { return ingest.PageSet{}, noToken }},
	}
	sched := ingest.NewScheduler(ingest.SchedulerOptions{Log: slog.New(slog.DiscardHandler)})
	if err := ingest.SchedulePageSyncs(ctx, sched, ix, syncs, ingest.Leased{}, nil); err != nil {
		t.Fatal(err)
	}
	sched.Start()
	t.Cleanup(func() { _ = sched.Stop(context.Background()) })

	if st := waitTask(t, sched, "confluence:mem"); st.LastErr != nil || st.Spec != "@every 24h0m0s" {
		t.Errorf("confluence:mem: spec %q, last error %v; want a daily sync that ran", st.Spec, st.LastErr)
	}
	if n, err := store.Count(ctx, "confluence:mem"); err != nil || n != 2 {
		t.Errorf("after the first sync: %d chunks (%v), want 2", n, err)
	}
	if st := waitTask(t, sched, "confluence:locked"); !errors.Is(st.LastErr, noToken) {
		t.Errorf("confluence:locked: last error %v, want %v", st.LastErr, noToken)
	}
}
