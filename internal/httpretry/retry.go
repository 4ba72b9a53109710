package httpretry

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// A Policy says which failed attempts Do repeats, how often, and how long it
// waits before each. The zero Policy tries once.
type Policy struct {
	// MaxRetries is how many times a failed attempt is repeated; 0 means
	// none, so Do makes at most MaxRetries+1 attempts.
	MaxRetries int
	// Retryable reports whether an attempt's error is worth another try
	// [Transient].
	Retryable func(err error) bool
	// ServerWait is the wait the server asked for in err, 0 when it named
	// none [the RetryAfter of a *StatusError in err's chain].
	ServerWait func(err error) time.Duration
	// Backoff is the wait before retry n (0 for the first) when the server
	// named none [Exponential(time.Second, time.Minute, 0.2)].
	Backoff func(n int) time.Duration
	// MaxWait is the longest server wait honoured; 0 means no limit. A longer
	// one ends Do with a *WaitError, so that a sync or a reply does not block
	// for hours, unless CapWait is set, in which case Do waits MaxWait.
	MaxWait time.Duration
	CapWait bool
	// Sleep waits d or until ctx ends, returning ctx's error then [a
	// timer]; tests replace it to record the waits without taking them.
	Sleep func(ctx context.Context, d time.Duration) error
	// OnRetry, when set, is told of each retry before its wait: the failed
	// attempt's error, the wait and the retry's number, 1 for the first.
	// Clients log there.
	OnRetry func(err error, wait time.Duration, retry int)
}

// A WaitError is what Do returns when it stopped before a retry that was
// due: ctx ended (Cause is context.Cause(ctx)), or the server asked for a
// wait longer than the policy's MaxWait (Cause is nil). Err is the last
// attempt's error; errors.Is and errors.As see both Err and Cause.
type WaitError struct {
	Err   error
	Wait  time.Duration // the wait that was due
	Max   time.Duration // the policy's MaxWait
	Cause error
}

func (e *WaitError) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%v; then waiting to retry: %v", e.Err, e.Cause)
	}
	return fmt.Sprintf("%v (asked to wait %s, longer than the %s ragbot waits)", e.Err, e.Wait, e.Max)
}

func (e *WaitError) Unwrap() []error {
	if e.Cause == nil {
		return []error{e.Err}
	}
	return []error{e.Err, e.Cause}
}

// Do calls attempt until it returns nil, fails in a way the policy does not
// retry (or with an error made by Permanent), or has been retried
// MaxRetries times; then it returns attempt's last error unchanged (for
// Permanent, the error it was given). It returns a *WaitError instead when
// it stops before a due retry (see WaitError). Do is safe for concurrent
// use if the policy's funcs are.
func (p Policy) Do(ctx context.Context, attempt func(ctx context.Context) error) error {
	for n := 0; ; n++ {
		err := attempt(ctx)
		if err == nil {
			return nil
		}
		var perm *permanentError
		if errors.As(err, &perm) {
			return perm.err
		}
		if n >= p.MaxRetries || !p.retryable(err) {
			return err
		}
		wait, ok := p.wait(err, n)
		if !ok {
			return &WaitError{Err: err, Wait: wait, Max: p.MaxWait}
		}
		if ctx.Err() != nil {
			return &WaitError{Err: err, Wait: wait, Max: p.MaxWait, Cause: context.Cause(ctx)}
		}
		if p.OnRetry != nil {
			p.OnRetry(err, wait, n+1)
		}
		if p.sleep(ctx, wait) != nil {
			return &WaitError{Err: err, Wait: wait, Max: p.MaxWait, Cause: context.Cause(ctx)}
		}
	}
}

// Permanent marks err as final: Do returns err without asking Retryable,
// for failures an attempt knows no retry can mend (a request that cannot be
// built, a 200 whose body does not decode).
func Permanent(err error) error { return &permanentError{err} }

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// wait is the wait before retry n+1 after err, and false when the server
// asked for more than MaxWait and the policy does not cap it.
func (p Policy) wait(err error, n int) (time.Duration, bool) {
	server := p.serverWait(err)
	switch {
	case server <= 0:
		return p.backoff(n), true
	case p.MaxWait <= 0 || server <= p.MaxWait:
		return server, true
	case p.CapWait:
		return p.MaxWait, true
	}
	return server, false
}

func (p Policy) retryable(err error) bool {
	if p.Retryable == nil {
		return Transient(err)
	}
	return p.Retryable(err)
}

func (p Policy) serverWait(err error) time.Duration {
	if p.ServerWait == nil {
		return RetryAfter(err)
	}
	return p.ServerWait(err)
}

func (p Policy) backoff(n int) time.Duration {
	if p.Backoff == nil {
		return Exponential(time.Second, time.Minute, 0.2)(n)
	}
	return p.Backoff(n)
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep == nil {
		return Sleep(ctx, d)
	}
	return p.Sleep(ctx, d)
}

// Transient reports the failures that a later attempt may not meet: a
// *StatusError of 408, 429, 500, 502, 503 or 504, and any error without a
// status (the network), unless the context ended.
func Transient(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return TransientStatus(se.Status)
	}
	return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// TransientStatus reports the HTTP statuses that say "try again later"
// (RFC 9110 §15.5.9, §15.6; RFC 6585 §4): 408, 429, 500, 502, 503, 504.
func TransientStatus(status int) bool {
	switch status {
	case 408, 429, 500, 502, 503, 504:
		return true
	}
	return false
}

// RetryAfter is the RetryAfter of the *StatusError in err's chain, 0 when
// there is none.
func RetryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}

// Exponential returns a backoff of first, 2*first, 4*first, ... up to
// limit, each plus a random jitter of up to jitter times itself (0.2 adds
// up to 20%), so that clients that failed together do not retry together.
func Exponential(first, limit time.Duration, jitter float64) func(n int) time.Duration {
	return func(n int) time.Duration {
		d := first
		for i := 0; i < n && d < limit; i++ {
			d *= 2
		}
		d = min(d, limit)
		if j := int64(float64(d) * jitter); j > 0 {
			d += time.Duration(rand.Int64N(j + 1))
		}
		return d
	}
}

// Sleep waits d or until ctx ends, and then returns ctx's error.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
