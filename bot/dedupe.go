package bot

import (
	"sync"
	"time"
)

// Deliveries remembers event deliveries for a while, so that a platform's
// retry of an event never produces a second answer. A retry of a delivery
// being answered, or answered, is refused; a retry of one whose answer failed
// is allowed again and gets the reply id the failed attempt posted, so it
// replaces that reply instead of posting another. Entries live TTL and at
// most Max are kept (the oldest go first). It is safe for concurrent use.
type Deliveries struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu    sync.Mutex
	byID  map[string]*delivery
	order []string // ids by claim time, oldest first
}

type delivery struct {
	state   deliveryState
	replyTS string
	at      time.Time // first claim
}

type deliveryState int

const (
	inProgress deliveryState = iota
	done
	failed
)

// NewDeliveries returns an empty set that forgets ids after ttl and keeps at
// most max of them.
func NewDeliveries(ttl time.Duration, max int, now func() time.Time) *Deliveries {
	return &Deliveries{ttl: ttl, max: max, now: now, byID: map[string]*delivery{}}
}

// Claim starts handling the delivery id. It returns ok=false when id is being
// or was handled; replyTS is the reply a failed earlier attempt left, or "".
// An empty id is always claimed.
func (d *Deliveries) Claim(id string) (replyTS string, ok bool) {
	if id == "" {
		return "", true
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(0)
	if e, seen := d.byID[id]; seen {
		if e.state != failed {
			return "", false
		}
		e.state = inProgress
		return e.replyTS, true
	}
	d.expire(1)
	d.byID[id] = &delivery{state: inProgress, at: d.now()}
	d.order = append(d.order, id)
	return "", true
}

// SetReply records the id of the reply posted for delivery id.
func (d *Deliveries) SetReply(id, ts string) { d.update(id, func(e *delivery) { e.replyTS = ts }) }

// Done marks delivery id answered: its retries are refused.
func (d *Deliveries) Done(id string) { d.update(id, func(e *delivery) { e.state = done }) }

// Fail marks delivery id failed: a retry may try again.
func (d *Deliveries) Fail(id string) { d.update(id, func(e *delivery) { e.state = failed }) }

func (d *Deliveries) update(id string, f func(*delivery)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.byID[id]; ok {
		f(e)
	}
}

// Len returns how many deliveries are remembered.
func (d *Deliveries) Len() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.expire(0)
	return len(d.byID)
}

// expire drops entries older than ttl, and the oldest until room more fit
// under max.
func (d *Deliveries) expire(room int) {
	now := d.now()
	drop := 0
	for drop < len(d.order) {
		e := d.byID[d.order[drop]]
		if now.Sub(e.at) < d.ttl && len(d.order)-drop+room <= d.max {
			break
		}
		delete(d.byID, d.order[drop])
		drop++
	}
	if drop > 0 {
		d.order = append(d.order[:0:0], d.order[drop:]...)
	}
}
