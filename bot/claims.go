package bot

import (
	"context"
	"log/slog"
	"time"
)

// ClaimStore claims deliveries across the replicas of `ragbot serve` that
// share one Slack app or Teams bot: a platform that retries an event may
// deliver the retry to another replica, whose own Deliveries never saw the
// first. Ids are Mention.DeliveryID. *weaviate.Claims implements it with the
// Weaviate Delivery collection.
type ClaimStore interface {
	// ClaimDelivery claims id for this replica, as Deliveries.Claim does
	// for one process: ok=false when an attempt on any replica answered it
	// or is answering it; replyTS is the reply a failed or abandoned
	// attempt posted, "" for none. An error means the store could not
	// tell.
	ClaimDelivery(ctx context.Context, id string) (replyTS string, ok bool, err error)
	// SetReplyDelivery records the reply posted for a claimed id.
	SetReplyDelivery(ctx context.Context, id, ts string) error
	// DoneDelivery marks a claimed id answered.
	DoneDelivery(ctx context.Context, id string) error
	// FailDelivery marks a claimed id failed: a retry may claim it again.
	FailDelivery(ctx context.Context, id string) error
}

// DeliveryClaimTTL is how long a delivery is remembered, here and in a
// ClaimStore: Slack retries an unacknowledged event after about 0 s, 1 min
// and 5 min (api.slack.com/apis/events-api#retries), so 15 minutes covers
// every retry. Claims older than it may be deleted.
const DeliveryClaimTTL = dedupeTTL

// claimTimeout bounds each ClaimStore request of an answer: a claim is two
// small Weaviate requests and a wait of weaviate.DefaultClaimSettle (100 ms).
const claimTimeout = 5 * time.Second

// claims is a Bot's dedupe: Deliveries in this process's memory, the fast
// path that needs no I/O (Handle), then, when store is set, the claim shared
// by the replicas (shared, run by the answer's goroutine). State changes go
// to both.
type claims struct {
	local *Deliveries
	store ClaimStore // nil: one process, memory only
	log   *slog.Logger
}

// Claim is Deliveries.Claim on this process's memory.
func (c *claims) Claim(id string) (replyTS string, ok bool) { return c.local.Claim(id) }

// shared claims id in the store after Claim said ok; replyTS is Claim's.
// ok is false when another replica has it. When the store cannot be
// reached, the delivery is answered anyway (fail open): a question left
// unanswered is worse than one answered twice, and an answer needs
// Weaviate's search too, so a store that is down usually means an
// "unavailable" reply rather than a duplicate answer.
func (c *claims) shared(ctx context.Context, id, replyTS string) (string, bool) {
	if c.store == nil || id == "" {
		return replyTS, true
	}
	cctx, cancel := context.WithTimeout(ctx, claimTimeout)
	defer cancel()
	ts, ok, err := c.store.ClaimDelivery(cctx, id)
	switch {
	case err != nil:
		c.log.Warn("delivery claim store unavailable; answering anyway, a retry delivered to another replica may be answered twice",
			"event_id", id, "err", err)
		return replyTS, true
	case !ok:
		// Another replica has it. Mark it failed here, so that a later
		// retry is claimed here and asks the store again (that replica's
		// attempt may fail).
		c.local.Fail(id)
		return "", false
	case ts != "":
		return ts, true
	}
	return replyTS, true
}

// SetReply records the reply of id here and in the store.
func (c *claims) SetReply(id, ts string) {
	c.local.SetReply(id, ts)
	c.write(id, "reply", func(ctx context.Context) error { return c.store.SetReplyDelivery(ctx, id, ts) })
}

// Done marks id answered here and in the store.
func (c *claims) Done(id string) {
	c.local.Done(id)
	c.write(id, "done", func(ctx context.Context) error { return c.store.DoneDelivery(ctx, id) })
}

// Fail marks id failed here and in the store.
func (c *claims) Fail(id string) {
	c.local.Fail(id)
	c.write(id, "failed", func(ctx context.Context) error { return c.store.FailDelivery(ctx, id) })
}

// write sends a state change to the store. A failure is logged: the claim
// stays in progress there, and another replica takes it over once it is
// older than the store's abandon time.
func (c *claims) write(id, what string, f func(context.Context) error) {
	if c.store == nil || id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimTimeout)
	defer cancel()
	if err := f(ctx); err != nil {
		c.log.Warn("delivery claim store: state not recorded", "event_id", id, "state", what, "err", err)
	}
}
