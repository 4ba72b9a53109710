package ingest

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"
)

// RetryLater is the error of an IndexFunc whose run cannot happen now and
// must happen at At: the Queue keeps its branches pending until then (a
// trigger meanwhile does not start it earlier) without counting a failure.
// GitService returns it for a push while another replica holds the source's
// lease.
type RetryLater struct {
	At     time.Time
	Reason string
}

func (e *RetryLater) Error() string {
	return "run deferred until " + e.At.UTC().Format(time.RFC3339) + ": " + e.Reason
}

// IndexFunc runs one index run of a source for the given branches (nil:
// every tracked branch). Queue never calls it twice at once for a source.
type IndexFunc func(ctx context.Context, source string, branches []string) error

// QueueOptions configure a Queue. Zero values take the defaults.
type QueueOptions struct {
	Clock Clock        // [the system clock]
	Log   *slog.Logger // [slog.Default()]
	// Settle is how long a source waits after the first trigger of a burst
	// before its run starts, so that the burst (a series of pushes, a
	// webhook and a poll together) becomes one run [500ms; negative for
	// none]. It adds to the time from a push to its chunks being searchable.
	Settle time.Duration
	// BackoffMin is the wait before a source runs again after a failed run;
	// it doubles with each further failure up to BackoffMax [30s, 30m].
	// Triggers during the wait are kept and run when it ends.
	BackoffMin, BackoffMax time.Duration
	// OnDone, when set, is called after each run with its outcome (tests,
	// metrics). It must not block.
	OnDone func(source string, branches []string, err error)
}

// Queue starts index runs on triggers (webhooks, polls, operators): at most
// one run per source at a time, whoever triggered it; triggers that arrive
// while a run waits to start or is under way coalesce into one next run;
// a source whose runs fail backs off. Create it with NewQueue, call Run in
// a goroutine, and Trigger from anywhere: the methods are safe for
// concurrent use.
type Queue struct {
	index IndexFunc
	opt   QueueOptions

	mu      sync.Mutex
	sources map[string]*queued
	wake    chan struct{} // buffered 1: something changed
}

// queued is the state of one source in the queue.
type queued struct {
	pending map[string]bool // branches to run ("" = all tracked)
	reasons []string        // why, for the log
	since   time.Time       // first trigger of the pending burst
	running bool
	backoff backoff
	runs    int
	lastErr error
}

// NewQueue returns a queue that runs index for each source it is triggered for.
func NewQueue(index IndexFunc, opt QueueOptions) *Queue {
	if opt.Clock == nil {
		opt.Clock = realClock{}
	}
	opt.Log = cmp.Or(opt.Log, slog.Default())
	switch {
	case opt.Settle == 0:
		opt.Settle = 500 * time.Millisecond
	case opt.Settle < 0:
		opt.Settle = 0
	}
	if opt.BackoffMin <= 0 {
		opt.BackoffMin = 30 * time.Second
	}
	if opt.BackoffMax < opt.BackoffMin {
		opt.BackoffMax = max(30*time.Minute, opt.BackoffMin)
	}
	return &Queue{index: index, opt: opt, sources: map[string]*queued{}, wake: make(chan struct{}, 1)}
}

// Trigger asks for a run of branch of source ("" for every tracked branch).
// It returns at once; the run starts when the source's burst has settled,
// its previous run has ended and its backoff has passed. reason is logged.
func (q *Queue) Trigger(source, branch, reason string) {
	q.mu.Lock()
	s := q.sources[source]
	if s == nil {
		s = &queued{}
		q.sources[source] = s
	}
	if len(s.pending) == 0 {
		s.pending = map[string]bool{}
		s.since = q.opt.Clock.Now()
	}
	s.pending[branch] = true
	if len(s.reasons) < 5 {
		s.reasons = append(s.reasons, reason)
	}
	q.mu.Unlock()
	poke(q.wake)
}

// Push is Trigger for a push webhook: a push brings new commits, which may
// well fix what the source's last run failed on (an empty repository, a
// missing branch, a file that did not parse), so it also ends the source's
// backoff and its run starts once the burst has settled.
func (q *Queue) Push(source, branch, reason string) {
	q.mu.Lock()
	if s := q.sources[source]; s != nil && s.backoff.failures > 0 {
		q.opt.Log.Info("push ends the backoff", "source", source, "branch", branch, "failures", s.backoff.failures)
		s.backoff.until = time.Time{}
	}
	q.mu.Unlock()
	q.Trigger(source, branch, reason)
}

// QueueStatus is what Status reports about a source.
type QueueStatus struct {
	Running     bool
	Pending     []string  // branches waiting for a run ("" = all tracked)
	Runs        int       // runs finished
	Failures    int       // consecutive failed runs
	NextAttempt time.Time // end of the backoff; zero when not backing off
	LastErr     error
}

// Status returns the queue's state of source.
func (q *Queue) Status(source string) QueueStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	s := q.sources[source]
	if s == nil {
		return QueueStatus{}
	}
	st := QueueStatus{Running: s.running, Runs: s.runs, Failures: s.backoff.failures, LastErr: s.lastErr}
	if s.backoff.failures > 0 {
		st.NextAttempt = s.backoff.until
	}
	st.Pending = slices.Sorted(maps.Keys(s.pending))
	return st
}

// Depth counts the sources with a run waiting (triggered, settling or
// backing off) and those with a run under way, for the queue-depth metric.
func (q *Queue) Depth() (pending, running int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, s := range q.sources {
		if len(s.pending) > 0 {
			pending++
		}
		if s.running {
			running++
		}
	}
	return pending, running
}

// Run starts the runs that are due and sleeps until the next one is, until
// ctx ends; then it waits for the runs under way (their ctx is ctx, so they
// stop early and record their error) and returns nil. Pending triggers are
// dropped: the next start indexes every source anyway.
func (q *Queue) Run(ctx context.Context) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		now := q.opt.Clock.Now()
		next := q.startDue(ctx, now, &wg)
		var timer <-chan time.Time
		if !next.IsZero() {
			timer = q.opt.Clock.After(next.Sub(now))
		}
		select {
		case <-ctx.Done():
			return nil
		case <-q.wake:
		case <-timer:
		}
	}
}

// startDue starts every source whose run is due at now, and returns the
// earliest time another will be (zero for none).
func (q *Queue) startDue(ctx context.Context, now time.Time, wg *sync.WaitGroup) time.Time {
	q.mu.Lock()
	defer q.mu.Unlock()
	var next time.Time
	for name, s := range q.sources {
		if s.running || len(s.pending) == 0 {
			continue
		}
		due := s.since.Add(q.opt.Settle)
		if s.backoff.until.After(due) {
			due = s.backoff.until
		}
		if due.After(now) {
			if next.IsZero() || due.Before(next) {
				next = due
			}
			continue
		}
		branches, reasons := s.take()
		s.running = true
		wg.Add(1)
		go func() { // exits when the index run returns
			defer wg.Done()
			q.runOne(ctx, name, branches, reasons)
		}()
	}
	return next
}

// take empties the pending set: nil branches when any trigger asked for all.
func (s *queued) take() (branches, reasons []string) {
	if !s.pending[""] {
		branches = slices.Sorted(maps.Keys(s.pending))
	}
	reasons = slices.Clone(s.reasons)
	s.pending, s.reasons = nil, nil
	return branches, reasons
}

// requeue adds branches (nil: all) to the pending set; an empty set starts
// now, with reason as its trigger.
func (s *queued) requeue(branches []string, now time.Time, reason string) {
	if len(s.pending) == 0 {
		s.pending, s.since, s.reasons = map[string]bool{}, now, []string{reason}
	}
	if branches == nil {
		s.pending[""] = true
	}
	for _, b := range branches {
		s.pending[b] = true
	}
}

func (q *Queue) runOne(ctx context.Context, source string, branches, reasons []string) {
	log := q.opt.Log.With("source", source)
	log.Debug("index run starts", "branches", branches, "triggers", reasons)
	err := recovered("index run of "+source, func() error { return q.index(ctx, source, branches) })
	now := q.opt.Clock.Now()
	later, deferred := errors.AsType[*RetryLater](err)
	q.mu.Lock()
	s := q.sources[source]
	s.running, s.lastErr = false, err
	s.runs++
	switch {
	case err == nil:
		s.backoff.reset()
	case deferred && ctx.Err() == nil:
		log.Info("index run deferred", "reason", later.Reason, "retry_at", later.At)
		s.requeue(branches, now, "deferred")
		s.backoff.until = later.At // not a failure: failures stay as they are
	case ctx.Err() != nil: // shutting down: not the source's fault
	default:
		s.backoff.fail(now, q.opt.BackoffMin, q.opt.BackoffMax)
		log.Error("index run failed", "err", err, "failures", s.backoff.failures, "retry_at", s.backoff.until)
		if len(s.pending) == 0 { // retry the failed branches after the backoff
			s.requeue(branches, now, "retry")
		}
	}
	q.mu.Unlock()
	if q.opt.OnDone != nil {
		q.opt.OnDone(source, branches, err)
	}
	poke(q.wake)
}

// backoff is the wait of one source after consecutive failed runs (as
// zoekt's backoff.go): lo after the first, doubling, at most hi. It takes
// the time as a parameter so that tests need no clock.
type backoff struct {
	failures int
	until    time.Time
}

func (b *backoff) fail(now time.Time, lo, hi time.Duration) {
	b.failures++
	d := lo << min(b.failures-1, 30)
	if d > hi || d <= 0 {
		d = hi
	}
	b.until = now.Add(d)
}

func (b *backoff) reset() { *b = backoff{} }
