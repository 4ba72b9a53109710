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
// waits in a first-in first-out queue of at most Queue entries for at most
// Wait; one that finds the queue full, or whose wait ends before a search
// slot frees, is refused with a *BusyError at once instead of joining a
// pile of searches that all run out of their answer timeout together. It
// is safe for concurrent use; Wrap shares one pool between several
// Answerers (mentions, /where-is, Teams).
type Admission struct {
	cfg AdmissionConfig

	mu      sync.Mutex
	running int       // searches holding a slot
	queue   []*waiter // waiting, oldest first
}

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
	// reason (RejectQueueFull or RejectQueueWait). It must not block.
	OnReject func(reason string)

	// after starts the wait timer; tests replace it to end waits on cue.
	after func(time.Duration) (<-chan time.Time, func() bool)
}

// Reasons of a BusyError, fit for a metric label.
const (
	RejectQueueFull = "queue_full" // Queue questions were already waiting
	RejectQueueWait = "queue_wait" // Wait passed before a slot freed
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
	defer w.pool.release()
	return w.next.Ask(ctx, r)
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
	w := &waiter{ready: make(chan struct{})}
	a.queue = append(a.queue, w)
	a.mu.Unlock()

	timeout, stop := a.cfg.after(a.cfg.Wait)
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
			a.release()
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
	return a.refuse(ahead, RejectQueueWait)
}

func (a *Admission) refuse(ahead int, reason string) error {
	if a.cfg.OnReject != nil {
		a.cfg.OnReject(reason)
	}
	return &BusyError{Ahead: ahead, Reason: reason}
}

// release hands the slot to the oldest waiter, or frees it.
func (a *Admission) release() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.queue) > 0 {
		w := a.queue[0]
		a.queue = slices.Delete(a.queue, 0, 1)
		close(w.ready) // the slot passes on: running stays the same
		return
	}
	a.running--
}
