package weaviate

import (
	"context"
)

// Ready reports whether the store can serve every question, from the
// cached health of the chunk collection (Health, refreshed when older than
// HealthTTL): Weaviate answers, every shard has a replica on a live node,
// and every live replica is READY. A shard in another status fails
// readiness, so a load balancer routes elsewhere: READONLY (Weaviate sets it
// when the disk use passes DISK_USE_READONLY_PERCENTAGE, Weaviate docs
// "Environment variables", and never clears it itself) or still LOADING
// after a restart. A node that is down while its shards have live replicas
// on other nodes (replication factor above 1) does not fail readiness.
// Errors name what is not ready (IndexHealth.Problem); nil means ready.
func (s *Store) Ready(ctx context.Context) error {
	h, err := s.health.Fresh(ctx, HealthTTL)
	if err != nil {
		return err
	}
	return h.Problem()
}
