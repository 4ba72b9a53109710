// Package orders implements the order service of the storefront.
package orders

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned when a record does not exist.
var ErrNotFound = errors.New("orders: not found")

// Order is one order row.
type Order struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// OrderStore reads and writes orders.
type OrderStore struct {
	db DB
}

// GetOrder returns the order with this id, or ErrNotFound.
func (s *OrderStore) GetOrder(ctx context.Context, id string) (*Order, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM orders WHERE id = $1", id)
	var v Order
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("order %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveOrder inserts or updates v.
func (s *OrderStore) SaveOrder(ctx context.Context, v *Order) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO orders (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save order %s: %w", v.ID, err)
	}
	return nil
}

// Refund is one refund row.
type Refund struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// RefundStore reads and writes refunds.
type RefundStore struct {
	db DB
}

// GetRefund returns the refund with this id, or ErrNotFound.
func (s *RefundStore) GetRefund(ctx context.Context, id string) (*Refund, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM refunds WHERE id = $1", id)
	var v Refund
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("refund %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveRefund inserts or updates v.
func (s *RefundStore) SaveRefund(ctx context.Context, v *Refund) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO refunds (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save refund %s: %w", v.ID, err)
	}
	return nil
}

// Invoice is one invoice row.
type Invoice struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// InvoiceStore reads and writes invoices.
type InvoiceStore struct {
	db DB
}

// GetInvoice returns the invoice with this id, or ErrNotFound.
func (s *InvoiceStore) GetInvoice(ctx context.Context, id string) (*Invoice, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM invoices WHERE id = $1", id)
	var v Invoice
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("invoice %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveInvoice inserts or updates v.
func (s *InvoiceStore) SaveInvoice(ctx context.Context, v *Invoice) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO invoices (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save invoice %s: %w", v.ID, err)
	}
	return nil
}

// Customer is one customer row.
type Customer struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// CustomerStore reads and writes customers.
type CustomerStore struct {
	db DB
}

// GetCustomer returns the customer with this id, or ErrNotFound.
func (s *CustomerStore) GetCustomer(ctx context.Context, id string) (*Customer, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM customers WHERE id = $1", id)
	var v Customer
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("customer %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveCustomer inserts or updates v.
func (s *CustomerStore) SaveCustomer(ctx context.Context, v *Customer) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO customers (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save customer %s: %w", v.ID, err)
	}
	return nil
}

// Payment is one payment row.
type Payment struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// PaymentStore reads and writes payments.
type PaymentStore struct {
	db DB
}

// GetPayment returns the payment with this id, or ErrNotFound.
func (s *PaymentStore) GetPayment(ctx context.Context, id string) (*Payment, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM payments WHERE id = $1", id)
	var v Payment
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("payment %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SavePayment inserts or updates v.
func (s *PaymentStore) SavePayment(ctx context.Context, v *Payment) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO payments (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save payment %s: %w", v.ID, err)
	}
	return nil
}

// Shipment is one shipment row.
type Shipment struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// ShipmentStore reads and writes shipments.
type ShipmentStore struct {
	db DB
}

// GetShipment returns the shipment with this id, or ErrNotFound.
func (s *ShipmentStore) GetShipment(ctx context.Context, id string) (*Shipment, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM shipments WHERE id = $1", id)
	var v Shipment
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("shipment %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveShipment inserts or updates v.
func (s *ShipmentStore) SaveShipment(ctx context.Context, v *Shipment) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO shipments (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save shipment %s: %w", v.ID, err)
	}
	return nil
}

// Coupon is one coupon row.
type Coupon struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// CouponStore reads and writes coupons.
type CouponStore struct {
	db DB
}

// GetCoupon returns the coupon with this id, or ErrNotFound.
func (s *CouponStore) GetCoupon(ctx context.Context, id string) (*Coupon, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM coupons WHERE id = $1", id)
	var v Coupon
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("coupon %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveCoupon inserts or updates v.
func (s *CouponStore) SaveCoupon(ctx context.Context, v *Coupon) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO coupons (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save coupon %s: %w", v.ID, err)
	}
	return nil
}

// Product is one product row.
type Product struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// ProductStore reads and writes products.
type ProductStore struct {
	db DB
}

// GetProduct returns the product with this id, or ErrNotFound.
func (s *ProductStore) GetProduct(ctx context.Context, id string) (*Product, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM products WHERE id = $1", id)
	var v Product
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("product %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveProduct inserts or updates v.
func (s *ProductStore) SaveProduct(ctx context.Context, v *Product) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO products (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save product %s: %w", v.ID, err)
	}
	return nil
}

// Price is one price row.
type Price struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// PriceStore reads and writes prices.
type PriceStore struct {
	db DB
}

// GetPrice returns the price with this id, or ErrNotFound.
func (s *PriceStore) GetPrice(ctx context.Context, id string) (*Price, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM prices WHERE id = $1", id)
	var v Price
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("price %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SavePrice inserts or updates v.
func (s *PriceStore) SavePrice(ctx context.Context, v *Price) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO prices (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save price %s: %w", v.ID, err)
	}
	return nil
}

// Payout is one payout row.
type Payout struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// PayoutStore reads and writes payouts.
type PayoutStore struct {
	db DB
}

// GetPayout returns the payout with this id, or ErrNotFound.
func (s *PayoutStore) GetPayout(ctx context.Context, id string) (*Payout, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM payouts WHERE id = $1", id)
	var v Payout
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("payout %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SavePayout inserts or updates v.
func (s *PayoutStore) SavePayout(ctx context.Context, v *Payout) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO payouts (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save payout %s: %w", v.ID, err)
	}
	return nil
}

// Dispute is one dispute row.
type Dispute struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// DisputeStore reads and writes disputes.
type DisputeStore struct {
	db DB
}

// GetDispute returns the dispute with this id, or ErrNotFound.
func (s *DisputeStore) GetDispute(ctx context.Context, id string) (*Dispute, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM disputes WHERE id = $1", id)
	var v Dispute
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("dispute %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveDispute inserts or updates v.
func (s *DisputeStore) SaveDispute(ctx context.Context, v *Dispute) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO disputes (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save dispute %s: %w", v.ID, err)
	}
	return nil
}

// Review is one review row.
type Review struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// ReviewStore reads and writes reviews.
type ReviewStore struct {
	db DB
}

// GetReview returns the review with this id, or ErrNotFound.
func (s *ReviewStore) GetReview(ctx context.Context, id string) (*Review, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM reviews WHERE id = $1", id)
	var v Review
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("review %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveReview inserts or updates v.
func (s *ReviewStore) SaveReview(ctx context.Context, v *Review) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO reviews (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save review %s: %w", v.ID, err)
	}
	return nil
}

// Cart is one cart row.
type Cart struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// CartStore reads and writes carts.
type CartStore struct {
	db DB
}

// GetCart returns the cart with this id, or ErrNotFound.
func (s *CartStore) GetCart(ctx context.Context, id string) (*Cart, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM carts WHERE id = $1", id)
	var v Cart
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("cart %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveCart inserts or updates v.
func (s *CartStore) SaveCart(ctx context.Context, v *Cart) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO carts (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save cart %s: %w", v.ID, err)
	}
	return nil
}

// Return is one return row.
type Return struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// ReturnStore reads and writes returns.
type ReturnStore struct {
	db DB
}

// GetReturn returns the return with this id, or ErrNotFound.
func (s *ReturnStore) GetReturn(ctx context.Context, id string) (*Return, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM returns WHERE id = $1", id)
	var v Return
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("return %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveReturn inserts or updates v.
func (s *ReturnStore) SaveReturn(ctx context.Context, v *Return) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO returns (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save return %s: %w", v.ID, err)
	}
	return nil
}

// Webhook is one webhook row.
type Webhook struct {
	ID        string
	CreatedAt time.Time
	UpdatedAt time.Time
	Status    string
}

// WebhookStore reads and writes webhooks.
type WebhookStore struct {
	db DB
}

// GetWebhook returns the webhook with this id, or ErrNotFound.
func (s *WebhookStore) GetWebhook(ctx context.Context, id string) (*Webhook, error) {
	row := s.db.QueryRow(ctx, "SELECT id, created_at, updated_at, status FROM webhooks WHERE id = $1", id)
	var v Webhook
	if err := row.Scan(&v.ID, &v.CreatedAt, &v.UpdatedAt, &v.Status); err != nil {
		return nil, fmt.Errorf("webhook %s: %w", id, ErrNotFound)
	}
	return &v, nil
}

// SaveWebhook inserts or updates v.
func (s *WebhookStore) SaveWebhook(ctx context.Context, v *Webhook) error {
	v.UpdatedAt = time.Now()
	_, err := s.db.Exec(ctx, "UPSERT INTO webhooks (id, status, updated_at) VALUES ($1, $2, $3)", v.ID, v.Status, v.UpdatedAt)
	if err != nil {
		return fmt.Errorf("save webhook %s: %w", v.ID, err)
	}
	return nil
}
