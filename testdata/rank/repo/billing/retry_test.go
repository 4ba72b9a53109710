package billing

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestChargeGivesUp(t *testing.T) {
	p := RetryPolicy{MaxAttempts: 2, BaseDelay: time.Millisecond}
	err := Charge(p, func() error { return errors.New("gateway timeout") })
	if err == nil || !strings.Contains(err.Error(), "payment gateway timeout after 2 attempts") {
		t.Fatalf("Charge: %v, want payment gateway timeout after 2 attempts", err)
	}
}

func TestBackoffDoubles(t *testing.T) {
	p := RetryPolicy{BaseDelay: time.Second}
	if got := backoff(p, 3); got != 8*time.Second {
		t.Errorf("backoff wait between payment retries = %s, want 8s", got)
	}
}
