package ingest_test

import (
	"bytes"
	"sync"
	"testing"
	"time"
)

// fakeClock is the ingest.Clock of the Queue and Scheduler tests: it moves
// only when the test calls Advance. It serves one loop that reads Now,
// computes its next wake-up and waits on After (Queue.Run, the Scheduler's
// loop), so the latest After is that loop's timer: Advance fires it once
// its deadline has passed, and waitArmed tells the test when it is set.
//
// The loop may read Now, the test Advance, and the loop then call After
// with a duration computed from the old time, which would fire late. So
// After fires at once when the clock moved since the previous After: a
// spurious wake-up, after which the loop reads Now again.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	moved bool          // Advance ran since the last After
	arms  int           // After calls so far
	timer *fakeTimer    // the latest After, until it fires
	armed chan struct{} // closed and replaced by each After
}

type fakeTimer struct {
	at  time.Time
	seq int // 1 for the first After call
	ch  chan time.Time
}

func newFakeClock(now time.Time) *fakeClock {
	return &fakeClock{now: now, armed: make(chan struct{})}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.arms++
	ch := make(chan time.Time, 1)
	if d <= 0 || c.moved {
		ch <- c.now
		c.timer = nil
	} else {
		c.timer = &fakeTimer{at: c.now.Add(d), seq: c.arms, ch: ch}
	}
	c.moved = false
	close(c.armed)
	c.armed = make(chan struct{})
	return ch
}

// Advance moves the clock by d and fires the timer if it is due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	c.moved = true
	if c.timer != nil && !c.timer.at.After(c.now) {
		c.timer.ch <- c.now
		c.timer = nil
	}
}

// mark returns the number of After calls so far, for waitArmed.
func (c *fakeClock) mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.arms
}

// waitArmed waits until the loop's timer is set for at by an After call
// made after mark: the loop has seen everything that happened before mark
// and decided to sleep until at. It fails the test after 5 s of real time.
func (c *fakeClock) waitArmed(t *testing.T, mark int, at time.Time) {
	t.Helper()
	c.waitFor(t, "a timer for "+at.String(), func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return c.timer != nil && c.timer.seq > mark && c.timer.at.Equal(at)
	})
}

// waitFor waits until cond holds, checking it again after each After call
// (the loop has finished a round), and fails the test after 5 s of real
// time.
func (c *fakeClock) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		c.mu.Lock()
		armed := c.armed
		c.mu.Unlock()
		if cond() {
			return
		}
		select {
		case <-armed:
		case <-deadline:
			c.mu.Lock()
			defer c.mu.Unlock()
			timer := "none"
			if c.timer != nil {
				timer = c.timer.at.String()
			}
			t.Fatalf("waited 5s for %s; clock at %v, timer %s", what, c.now, timer)
		}
	}
}

// syncBuffer is a bytes.Buffer that a logger may write to from several
// goroutines while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
