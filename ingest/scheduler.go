package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/robfig/cron/v3"
)

// A Clock tells the time and makes timers. The Scheduler takes one so that
// tests drive it with a fake clock instead of sleeping.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has elapsed.
	After(d time.Duration) <-chan time.Time
}

type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// SchedulerOptions configure a Scheduler. Zero values take the defaults.
type SchedulerOptions struct {
	Clock Clock        // [the system clock]
	Log   *slog.Logger // [slog.Default()]
	// RetryMin is the wait before retrying a failed run; it doubles with
	// each further failure up to RetryMax [1m, 1h]. A retry never comes later
	// than the task's next regular fire time.
	RetryMin, RetryMax time.Duration
	// OnSkip, when set, is called once for each fire time of a task that
	// passes while its previous run is still going (logged at Info too),
	// so that metrics can count them. It must not block.
	OnSkip func(task string)
}

// Scheduler runs named tasks (one per source: a Confluence re-sync, a git
// poll) at the times of their cron schedules. A task's runs never overlap:
// while one runs, its fire times pass without a second run, and its next
// time is computed when the run ends. A failed run is retried with backoff
// (see SchedulerOptions.RetryMin); what it failed on is the task's business
// (IndexPages keeps the old chunks and records the error in SourceState).
//
// robfig/cron/v3 parses the specs and computes fire times (Schedule.Next);
// the loop is this type's own because cron.Cron reads the system clock and
// could not be tested without sleeping.
//
// Use: NewScheduler, Add each task, Start, and Stop when shutting down. The
// methods are safe for concurrent use.
type Scheduler struct {
	clock              Clock
	log                *slog.Logger
	retryMin, retryMax time.Duration
	onSkip             func(task string)

	mu      sync.Mutex
	tasks   []*task
	started bool
	stopped bool
	wake    chan struct{} // buffered 1: something changed, recompute timers
	quit    chan struct{} // closed by Stop
	loop    sync.WaitGroup
	jobs    sync.WaitGroup
	ctx     context.Context // parent of every run; cancelled when Stop gives up waiting
	cancel  context.CancelFunc
}

// task is one scheduled task and its run history.
type task struct {
	name     string
	spec     string
	schedule cron.Schedule
	run      func(context.Context) error
	next     time.Time // when it fires next (zero while running)
	tick     time.Time // while running: the next fire time, which the run will make skip
	skipped  int       // fire times skipped because a run was still going
	running  bool
	again    bool    // Trigger came while running: run once more right after
	backoff  backoff // consecutive failed runs and the retry they earn (trigger.go)
	lastOK   time.Time
	lastErr  error
}

// TaskStatus is what Status reports about a task.
type TaskStatus struct {
	Spec     string
	Next     time.Time // next fire time; zero while running
	Running  bool
	LastOK   time.Time // end of the last successful run (or the time Add was told)
	LastErr  error     // error of the last run, nil when it succeeded
	Failures int       // consecutive failed runs
	Skipped  int       // fire times that passed while a run was still going, since Add
}

// NewScheduler returns a scheduler with no tasks; Add them, then Start it.
func NewScheduler(opt SchedulerOptions) *Scheduler {
	if opt.Clock == nil {
		opt.Clock = realClock{}
	}
	opt.Log = cmp.Or(opt.Log, slog.Default())
	if opt.RetryMin <= 0 {
		opt.RetryMin = time.Minute
	}
	if opt.RetryMax < opt.RetryMin {
		opt.RetryMax = max(time.Hour, opt.RetryMin)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Scheduler{clock: opt.Clock, log: opt.Log, retryMin: opt.RetryMin, retryMax: opt.RetryMax, onSkip: opt.OnSkip,
		wake: make(chan struct{}, 1), quit: make(chan struct{}), ctx: ctx, cancel: cancel}
}

// EverySpec is the cron spec of a TTL: "@every 24h0m0s".
func EverySpec(ttl time.Duration) string { return "@every " + ttl.String() }

// Add schedules run under name. spec is a standard 5-field cron spec
// ("0 3 * * *", in the clock's local time zone) or a descriptor ("@daily",
// "@every 24h"; see EverySpec). last is when the task last succeeded, e.g.
// SourceState.IndexedAt: the first run comes at the schedule's next time
// after last, at once when that has passed, and at once when last is zero
// (never ran). Errors: an empty or taken name, a bad spec, or a stopped
// scheduler.
func (s *Scheduler) Add(name, spec string, last time.Time, run func(context.Context) error) error {
	sched, err := cron.ParseStandard(spec)
	if err != nil {
		return fmt.Errorf("scheduler: task %q: spec %q: %w", name, spec, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case name == "":
		return errors.New("scheduler: task name must not be empty")
	case s.stopped:
		return fmt.Errorf("scheduler: task %q: scheduler is stopped", name)
	case s.find(name) != nil:
		return fmt.Errorf("scheduler: task %q is already scheduled", name)
	}
	now := s.clock.Now()
	next := now
	if !last.IsZero() {
		if n := sched.Next(last); n.After(now) {
			next = n
		}
	}
	s.tasks = append(s.tasks, &task{name: name, spec: spec, schedule: sched, run: run, next: next, lastOK: last})
	poke(s.wake)
	return nil
}

// Start starts the loop that fires tasks; it returns at once. Runs get a
// context that only Stop cancels.
func (s *Scheduler) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started || s.stopped {
		return
	}
	s.started = true
	s.loop.Add(1)
	go s.run() // exits when Stop closes quit
}

// Trigger runs the task now, outside its schedule (a webhook, an operator).
// When it is running already, it runs once more right after, never twice at
// once. The error names an unknown task.
func (s *Scheduler) Trigger(name string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.find(name)
	if t == nil {
		return fmt.Errorf("scheduler: no task %q", name)
	}
	if t.running {
		t.again = true
	} else {
		t.next = s.clock.Now()
	}
	poke(s.wake)
	return nil
}

// Status returns the state of the named task; ok is false when there is none.
func (s *Scheduler) Status(name string) (st TaskStatus, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.find(name)
	if t == nil {
		return TaskStatus{}, false
	}
	return TaskStatus{Spec: t.spec, Next: t.next, Running: t.running, LastOK: t.lastOK, LastErr: t.lastErr, Failures: t.backoff.failures,
		Skipped: t.skipped}, true
}

// Stop stops firing tasks and waits for the running ones to return. When
// ctx ends first, it cancels their context, waits for them to return, and
// returns ctx's error. Calling Stop again returns at once.
func (s *Scheduler) Stop(ctx context.Context) error {
	s.mu.Lock()
	if s.stopped {
		s.mu.Unlock()
		return nil
	}
	s.stopped = true
	close(s.quit)
	s.mu.Unlock()
	s.loop.Wait()
	done := make(chan struct{})
	go func() { // exits when the last run returns
		s.jobs.Wait()
		close(done)
	}()
	defer s.cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		s.cancel()
		<-done
		return fmt.Errorf("scheduler: stop: runs cancelled: %w", context.Cause(ctx))
	}
}

func (s *Scheduler) find(name string) *task {
	for _, t := range s.tasks {
		if t.name == name {
			return t
		}
	}
	return nil
}

// poke wakes a loop (the Scheduler's, the Queue's) to look again at its
// tasks: it sends on wake (buffered 1) unless a wake-up is pending already.
func poke(wake chan struct{}) {
	select {
	case wake <- struct{}{}:
	default:
	}
}

// run is the loop: start the due tasks, note the fire times of running
// ones that pass, then sleep until the earliest next fire time or until
// poked.
func (s *Scheduler) run() {
	defer s.loop.Done()
	for {
		s.mu.Lock()
		now := s.clock.Now()
		var earliest time.Time
		for _, t := range s.tasks {
			at := t.next
			switch {
			case t.running:
				s.skipTicks(t, now)
				at = t.tick
			case !t.next.After(now):
				t.running, t.next, t.tick = true, time.Time{}, t.schedule.Next(now)
				s.jobs.Add(1)
				go s.runTask(t) // exits when the task's run returns
				at = t.tick
			}
			if !at.IsZero() && (earliest.IsZero() || at.Before(earliest)) {
				earliest = at
			}
		}
		s.mu.Unlock()
		var timer <-chan time.Time
		if !earliest.IsZero() {
			timer = s.clock.After(earliest.Sub(now))
		}
		select {
		case <-timer:
		case <-s.wake:
		case <-s.quit:
			return
		}
	}
}

// skipTicks counts, logs and reports each fire time of the running task t
// that has passed by now: the scheduler never starts a second run at once,
// so that tick is lost (a Trigger is not: it sets again). s.mu is held.
func (s *Scheduler) skipTicks(t *task, now time.Time) {
	for !t.tick.IsZero() && !t.tick.After(now) {
		t.skipped++
		s.log.Info("tick skipped: previous run still going", "task", t.name, "tick", t.tick, "skipped", t.skipped)
		if s.onSkip != nil {
			s.onSkip(t.name)
		}
		t.tick = t.schedule.Next(t.tick)
	}
}

// runTask runs one task once and schedules its next run.
func (s *Scheduler) runTask(t *task) {
	defer s.jobs.Done()
	log := s.log.With("task", t.name)
	log.Debug("task started")
	err := recovered(fmt.Sprintf("task %q", t.name), func() error { return t.run(s.ctx) })
	end := s.clock.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.skipTicks(t, end)
	t.running, t.lastErr, t.tick = false, err, time.Time{}
	next := t.schedule.Next(end)
	if err == nil {
		t.backoff.reset()
		t.lastOK = end
		log.Debug("task done", "next", next)
	} else if s.stopped {
		log.Info("task cancelled by stop", "err", err)
	} else {
		t.backoff.fail(end, s.retryMin, s.retryMax)
		if t.backoff.until.Before(next) {
			next = t.backoff.until
		}
		log.Warn("task failed, will retry", "err", err, "failures", t.backoff.failures, "retry_at", next)
	}
	if t.again {
		t.again, next = false, end
	}
	t.next = next
	poke(s.wake)
}

// recovered runs fn, turning a panic into an error naming what panicked,
// so that one bad run (a task, an index run) cannot take the process down.
func recovered(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s panicked: %v", what, r)
		}
	}()
	return fn()
}
