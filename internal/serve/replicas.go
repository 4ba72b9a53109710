package serve

import (
	"context"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/weaviate"
)

// Several `ragbot serve` replicas share one Weaviate (docs/deploy.md,
// "Scaling out"): chat deliveries are claimed once across them, and each
// source's index runs take a lease, both in the Delivery collection
// (weaviate.Claims).
var (
	_ bot.ClaimStore = (*weaviate.Claims)(nil)
	_ ingest.Leaser  = (*weaviate.Claims)(nil)
)

// claimsExpireSpec is how often serve deletes the delivery claims older
// than bot.DeliveryClaimTTL; every replica does it, and deleting what
// another replica just deleted is no error.
const claimsExpireSpec = "@every 15m"

// openClaims opens the Delivery collection for this replica and schedules
// the expiry of old delivery claims on s.sched.
func (s *Server) openClaims(ctx context.Context) error {
	claims, err := s.store.OpenClaims(ctx, weaviate.ClaimsOptions{})
	if err != nil {
		return err
	}
	s.claims = claims
	s.log.Info("replica", "id", claims.Holder(), "claims", claims.Class())
	return s.sched.Add("claims:expire", claimsExpireSpec, time.Now(), func(ctx context.Context) error {
		n, err := claims.ExpireDeliveries(ctx, time.Now().Add(-bot.DeliveryClaimTTL))
		if err == nil && n > 0 {
			s.log.Debug("expired delivery claims", "deleted", n)
		}
		return err
	})
}

// indexLease is the lease that index runs of a source take before they
// start, so that one replica runs them at a time.
func (s *Server) indexLease() ingest.Leased {
	return ingest.Leased{Leaser: s.claims, TTL: ingest.DefaultLeaseTTL, Log: s.log}
}
