// Package orders takes, changes and cancels customer orders.
package orders

import (
	"context"
	"errors"
	"fmt"
)

// ErrAlreadyShipped is returned when an order can no longer be cancelled.
var ErrAlreadyShipped = errors.New("order already shipped, cannot cancel")

// Status is where an order is in its life.
type Status int

// Order states.
const (
	Pending Status = iota
	Paid
	Shipped
	Cancelled
)

// Order is one customer order.
type Order struct {
	ID        string
	Customer  string
	AmountCts int64
	Status    Status
}

// Refunder gives money back for a paid order.
type Refunder interface {
	Refund(ctx context.Context, orderID string, amountCts int64) error
}

// Service manages customer orders.
type Service struct {
	store    map[string]*Order
	payments Refunder
}

// Create stores a new pending order for a customer.
func (s *Service) Create(ctx context.Context, customer string, amountCts int64) (*Order, error) {
	id := fmt.Sprintf("ord_%d", len(s.store)+1)
	o := &Order{ID: id, Customer: customer, AmountCts: amountCts, Status: Pending}
	s.store[id] = o
	return o, nil
}

// Cancel cancels an order that has not shipped yet and refunds the
// customer when it was already paid.
func (s *Service) Cancel(ctx context.Context, id string) error {
	o, ok := s.store[id]
	if !ok {
		return fmt.Errorf("order %s not found", id)
	}
	if o.Status == Shipped {
		return ErrAlreadyShipped
	}
	if o.Status == Paid {
		if err := s.payments.Refund(ctx, o.ID, o.AmountCts); err != nil {
			return fmt.Errorf("refund order %s: %w", id, err)
		}
	}
	o.Status = Cancelled
	return nil
}
