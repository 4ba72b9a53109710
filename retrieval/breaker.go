package retrieval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// SemanticUnavailableWarning is the Answer warning of a question answered
// without the semantic vector: its embedder failed, ran out of its query
// budget, or its circuit breaker is open.
const SemanticUnavailableWarning = "semantic search unavailable: answered from keywords"

// ErrBreakerOpen is returned by Breaker.Embed while the breaker is open: the
// embedder failed Failures times in a row and its cool-down has not passed.
var ErrBreakerOpen = errors.New("circuit breaker open")

// errBudget is the cause of a Breaker call that ran out of its Timeout.
var errBudget = errors.New("query budget spent")

// BreakerState is a circuit breaker's state.
type BreakerState string

// The states of a Breaker: Closed calls the embedder; Open refuses at once
// until the cool-down has passed; HalfOpen lets one call through as a
// probe, whose result closes or reopens the breaker.
const (
	BreakerClosed   BreakerState = "closed"
	BreakerOpen     BreakerState = "open"
	BreakerHalfOpen BreakerState = "half_open"
)

// Breaker defaults.
const (
	DefaultQueryTimeout    = 2 * time.Second
	DefaultBreakerFailures = 3
	DefaultBreakerCoolDown = 30 * time.Second
)

// A Breaker guards an embedder on the question's path: each call gets at
// most Timeout, and after Failures failed calls in a row it opens: calls
// fail at once with ErrBreakerOpen for CoolDown, then one call is let
// through as a probe (half-open) and its outcome closes the breaker or
// opens it for another CoolDown. A call whose own ctx ends is no failure
// of the embedder and changes nothing. Set the fields before the first
// call; a Breaker is safe for concurrent use.
type Breaker struct {
	Embedder Embedder
	Timeout  time.Duration    // budget of one call [DefaultQueryTimeout]
	Failures int              // consecutive failures that open it [DefaultBreakerFailures]
	CoolDown time.Duration    // how long it stays open before a probe [DefaultBreakerCoolDown]
	Now      func() time.Time // [time.Now]
	// OnChange, when set, is called once per state change (metrics, the
	// log), outside the lock, with the error that caused it (nil when
	// closing or half-opening).
	OnChange func(from, to BreakerState, err error)

	mu       sync.Mutex
	state    BreakerState
	fails    int
	openedAt time.Time
	probing  bool
}

var _ Embedder = (*Breaker)(nil)

// Name is the guarded embedder's Name: the breaker makes no other vectors.
func (b *Breaker) Name() string { return b.Embedder.Name() }

// Dim is the guarded embedder's Dim.
func (b *Breaker) Dim() int { return b.Embedder.Dim() }

// State is the breaker's state now (an open breaker past its cool-down
// still reads open until a call probes).
func (b *Breaker) State() BreakerState {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stateLocked()
}

func (b *Breaker) stateLocked() BreakerState {
	if b.state == "" {
		return BreakerClosed
	}
	return b.state
}

// Embed calls the embedder within the budget, unless the breaker is open.
// Errors: ErrBreakerOpen (wrapped, naming the embedder), the embedder's
// error, or the budget running out (naming Timeout).
func (b *Breaker) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	return b.call(ctx, texts, false)
}

// EmbedQueries is Embed for questions: the guarded embedder's
// EmbedQueries when it is a QueryEmbedder, else its Embed.
func (b *Breaker) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return b.call(ctx, texts, true)
}

func (b *Breaker) call(ctx context.Context, texts []string, queries bool) ([][]float32, error) {
	probe, err := b.admit()
	if err != nil {
		return nil, err
	}
	timeout := cmp.Or(max(b.Timeout, 0), DefaultQueryTimeout)
	cctx, cancel := context.WithTimeoutCause(ctx, timeout, errBudget)
	defer cancel()
	vs, err := embedAs(cctx, b.Embedder, texts, queries)
	if err != nil && ctx.Err() == nil && errors.Is(context.Cause(cctx), errBudget) {
		err = fmt.Errorf("%s: no answer within the query budget of %s: %w", b.Embedder.Name(), timeout, errBudget)
	}
	b.done(probe, ctx, err)
	return vs, err
}

// Trip opens the breaker now, as if the embedder had just failed Failures
// times with err: for a caller that saw it fail before the breaker's first
// use (ragbot's start-up probe of the endpoint).
func (b *Breaker) Trip(err error) {
	b.mu.Lock()
	from := b.stateLocked()
	b.state, b.openedAt, b.fails = BreakerOpen, b.now(), b.failures()
	b.mu.Unlock()
	if from != BreakerOpen {
		b.changed(from, BreakerOpen, err)
	}
}

// admit says whether a call may go through, and whether it is the probe
// of a half-open breaker.
func (b *Breaker) admit() (probe bool, err error) {
	b.mu.Lock()
	from := b.stateLocked()
	switch {
	case from == BreakerClosed:
	case from == BreakerOpen && b.now().Sub(b.openedAt) < b.coolDown():
		err = fmt.Errorf("%s: %w", b.Embedder.Name(), ErrBreakerOpen)
	case from == BreakerHalfOpen && b.probing: // one probe at a time
		err = fmt.Errorf("%s: %w (probing)", b.Embedder.Name(), ErrBreakerOpen)
	default: // the probe, of a half-open breaker or an open one past its cool-down
		probe, b.state, b.probing = true, BreakerHalfOpen, true
	}
	b.mu.Unlock()
	if probe && from == BreakerOpen {
		b.changed(from, BreakerHalfOpen, nil)
	}
	return probe, err
}

// done records a call's outcome.
func (b *Breaker) done(probe bool, ctx context.Context, err error) {
	b.mu.Lock()
	if probe {
		b.probing = false
	}
	from := b.stateLocked()
	switch {
	case err == nil:
		b.fails = 0
		b.state = BreakerClosed
	case ctx.Err() != nil: // the caller gave up: says nothing about the embedder
	default:
		b.fails++
		if from == BreakerHalfOpen || (from == BreakerClosed && b.fails >= b.failures()) {
			b.state, b.openedAt = BreakerOpen, b.now()
		}
	}
	to := b.stateLocked()
	b.mu.Unlock()
	if to != from {
		b.changed(from, to, err)
	}
}

func (b *Breaker) changed(from, to BreakerState, err error) {
	if b.OnChange != nil {
		b.OnChange(from, to, err)
	}
}

func (b *Breaker) now() time.Time {
	if b.Now != nil {
		return b.Now()
	}
	return time.Now()
}

// failures and coolDown are the fields, or their defaults when <= 0.
func (b *Breaker) failures() int { return cmp.Or(max(b.Failures, 0), DefaultBreakerFailures) }

func (b *Breaker) coolDown() time.Duration { return cmp.Or(max(b.CoolDown, 0), DefaultBreakerCoolDown) }
