// Package subscriptions bills customers every month until they stop.
package subscriptions

import (
	"context"
	"time"
)

// Subscription is a recurring plan of one customer.
type Subscription struct {
	ID        string
	Plan      string
	RenewsAt  time.Time
	EndsAt    time.Time
	Cancelled bool
}

// Service manages recurring subscriptions.
type Service struct {
	subs map[string]*Subscription
	now  func() time.Time
}

// Cancel stops a subscription at the end of the current billing period:
// the customer keeps access until RenewsAt and is not charged again.
func (s *Service) Cancel(ctx context.Context, id string) error {
	sub := s.subs[id]
	sub.Cancelled = true
	sub.EndsAt = sub.RenewsAt
	return nil
}

// Renew charges the next period of every subscription due now.
func (s *Service) Renew(ctx context.Context) int {
	n := 0
	for _, sub := range s.subs {
		if !sub.Cancelled && !sub.RenewsAt.After(s.now()) {
			sub.RenewsAt = sub.RenewsAt.AddDate(0, 1, 0)
			n++
		}
	}
	return n
}
