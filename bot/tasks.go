package bot

import (
	"context"
	"errors"
	"sync"
)

// errShutdown is the cause given to background work cancelled because the
// shutdown deadline passed.
var errShutdown = errors.New("bot: shutdown deadline passed")

// tasks owns background goroutines: every one is counted, waited for by
// shutdown, and cancelled through base when the shutdown deadline passes.
type tasks struct {
	base   context.Context
	cancel context.CancelCauseFunc

	mu     sync.Mutex
	n      int           // running
	idle   chan struct{} // closed while n == 0
	closed bool          // shutdown began: Go refuses work
}

func newTasks() *tasks {
	base, cancel := context.WithCancelCause(context.Background())
	idle := make(chan struct{})
	close(idle)
	return &tasks{base: base, cancel: cancel, idle: idle}
}

// Go runs fn in a goroutine that exits when fn returns; fn's context ends
// only when the shutdown deadline passes.
func (t *tasks) Go(fn func(ctx context.Context)) bool {
	t.mu.Lock()
	if t.closed {
		t.mu.Unlock()
		return false
	}
	if t.n == 0 {
		t.idle = make(chan struct{})
	}
	t.n++
	t.mu.Unlock()
	go func() {
		defer t.done()
		fn(t.base)
	}()
	return true
}

func (t *tasks) done() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n--
	if t.n == 0 {
		close(t.idle)
	}
}

// wait blocks until nothing runs or ctx ends.
func (t *tasks) wait(ctx context.Context) error {
	t.mu.Lock()
	idle := t.idle
	t.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// shutdown refuses new work and waits for the running work; when ctx ends
// first it cancels that work and waits for it to return.
func (t *tasks) shutdown(ctx context.Context) error {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	err := t.wait(ctx)
	if err != nil {
		t.cancel(errShutdown)
		_ = t.wait(context.Background()) // everything below honours ctx, so this is short
	}
	t.cancel(nil)
	return err
}
