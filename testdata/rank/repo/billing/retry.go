// Package billing talks to the payment gateway.
package billing

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// RetryPolicy says how often a gateway call is tried.
type RetryPolicy struct {
	MaxAttempts int
	BaseDelay   time.Duration
}

// PolicyFromEnv reads BILLING_MAX_RETRIES, the number of attempts per
// gateway call (default 4).
func PolicyFromEnv() RetryPolicy {
	p := RetryPolicy{MaxAttempts: 4, BaseDelay: 200 * time.Millisecond}
	if v, err := strconv.Atoi(os.Getenv("BILLING_MAX_RETRIES")); err == nil && v > 0 {
		p.MaxAttempts = v
	}
	return p
}

// backoff is the wait before the given attempt: the base delay doubled
// for every earlier attempt.
func backoff(p RetryPolicy, attempt int) time.Duration {
	return p.BaseDelay << attempt
}

// Charge calls the gateway until it answers or the attempts run out.
func Charge(p RetryPolicy, call func() error) error {
	for attempt := 0; attempt < p.MaxAttempts; attempt++ {
		if err := call(); err == nil {
			return nil
		}
		time.Sleep(backoff(p, attempt))
	}
	return fmt.Errorf("payment gateway timeout after %d attempts", p.MaxAttempts)
}
