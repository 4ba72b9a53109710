package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	slackgo "github.com/slack-go/slack"
)

// Rate limits: Slack answers HTTP 429 with Retry-After in seconds
// (api.slack.com/apis/rate-limits); slack-go turns it into
// *slackgo.RateLimitedError. A call is tried again after that wait, at most
// maxRetries times, and only while the wait is at most maxRetryWait: a
// longer one means the method's budget is spent for now, and the user is
// better served by an error in the log than by an answer minutes late.
const (
	maxRetries   = 3
	maxRetryWait = 30 * time.Second
)

// withRetry runs call, retrying it after the Retry-After of a 429 answer.
// what names the call (a Web API method) in logs and errors.
func withRetry(ctx context.Context, log *slog.Logger, what string, call func() error) error {
	for attempt := 1; ; attempt++ {
		err := call()
		var rl *slackgo.RateLimitedError
		if !errors.As(err, &rl) || attempt > maxRetries {
			return err
		}
		wait := max(rl.RetryAfter, time.Second)
		if wait > maxRetryWait {
			return fmt.Errorf("%s: rate limited for %s, longer than the %s ragbot waits: %w", what, wait, maxRetryWait, err)
		}
		log.Warn("slack rate limited; waiting", "method", what, "retry_after", wait, "attempt", attempt)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("%s: waiting out a rate limit: %w", what, context.Cause(ctx))
		case <-t.C:
		}
	}
}
