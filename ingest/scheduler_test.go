package ingest_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
)

// runs is a job that records each run on a channel.
type runs struct {
	ch  chan time.Time
	clk *fakeClock
	err func(n int) error // the error of run n (1-based); nil means success
	n   atomic.Int32
}

func newRuns(clk *fakeClock) *runs { return &runs{ch: make(chan time.Time, 10), clk: clk} }

func (r *runs) job(ctx context.Context) error {
	n := int(r.n.Add(1))
	r.ch <- r.clk.Now()
	if r.err != nil {
		return r.err(n)
	}
	return nil
}

// next waits (real time, up to 5 s) for the next run and returns its clock time.
func (r *runs) next(t *testing.T) time.Time {
	t.Helper()
	select {
	case at := <-r.ch:
		return at
	case <-time.After(5 * time.Second):
		t.Fatal("the job did not run")
		return time.Time{}
	}
}

// none checks that no run has happened.
func (r *runs) none(t *testing.T) {
	t.Helper()
	select {
	case at := <-r.ch:
		t.Fatalf("the job ran at %v, want no run yet", at)
	default:
	}
}

func newScheduler(t *testing.T, clk *fakeClock) *ingest.Scheduler {
	s := ingest.NewScheduler(ingest.SchedulerOptions{Clock: clk, Log: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError}))})
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	return s
}

var schedT0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// TestSchedulerTTL: a source synced at t0 with a TTL of 24h re-syncs at
// t0+24h on the fake clock, not a second before, and then every 24h after
// each run.
func TestSchedulerTTL(t *testing.T) {
	clk := newFakeClock(schedT0.Add(time.Hour)) // serve starts an hour after the last sync
	r := newRuns(clk)
	s := newScheduler(t, clk)
	if err := s.Add("confluence:ops", ingest.EverySpec(24*time.Hour), schedT0, r.job); err != nil {
		t.Fatal(err)
	}
	mark := clk.mark()
	s.Start()
	due := schedT0.Add(24 * time.Hour)
	clk.waitArmed(t, mark, due)
	clk.Advance(due.Sub(clk.Now()) - time.Second)
	r.none(t)
	mark = clk.mark()
	clk.Advance(time.Second)
	if at := r.next(t); !at.Equal(due) {
		t.Errorf("ran at %v, want %v", at, due)
	}
	clk.waitArmed(t, mark, due.Add(24*time.Hour))
	if st, _ := s.Status("confluence:ops"); !st.LastOK.Equal(due) || !st.Next.Equal(due.Add(24*time.Hour)) || st.Failures != 0 {
		t.Errorf("status %+v, want last ok %v, next %v", st, due, due.Add(24*time.Hour))
	}
	clk.Advance(24 * time.Hour)
	if at := r.next(t); !at.Equal(due.Add(24 * time.Hour)) {
		t.Errorf("second run at %v, want %v", at, due.Add(24*time.Hour))
	}
}

// TestSchedulerOverdueAndNeverRun: a source whose TTL passed while serve was
// down, and one never synced, both run at Start.
func TestSchedulerOverdueAndNeverRun(t *testing.T) {
	clk := newFakeClock(schedT0)
	overdue, never := newRuns(clk), newRuns(clk)
	s := newScheduler(t, clk)
	if err := s.Add("overdue", "@every 1h", schedT0.Add(-3*time.Hour), overdue.job); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("never", "0 3 * * *", time.Time{}, never.job); err != nil {
		t.Fatal(err)
	}
	s.Start()
	if at := overdue.next(t); !at.Equal(schedT0) {
		t.Errorf("overdue ran at %v, want at start %v", at, schedT0)
	}
	if at := never.next(t); !at.Equal(schedT0) {
		t.Errorf("never-run ran at %v, want at start %v", at, schedT0)
	}
	// Next times: an hour after the run, and the cron spec's 03:00 the next day.
	// A run's end sets its next time, then wakes the loop to set its timer.
	for name, want := range map[string]time.Time{"overdue": schedT0.Add(time.Hour), "never": time.Date(2026, 3, 2, 3, 0, 0, 0, time.UTC)} {
		clk.waitFor(t, name+"'s next run at "+want.String(), func() bool {
			st, _ := s.Status(name)
			return st.Next.Equal(want)
		})
	}
}

// TestSchedulerRunsNeverOverlap holds a run open while its ticks pass and
// triggers arrive: there is never a second run at once, and the triggers
// coalesce into one run right after.
func TestSchedulerRunsNeverOverlap(t *testing.T) {
	clk := newFakeClock(schedT0)
	release := make(chan struct{})
	var running, most, total atomic.Int32
	started := make(chan struct{}, 10)
	job := func(ctx context.Context) error {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		total.Add(1)
		started <- struct{}{}
		<-release
		return nil
	}
	s := newScheduler(t, clk)
	if err := s.Add("slow", "@every 1m", time.Time{}, job); err != nil {
		t.Fatal(err)
	}
	s.Start()
	<-started
	for range 5 {
		clk.Advance(time.Minute) // ticks while the run is open
	}
	for range 3 {
		if err := s.Trigger("slow"); err != nil {
			t.Fatal(err)
		}
	}
	if st, _ := s.Status("slow"); !st.Running {
		t.Errorf("status %+v, want running", st)
	}
	release <- struct{}{} // the first run ends; the triggers make one more
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("no run after the triggers")
	}
	release <- struct{}{}
	close(release)
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if most.Load() != 1 || total.Load() != 2 {
		t.Errorf("at most %d runs at once and %d in all, want 1 and 2", most.Load(), total.Load())
	}
}

// TestSchedulerRetriesFailure: a failed run is retried after RetryMin
// (1m by default), doubling, never later than the next regular time; a
// success returns to the TTL.
func TestSchedulerRetriesFailure(t *testing.T) {
	clk := newFakeClock(schedT0)
	r := newRuns(clk)
	r.err = func(n int) error {
		if n <= 2 {
			return errors.New("confluence: list pages of space OPS: status 503")
		}
		return nil
	}
	s := newScheduler(t, clk)
	if err := s.Add("confluence:ops", ingest.EverySpec(24*time.Hour), time.Time{}, r.job); err != nil {
		t.Fatal(err)
	}
	mark := clk.mark()
	s.Start()
	r.next(t)
	clk.waitArmed(t, mark, schedT0.Add(time.Minute))
	st, _ := s.Status("confluence:ops")
	if st.Failures != 1 || st.LastErr == nil || !strings.Contains(st.LastErr.Error(), "503") || !st.LastOK.IsZero() {
		t.Errorf("status after a failure %+v", st)
	}
	mark = clk.mark()
	clk.Advance(time.Minute)
	r.next(t)
	clk.waitArmed(t, mark, schedT0.Add(3*time.Minute)) // second failure: 2m later
	mark = clk.mark()
	clk.Advance(2 * time.Minute)
	r.next(t)
	clk.waitArmed(t, mark, schedT0.Add(3*time.Minute+24*time.Hour))
	if st, _ := s.Status("confluence:ops"); st.Failures != 0 || st.LastErr != nil {
		t.Errorf("status after the retry succeeded %+v", st)
	}
}

// TestSchedulerStop waits for a running job, and cancels it when the stop
// deadline passes first.
func TestSchedulerStop(t *testing.T) {
	clk := newFakeClock(schedT0)
	started := make(chan struct{})
	s := ingest.NewScheduler(ingest.SchedulerOptions{Clock: clk, Log: slog.New(slog.DiscardHandler)})
	if err := s.Add("stuck", "@every 1h", time.Time{}, func(ctx context.Context) error {
		close(started)
		<-ctx.Done()
		return ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	s.Start()
	<-started
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Stop(ctx); err == nil || !strings.Contains(err.Error(), "runs cancelled") {
		t.Errorf("Stop = %v, want the runs cancelled", err)
	}
	if err := s.Add("late", "@every 1h", time.Time{}, func(context.Context) error { return nil }); err == nil {
		t.Error("Add after Stop succeeded")
	}
}

func TestSchedulerAddErrors(t *testing.T) {
	s := newScheduler(t, newFakeClock(schedT0))
	noop := func(context.Context) error { return nil }
	if err := s.Add("a", "@every 1h", time.Time{}, noop); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, spec, want string }{
		{"a", "@every 1h", `scheduler: task "a" is already scheduled`},
		{"b", "every day", `scheduler: task "b": spec "every day": expected exactly 5 fields, found 2: [every day]`},
		{"", "@daily", `scheduler: task name must not be empty`},
	}
	for _, tt := range tests {
		if err := s.Add(tt.name, tt.spec, time.Time{}, noop); err == nil || err.Error() != tt.want {
			t.Errorf("Add(%q, %q) = %v, want %s", tt.name, tt.spec, err, tt.want)
		}
	}
}

// TestSchedulerLogsSkippedTicks holds a run open while three of its fire
// times pass: each skipped tick is logged with the task's name and counted,
// in Status and through OnSkip.
func TestSchedulerLogsSkippedTicks(t *testing.T) {
	clk := newFakeClock(schedT0)
	release := make(chan struct{})
	started := make(chan struct{}, 1)
	var logs syncBuffer
	var onSkip atomic.Int32
	s := ingest.NewScheduler(ingest.SchedulerOptions{Clock: clk, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		OnSkip: func(task string) {
			if task == "confluence:ops" {
				onSkip.Add(1)
			}
		}})
	t.Cleanup(func() { _ = s.Stop(context.Background()) })
	err := s.Add("confluence:ops", "@every 1m", time.Time{}, func(context.Context) error {
		started <- struct{}{}
		<-release
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mark := clk.mark()
	s.Start()
	<-started
	for i := 1; i <= 3; i++ {
		clk.waitArmed(t, mark, schedT0.Add(time.Duration(i)*time.Minute))
		mark = clk.mark()
		clk.Advance(time.Minute)
	}
	clk.waitArmed(t, mark, schedT0.Add(4*time.Minute))
	close(release)
	if st, _ := s.Status("confluence:ops"); st.Skipped != 3 {
		t.Errorf("Status().Skipped = %d, want 3", st.Skipped)
	}
	if n := onSkip.Load(); n != 3 {
		t.Errorf("OnSkip called %d times, want 3", n)
	}
	if n := strings.Count(logs.String(), "task=confluence:ops"); n < 3 || !strings.Contains(logs.String(), "previous run still going") {
		t.Errorf("log does not name the skipped ticks of confluence:ops:\n%s", logs.String())
	}
}
