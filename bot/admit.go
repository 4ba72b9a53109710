package bot

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// Admission bounds the searches that run at once. Beyond Max, a question
// waits its turn in a first-in first-out queue of at most Queue entries.
//
// Admission is by deadline: once a search's service time is known (an
// exponentially weighted average of the searches so far), a question whose
// context has a deadline (the answer timeout) is admitted while its
// expected wait (the questions ahead of it, Max at a time, times the
// service time) plus one search fits before that deadline, and waits until
// no search could finish in time any more; only then is it refused with a
// *BusyError (RejectDeadline), instead of joining a pile of searches that
// all run out of their answer timeout together. Before the first search
// has finished, or for a context without a deadline, the fixed bound
// applies: at most Wait in the queue. A full queue refuses at once either
// way. It is safe for concurrent use; Wrap shares one pool between several
// Answerers (mentions, /where-is, Teams).
type Admission struct {
	cfg AdmissionConfig

	mu      sync.Mutex
	running int           // searches holding a slot
	queue   []*waiter     // waiting, oldest first
	service time.Duration // EWMA of a search's duration; 0 before the first
}

// serviceWeight is the weight of the newest search in the service time
// average: about the last ten searches count.
const serviceWeight = 0.2

// AdmissionConfig sizes an Admission.
type AdmissionConfig struct {
	// Max is the number of searches run at once, at least 1
	// (config.DefaultMaxConcurrentAnswers).
	Max int
	// Queue is the number of questions that may wait for a slot, at least 0
	// (config.DefaultAnswerQueueLength).
	Queue int
	// Wait bounds a question's time in the queue, positive
	// (config.DefaultAnswerQueueWait). The wait counts within the
	// question's own context, so a deadline of that context that comes
	// first ends the wait with the context's error instead.
	Wait time.Duration
	// OnReject, when set, is called for each refused question with the
	// reason (RejectQueueFull, RejectQueueWait or RejectDeadline). It must
	// not block.
	OnReject func(reason string)
	// Now is the clock of the service times and deadlines [time.Now].
	Now func() time.Time

	// after starts the wait timer; tests replace it to end waits on cue.
	after func(time.Duration) (<-chan time.Time, func() bool)
}

// Reasons of a BusyError, fit for a metric label.
const (
	RejectQueueFull = "queue_full" // Queue questions were already waiting
	RejectQueueWait = "queue_wait" // Wait passed before a slot freed
	RejectDeadline  = "deadline"   // the expected wait and a search would not fit before the answer deadline
)

// BusyError is the error of a question that Admission refused.
type BusyError struct {
	// Ahead is the number of questions ahead of the refused one: searches
	// running plus those queued before it.
	Ahead  int
	Reason string // RejectQueueFull or RejectQueueWait
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("busy (%s): %d questions ahead", e.Reason, e.Ahead)
}

// BusyText is the reply to a question refused by Admission, on every
// surface: how many questions are ahead and when to try again.
func BusyText(ahead int) string {
	n := strconv.Itoa(ahead) + " questions"
	if ahead == 1 {
		n = "1 question"
	}
	return "I'm busy: " + n + " ahead of yours. Try again in a minute."
}

// waiter is a queued question; ready is closed when it is handed a slot.
type waiter struct{ ready chan struct{} }

// NewAdmission returns an empty pool; it panics when cfg.Max < 1,
// cfg.Queue < 0 or cfg.Wait <= 0, a wiring bug (config validates them).
func NewAdmission(cfg AdmissionConfig) *Admission {
	if cfg.Max < 1 || cfg.Queue < 0 || cfg.Wait <= 0 {
		panic(fmt.Sprintf("bot.NewAdmission: Max %d, Queue %d, Wait %s out of range", cfg.Max, cfg.Queue, cfg.Wait))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.after == nil {
		cfg.after = func(d time.Duration) (<-chan time.Time, func() bool) {
			t := time.NewTimer(d)
			return t.C, t.Stop
		}
	}
	return &Admission{cfg: cfg}
}

// Wrap returns an Answerer that asks next once this pool admits the
// question, and fails with a *BusyError when it refuses it.
func (a *Admission) Wrap(next Answerer) Answerer { return admitted{a, next} }

type admitted struct {
	pool *Admission
	next Answerer
}

func (w admitted) Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error) {
	if err := w.pool.acquire(ctx); err != nil {
		return retrieval.Answer{}, err
	}
	start := w.pool.cfg.Now()
	defer func() { w.pool.release(w.pool.cfg.Now().Sub(start)) }()
	return w.next.Ask(ctx, r)
}

// Service is the average duration of a search so far (0 before the
// first has finished).
func (a *Admission) Service() time.Duration {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.service
}

// Load returns the searches running and the questions queued now.
func (a *Admission) Load() (running, queued int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running, len(a.queue)
}

// acquire takes a search slot, waiting its turn; on nil the caller must
// call release once. Errors: *BusyError, or ctx's cause when ctx ended
// during the wait.
func (a *Admission) acquire(ctx context.Context) error {
	a.mu.Lock()
	if a.running < a.cfg.Max && len(a.queue) == 0 {
		a.running++
		a.mu.Unlock()
		return nil
	}
	if len(a.queue) >= a.cfg.Queue {
		ahead := a.running + len(a.queue)
		a.mu.Unlock()
		return a.refuse(ahead, RejectQueueFull)
	}
	wait, reason := a.cfg.Wait, RejectQueueWait
	if deadline, ok := ctx.Deadline(); ok && a.service > 0 {
		// Deadline mode: wait while a search started then still ends in time.
		wait, reason = deadline.Sub(a.cfg.Now())-a.service, RejectDeadline
		if rounds := (len(a.queue) + a.cfg.Max) / a.cfg.Max; time.Duration(rounds)*a.service > wait {
			ahead := a.running + len(a.queue)
			a.mu.Unlock()
			return a.refuse(ahead, RejectDeadline)
		}
	}
	w := &waiter{ready: make(chan struct{})}
	a.queue = append(a.queue, w)
	a.mu.Unlock()

	timeout, stop := a.cfg.after(wait)
	defer stop()
	select {
	case <-w.ready:
		return nil
	case <-timeout:
	case <-ctx.Done():
	}
	a.mu.Lock()
	i := slices.Index(a.queue, w)
	if i < 0 { // handed a slot while the wait ended: give it on
		a.mu.Unlock()
		if ctx.Err() != nil {
			a.release(0)
			return context.Cause(ctx)
		}
		return nil
	}
	ahead := a.running + i
	a.queue = slices.Delete(a.queue, i, i+1)
	a.mu.Unlock()
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return a.refuse(ahead, reason)
}

func (a *Admission) refuse(ahead int, reason string) error {
	if a.cfg.OnReject != nil {
		a.cfg.OnReject(reason)
	}
	return &BusyError{Ahead: ahead, Reason: reason}
}

// release hands the slot to the oldest waiter, or frees it; took, when
// positive, is the search's duration, averaged into the service time.
func (a *Admission) release(took time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if took > 0 {
		if a.service == 0 {
			a.service = took
		} else {
			a.service = time.Duration(serviceWeight*float64(took) + (1-serviceWeight)*float64(a.service))
		}
	}
	if len(a.queue) > 0 {
		w := a.queue[0]
		a.queue = slices.Delete(a.queue, 0, 1)
		close(w.ready) // the slot passes on: running stays the same
		return
	}
	a.running--
}
