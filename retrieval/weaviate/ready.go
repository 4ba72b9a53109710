package weaviate

import (
	"context"
	"fmt"
)

// Ready reports whether the store can serve: Weaviate answers its readiness
// probe (GET /v1/.well-known/ready, Weaviate docs "Health checks"), and every
// shard of the chunk collection is READY (GET /v1/schema/{class}/shards). A
// shard in another status fails readiness, so a load balancer routes
// elsewhere: READONLY (Weaviate sets it when the disk use passes
// DISK_USE_READONLY_PERCENTAGE, Weaviate docs "Environment variables", and
// never clears it itself) or still LOADING after a restart. Errors name
// what is not ready; nil means ready.
func (s *Store) Ready(ctx context.Context) error {
	ok, err := s.client.Misc().ReadyChecker().Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate unreachable: %w", describe(err))
	}
	if !ok {
		return fmt.Errorf("weaviate not ready (GET /v1/.well-known/ready)")
	}
	shards, err := s.client.Schema().ShardsGetter().WithClassName(s.chunk).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: read shards of %s: %w", s.chunk, describe(err))
	}
	if len(shards) == 0 {
		return fmt.Errorf("weaviate: collection %s has no shards", s.chunk)
	}
	for _, sh := range shards {
		if sh.Status != "READY" {
			return fmt.Errorf("weaviate: shard %s/%s is %s", s.chunk, sh.Name, sh.Status)
		}
	}
	return nil
}
