package slack

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/httpretry"
)

// Rate limits: Slack answers HTTP 429 with Retry-After in seconds
// (api.slack.com/apis/rate-limits); slack-go turns it into
// *slackgo.RateLimitedError. A call is tried again after that wait, at most
// maxRetries times, and only while the wait is at most config.MaxRetryWait.
const maxRetries = 3

// rateLimit is the retry policy of Web API calls: only rate limits are
// retried, after their Retry-After but at least a second.
var rateLimit = httpretry.Policy{
	MaxRetries: maxRetries,
	Retryable: func(err error) bool {
		var rl *slackgo.RateLimitedError
		return errors.As(err, &rl)
	},
	ServerWait: func(err error) time.Duration {
		var rl *slackgo.RateLimitedError
		if !errors.As(err, &rl) {
			return 0
		}
		return max(rl.RetryAfter, time.Second)
	},
	MaxWait: config.MaxRetryWait,
}

// withRetry runs call, retrying it after the Retry-After of a 429 answer.
// what names the call (a Web API method) in logs and errors.
func withRetry(ctx context.Context, log *slog.Logger, what string, call func() error) error {
	p := rateLimit
	p.OnRetry = func(_ error, wait time.Duration, retry int) {
		log.Warn("slack rate limited; waiting", "method", what, "retry_after", wait, "attempt", retry)
	}
	err := p.Do(ctx, func(context.Context) error { return call() })
	var we *httpretry.WaitError
	switch {
	case !errors.As(err, &we):
		return err
	case we.Cause != nil:
		return fmt.Errorf("%s: waiting out a rate limit: %w", what, we.Cause)
	}
	return fmt.Errorf("%s: rate limited for %s, longer than the %s ragbot waits: %w", what, we.Wait, config.MaxRetryWait, we.Err)
}
