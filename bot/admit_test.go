package bot_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

// gated answers each question only when the test opens its gate, and
// reports on started the questions whose search began, in order.
type gated struct {
	started chan string
	mu      sync.Mutex
	gates   map[string]chan struct{}
}

func newGated() *gated {
	return &gated{started: make(chan string, 100), gates: map[string]chan struct{}{}}
}

func (g *gated) gate(q string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.gates[q] == nil {
		g.gates[q] = make(chan struct{})
	}
	return g.gates[q]
}

func (g *gated) open(q string) { close(g.gate(q)) }

func (g *gated) Ask(ctx context.Context, r retrieval.Request) (retrieval.Answer, error) {
	g.started <- r.Question
	select {
	case <-g.gate(r.Question):
		return retrieval.Answer{Question: r.Question, Coverage: retrieval.Covered}, nil
	case <-ctx.Done():
		return retrieval.Answer{}, ctx.Err()
	}
}

// manualTimers hands out wait timers that fire only when the test says.
type manualTimers struct {
	mu sync.Mutex
	cs []chan time.Time
}

func (m *manualTimers) after(time.Duration) (<-chan time.Time, func() bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := make(chan time.Time, 1)
	m.cs = append(m.cs, c)
	return c, func() bool { return true }
}

// fire ends the wait of the i-th queued question (0 = the first queued).
func (m *manualTimers) fire(i int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cs[i] <- time.Time{}
}

// waitLoad blocks until the pool reports running searches and queued
// questions, so that the next question's place in line is known.
func waitLoad(t *testing.T, a *bot.Admission, running, queued int) {
	t.Helper()
	for {
		r, q := a.Load()
		if r == running && q == queued {
			return
		}
		if r > running || q > queued {
			t.Fatalf("Load() = %d running, %d queued; want %d, %d", r, q, running, queued)
		}
		runtime.Gosched()
	}
}

type result struct {
	q   string
	ans retrieval.Answer
	err error
}

func ask(ctx context.Context, a bot.Answerer, q string, out chan<- result) {
	ans, err := a.Ask(ctx, retrieval.Request{Question: q})
	out <- result{q, ans, err}
}

func TestAdmissionFIFOAndFullQueue(t *testing.T) {
	g := newGated()
	var rejects []string
	var mu sync.Mutex
	pool := bot.NewAdmission(bot.AdmissionConfig{Max: 2, Queue: 2, Wait: time.Hour,
		OnReject: func(r string) { mu.Lock(); rejects = append(rejects, r); mu.Unlock() }})
	ans := pool.Wrap(g)
	ctx := context.Background()
	out := make(chan result, 10)
	go ask(ctx, ans, "q0", out)
	go ask(ctx, ans, "q1", out)
	waitLoad(t, pool, 2, 0)
	for i, q := range []string{"q2", "q3"} {
		go ask(ctx, ans, q, out)
		waitLoad(t, pool, 2, i+1)
	}
	// The queue is full: q4 is refused at once, naming everyone ahead.
	go ask(ctx, ans, "q4", out)
	r := <-out
	var busy *bot.BusyError
	if !errors.As(r.err, &busy) || r.q != "q4" {
		t.Fatalf("q4: got %q %v, want a BusyError", r.q, r.err)
	}
	if want := (bot.BusyError{Ahead: 4, Reason: bot.RejectQueueFull}); *busy != want {
		t.Errorf("q4 refused with %+v, want %+v", *busy, want)
	}
	// Slots pass to the queue in arrival order, one per finished search.
	started := []string{<-g.started, <-g.started}
	g.open("q1")
	started = append(started, <-g.started)
	g.open("q0")
	started = append(started, <-g.started)
	g.open("q2")
	g.open("q3")
	got := map[string]bool{}
	for range 4 {
		r := <-out
		if r.err != nil || r.ans.Question != r.q {
			t.Errorf("%s: answer %q, err %v; want its answer", r.q, r.ans.Question, r.err)
		}
		if got[r.q] {
			t.Errorf("%s answered twice", r.q)
		}
		got[r.q] = true
	}
	if !cmp.Equal(started[2:], []string{"q2", "q3"}) || len(got) != 4 {
		t.Errorf("searches started %v (answered %v), want q0 and q1, then q2, q3 in order", started, got)
	}
	waitLoad(t, pool, 0, 0)
	if !cmp.Equal(rejects, []string{bot.RejectQueueFull}) {
		t.Errorf("OnReject got %v, want [queue_full]", rejects)
	}
}

func TestAdmissionQueueWait(t *testing.T) {
	g := newGated()
	timers := &manualTimers{}
	var rejects []string
	pool := bot.NewAdmission(bot.WithTimer(bot.AdmissionConfig{Max: 1, Queue: 5, Wait: 20 * time.Second,
		OnReject: func(r string) { rejects = append(rejects, r) }}, timers.after))
	ans := pool.Wrap(g)
	ctx := context.Background()
	out := make(chan result, 10)
	go ask(ctx, ans, "q0", out)
	waitLoad(t, pool, 1, 0)
	for i, q := range []string{"q1", "q2", "q3"} {
		go ask(ctx, ans, q, out)
		waitLoad(t, pool, 1, i+1)
	}
	// q2's wait ends before a slot frees: refused, with q0 running and q1 queued ahead.
	timers.fire(1)
	r := <-out
	var busy *bot.BusyError
	if !errors.As(r.err, &busy) || r.q != "q2" || *busy != (bot.BusyError{Ahead: 2, Reason: bot.RejectQueueWait}) {
		t.Fatalf("got %s %v, want q2 refused with 2 ahead after its wait", r.q, r.err)
	}
	waitLoad(t, pool, 1, 2)
	// A question whose own context ends while it waits gets that error, not busy.
	cctx, cancel := context.WithCancelCause(ctx)
	go ask(cctx, ans, "q4", out)
	waitLoad(t, pool, 1, 3)
	cancel(errors.New("answer timeout exceeded"))
	r = <-out
	if r.q != "q4" || r.err == nil || r.err.Error() != "answer timeout exceeded" {
		t.Fatalf("got %s %v, want q4 to end with its context's cause", r.q, r.err)
	}
	waitLoad(t, pool, 1, 2)
	if <-g.started != "q0" {
		t.Fatal("q0 did not start first")
	}
	g.open("q0")
	g.open("q1")
	g.open("q3")
	var order []string
	for range 3 {
		r := <-out
		if r.err != nil {
			t.Errorf("%s: %v", r.q, r.err)
		}
		order = append(order, r.q)
	}
	started := []string{<-g.started, <-g.started}
	if !cmp.Equal(started, []string{"q1", "q3"}) {
		t.Errorf("after q0, searches started %v, want [q1 q3]", started)
	}
	waitLoad(t, pool, 0, 0)
	if !cmp.Equal(rejects, []string{bot.RejectQueueWait}) {
		t.Errorf("OnReject got %v, want [queue_wait]", rejects)
	}
}

// The busy reply goes through the bot's one reply path: "searching" is
// replaced by it, once, and the question that held the slot is answered.
func TestBusyReplyReplacesSearching(t *testing.T) {
	g := newGated()
	pool := bot.NewAdmission(bot.AdmissionConfig{Max: 1, Queue: 0, Wait: time.Minute})
	s := &surface{}
	b := bot.New(bot.Config{Answerer: pool.Wrap(g), Surface: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Access: bot.Access{Default: []string{"repo:payments"}}})
	th := bot.Thread{Channel: "C1", TS: "50.1"}
	if !b.Handle(bot.Mention{DeliveryID: "Ev1", Thread: th, TS: "50.1", Text: "first"}) {
		t.Fatal("Ev1 not handled")
	}
	if q := <-g.started; q != "first" {
		t.Fatalf("started %q", q)
	}
	if !b.Handle(bot.Mention{DeliveryID: "Ev2", Thread: bot.Thread{Channel: "C1", TS: "60.1"}, TS: "60.1", Text: "second"}) {
		t.Fatal("Ev2 not handled")
	}
	// Ev2 is refused without waiting for Ev1; its retry is a duplicate.
	for !slicesContain(s.got(), "update 100.1: busy") {
		runtime.Gosched()
	}
	if b.Handle(bot.Mention{DeliveryID: "Ev2", Thread: bot.Thread{Channel: "C1", TS: "60.1"}, TS: "60.1", Text: "second"}) {
		t.Error("the retry of a refused delivery was answered again")
	}
	g.open("first")
	if err := b.Wait(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := []string{"post 100.0 in C1/50.1: searching", "post 100.1 in C1/60.1: searching",
		`update 100.1: busy ""`, `update 100.0: answered "first"`}
	if diff := cmp.Diff(want, s.got()); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
}

func slicesContain(log []string, prefix string) bool {
	for _, l := range log {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

func TestBusyText(t *testing.T) {
	for ahead, want := range map[int]string{
		1:  "I'm busy: 1 question ahead of yours. Try again in a minute.",
		12: "I'm busy: 12 questions ahead of yours. Try again in a minute.",
	} {
		if got := bot.BusyText(ahead); got != want {
			t.Errorf("BusyText(%d) = %q, want %q", ahead, got, want)
		}
	}
}
