package retrieval

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// flakyEmbedder fails while fail is set, hangs (until its ctx ends) while
// hang is set, and counts its calls.
type flakyEmbedder struct {
	mu         sync.Mutex
	fail, hang bool
	calls      int
}

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls++
	fail, hang := f.fail, f.hang
	f.mu.Unlock()
	switch {
	case hang:
		<-ctx.Done()
		return nil, ctx.Err()
	case fail:
		return nil, errors.New("503 Service Unavailable")
	}
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}
func (f *flakyEmbedder) Name() string { return "fake" }
func (f *flakyEmbedder) Dim() int     { return 2 }

func (f *flakyEmbedder) set(fail, hang bool) {
	f.mu.Lock()
	f.fail, f.hang = fail, hang
	f.mu.Unlock()
}

// TestBreaker walks a breaker through its states on a fake clock: three
// failures open it, an open breaker refuses without calling the embedder,
// after the cool-down one probe goes through and its failure reopens it,
// its success closes it; every change is reported once.
func TestBreaker(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	emb := &flakyEmbedder{fail: true}
	var changes []string
	b := &Breaker{Embedder: emb, Timeout: time.Second, Failures: 3, CoolDown: 30 * time.Second,
		Now:      func() time.Time { return now },
		OnChange: func(from, to BreakerState, err error) { changes = append(changes, string(from)+">"+string(to)) }}
	ctx := context.Background()
	call := func() error { _, err := b.Embed(ctx, []string{"q"}); return err }

	for i := range 3 {
		if err := call(); err == nil || errors.Is(err, ErrBreakerOpen) {
			t.Fatalf("call %d: got %v, want the embedder's error", i+1, err)
		}
	}
	if b.State() != BreakerOpen || emb.calls != 3 {
		t.Fatalf("after 3 failures: state %s, %d calls; want open, 3", b.State(), emb.calls)
	}
	if err := call(); !errors.Is(err, ErrBreakerOpen) || emb.calls != 3 {
		t.Errorf("open: got %v after %d calls, want ErrBreakerOpen without a call", err, emb.calls)
	}
	now = now.Add(29 * time.Second)
	if err := call(); !errors.Is(err, ErrBreakerOpen) {
		t.Errorf("before the cool-down: got %v, want ErrBreakerOpen", err)
	}
	now = now.Add(2 * time.Second) // past the cool-down: one probe, which fails
	if err := call(); err == nil || errors.Is(err, ErrBreakerOpen) || emb.calls != 4 {
		t.Errorf("probe: got %v (%d calls), want the embedder's error from a 4th call", err, emb.calls)
	}
	if b.State() != BreakerOpen {
		t.Errorf("after a failed probe: %s, want open", b.State())
	}
	now = now.Add(31 * time.Second)
	emb.set(false, false)
	if err := call(); err != nil {
		t.Errorf("probe with the embedder back: %v", err)
	}
	if b.State() != BreakerClosed {
		t.Errorf("after a good probe: %s, want closed", b.State())
	}
	want := []string{"closed>open", "open>half_open", "half_open>open", "open>half_open", "half_open>closed"}
	if diff := cmp.Diff(want, changes); diff != "" {
		t.Errorf("state changes (-want +got):\n%s", diff)
	}
}

// TestBreakerBudget: a hanging embedder is cut at the budget, naming it;
// a caller that gives up first is no failure of the embedder.
func TestBreakerBudget(t *testing.T) {
	emb := &flakyEmbedder{hang: true}
	b := &Breaker{Embedder: emb, Timeout: 50 * time.Millisecond, Failures: 1}
	start := time.Now()
	_, err := b.Embed(context.Background(), []string{"q"})
	if err == nil || !strings.Contains(err.Error(), "no answer within the query budget of 50ms") || time.Since(start) > time.Second {
		t.Fatalf("hanging embedder: got %v after %s, want the budget error at once", err, time.Since(start))
	}
	if b.State() != BreakerOpen {
		t.Errorf("state %s after a budget overrun with Failures 1, want open", b.State())
	}

	b2 := &Breaker{Embedder: emb, Timeout: time.Minute, Failures: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := b2.Embed(ctx, []string{"q"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("caller's deadline: got %v, want context.DeadlineExceeded", err)
	}
	if b2.State() != BreakerClosed {
		t.Errorf("state %s after the caller gave up, want closed", b2.State())
	}
}

// TestBreakerOneProbe: while a half-open breaker's probe runs, other calls
// are refused at once.
func TestBreakerOneProbe(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	emb := &flakyEmbedder{fail: true}
	var mu sync.Mutex
	b := &Breaker{Embedder: emb, Timeout: time.Second, Failures: 1, CoolDown: time.Second,
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now }}
	_, _ = b.Embed(context.Background(), nil)
	mu.Lock()
	now = now.Add(2 * time.Second)
	mu.Unlock()
	emb.set(false, true) // the probe hangs until the budget
	done := make(chan error, 1)
	go func() { _, err := b.Embed(context.Background(), nil); done <- err }()
	for b.State() != BreakerHalfOpen {
		time.Sleep(time.Millisecond)
	}
	if _, err := b.Embed(context.Background(), nil); !errors.Is(err, ErrBreakerOpen) {
		t.Errorf("second call during the probe: %v, want ErrBreakerOpen", err)
	}
	if err := <-done; err == nil {
		t.Error("hanging probe succeeded")
	}
}
