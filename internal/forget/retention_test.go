package forget

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// stepClock is an ingest.Clock that moves only when the test calls
// advance. After fires once its deadline has passed, and at once when the
// clock moved since the previous After (the scheduler's loop may have read
// Now before the move; it then reads it again).
type stepClock struct {
	mu    sync.Mutex
	now   time.Time
	moved bool
	waits []stepWait
}

type stepWait struct {
	at time.Time
	ch chan time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	if d <= 0 || c.moved {
		ch <- c.now
	} else {
		c.waits = append(c.waits, stepWait{at: c.now.Add(d), ch: ch})
	}
	c.moved = false
	return ch
}

func (c *stepClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.moved = true
	kept := c.waits[:0]
	for _, w := range c.waits {
		if w.at.After(c.now) {
			kept = append(kept, w)
			continue
		}
		w.ch <- c.now
	}
	c.waits = kept
}

// waitRun blocks until the task's last successful run ended at end (the
// fake clock does not move during a run), or fails after a minute.
func waitRun(t *testing.T, sched *ingest.Scheduler, end time.Time) ingest.TaskStatus {
	t.Helper()
	for range 6000 {
		st, ok := sched.Status(RetentionTask)
		if !ok {
			t.Fatal("no retention task")
		}
		if st.LastErr != nil {
			t.Fatalf("retention run failed: %v", st.LastErr)
		}
		if st.LastOK.Equal(end) && !st.Running {
			return st
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("the retention job did not run at %s", end)
	return ingest.TaskStatus{}
}

// TestMain gives the tests a real Weaviate (weaviatetest).
func TestMain(m *testing.M) { weaviatetest.Main(m) }

// TestFeedbackRetentionJob runs the retention job on the scheduler with an
// injected clock against a real Weaviate: at start it deletes the votes
// and thread turns older than feedback.retention and keeps the newer ones,
// and a day later it runs again and deletes those that have aged past it
// meanwhile.
func TestFeedbackRetentionJob(t *testing.T) {
	store := weaviatetest.NewStore(t, embed.OfflineName)
	votes, err := store.OpenFeedback(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = votes.Drop(context.Background()) })
	turns, err := store.OpenTurns(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = turns.Drop(context.Background()) })
	t0 := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	for i, age := range []time.Duration{400 * day, 181 * day, 180*day - time.Hour, 30 * day, time.Hour} {
		ts := "1." + string(rune('a'+i))
		f := retrieval.Feedback{Question: "where is " + ts, Vote: retrieval.VoteUp, User: "U1", Channel: "C1", MessageTS: ts, Time: t0.Add(-age)}
		if err := votes.Put(t.Context(), f); err != nil {
			t.Fatal(err)
		}
		turn := retrieval.Turn{Thread: "19:c@thread.tacv2;messageid=1", MessageID: ts, Users: []string{"29:u"}, Asked: f.Question, Time: f.Time}
		if err := turns.Put(t.Context(), turn); err != nil {
			t.Fatal(err)
		}
	}
	// voteCount counts the votes, and checks the turns are as many.
	voteCount := func() int {
		t.Helper()
		n, err := votes.Count(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if m, err := turns.Count(t.Context()); err != nil || m != n {
			t.Errorf("%d turns (%v), want as many as votes (%d)", m, err, n)
		}
		return n
	}
	if got := voteCount(); got != 5 {
		t.Fatalf("stored %d votes, want 5", got)
	}
	clock := &stepClock{now: t0}
	sched := ingest.NewScheduler(ingest.SchedulerOptions{Clock: clock, Log: slog.New(slog.DiscardHandler)})
	job := Retention{Votes: votes, Turns: turns, Keep: 180 * day, Now: clock.Now, Log: slog.New(slog.DiscardHandler)}
	if err := job.Schedule(sched); err != nil {
		t.Fatal(err)
	}
	sched.Start()
	t.Cleanup(func() { _ = sched.Stop(t.Context()) })

	st := waitRun(t, sched, t0)
	if got := voteCount(); got != 3 {
		t.Errorf("after the run at start: %d votes, want 3 (those under 180 days old)", got)
	}
	if want := t0.Add(day); !st.Next.Equal(want) || st.Spec != "@every 24h0m0s" {
		t.Errorf("next run at %s (spec %q), want %s, daily", st.Next, st.Spec, want)
	}
	clock.advance(day)
	waitRun(t, sched, t0.Add(day))
	if got := voteCount(); got != 2 {
		t.Errorf("after the run a day later: %d votes, want 2 (the one 180 days less an hour old has aged out)", got)
	}
}
