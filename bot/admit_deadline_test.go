package bot_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// TestAdmissionByDeadline: with a known service time of 2 s, one search at
// a time and a 30 s answer deadline, questions queue while their expected
// wait plus one search fits in the deadline (14 of them, far past the 1 s
// fixed wait that applies before any search finished), each waiting until
// no search could end in time (28 s), and the 15th is refused at once.
func TestAdmissionByDeadline(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	var mu sync.Mutex
	var waits []time.Duration
	var rejects []string
	timers := func(d time.Duration) (<-chan time.Time, func() bool) {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return make(chan time.Time), func() bool { return true }
	}
	g := newGated()
	pool := bot.NewAdmission(bot.WithTimer(bot.AdmissionConfig{Max: 1, Queue: 100, Wait: time.Second, Now: clock.Now,
		OnReject: func(r string) { mu.Lock(); rejects = append(rejects, r); mu.Unlock() }}, timers))
	ans := pool.Wrap(g)
	out := make(chan result, 40)

	// One search of 2 s on the clock teaches the pool its service time.
	go ask(context.Background(), ans, "warm", out)
	<-g.started
	clock.add(2 * time.Second)
	g.open("warm")
	if r := <-out; r.err != nil {
		t.Fatal(r.err)
	}
	if got := pool.Service(); got != 2*time.Second {
		t.Fatalf("Service() = %s, want 2s", got)
	}

	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(30*time.Second))
	defer cancel()
	go ask(ctx, ans, "q0", out)
	waitLoad(t, pool, 1, 0)
	for i := 1; i <= 14; i++ {
		go ask(ctx, ans, fmt.Sprintf("q%d", i), out)
		waitLoad(t, pool, 1, i)
	}
	go ask(ctx, ans, "q15", out)
	r := <-out
	var busy *bot.BusyError
	if !errors.As(r.err, &busy) || r.q != "q15" || *busy != (bot.BusyError{Ahead: 15, Reason: bot.RejectDeadline}) {
		t.Fatalf("got %s %v, want q15 refused (deadline) with 15 ahead", r.q, r.err)
	}
	mu.Lock()
	for i, w := range waits {
		if w != 28*time.Second {
			t.Errorf("queued question %d waits %s, want 28s (deadline less one search)", i+1, w)
		}
	}
	if len(waits) != 14 || len(rejects) != 1 || rejects[0] != bot.RejectDeadline {
		t.Errorf("%d waits, rejects %v; want 14 and [deadline]", len(waits), rejects)
	}
	mu.Unlock()
	cancel() // the queued questions end with their context
	for range 15 {
		<-out
	}
}

// TestAdmissionColdStart: before any search has finished, the fixed Wait
// bounds the queue, as without a deadline.
func TestAdmissionColdStart(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1_800_000_000, 0)}
	var waits []time.Duration
	var mu sync.Mutex
	timers := func(d time.Duration) (<-chan time.Time, func() bool) {
		mu.Lock()
		waits = append(waits, d)
		mu.Unlock()
		return make(chan time.Time), func() bool { return true }
	}
	g := newGated()
	pool := bot.NewAdmission(bot.WithTimer(bot.AdmissionConfig{Max: 1, Queue: 5, Wait: 20 * time.Second, Now: clock.Now}, timers))
	ans := pool.Wrap(g)
	out := make(chan result, 4)
	ctx, cancel := context.WithDeadline(context.Background(), clock.Now().Add(30*time.Second))
	defer cancel()
	go ask(ctx, ans, "q0", out)
	waitLoad(t, pool, 1, 0)
	go ask(ctx, ans, "q1", out)
	waitLoad(t, pool, 1, 1)
	mu.Lock()
	if len(waits) != 1 || waits[0] != 20*time.Second {
		t.Errorf("waits %v, want [20s]", waits)
	}
	mu.Unlock()
	cancel()
	<-out
	<-out
}
