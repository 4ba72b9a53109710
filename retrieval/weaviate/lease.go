package weaviate

import (
	"context"
	"fmt"
	"time"

	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
)

// LeaseHeldError is AcquireLease's error when another replica holds the
// lease, and a renewal's when another replica took it over (this replica
// failed to renew it in time).
type LeaseHeldError struct {
	Key    string
	Holder string    // the replica holding it (ReplicaID)
	Until  time.Time // end of its lease unless renewed
}

func (e *LeaseHeldError) Error() string {
	return fmt.Sprintf("lease %q is held by %s until %s", e.Key, e.Holder, e.Until.UTC().Format(time.RFC3339))
}

// LeaseHeld returns the holder and the end of its lease (ingest.LeaseHeld).
func (e *LeaseHeldError) LeaseHeld() (holder string, until time.Time) { return e.Holder, e.Until }

// AcquireLease takes the lease named key (e.g. "git:payments") for ttl, as
// a new generation of the lease's claim (see Claims): the lease is free
// when it was never taken, when its latest holder released it, or when its
// holder let it expire (died, or lost Weaviate). renew extends it to ttl
// from now; call it well within ttl (every ttl/3). release gives it up.
// Both take the context of their own request.
//
// Errors: *LeaseHeldError when another replica holds it (renew returns one
// too when another replica took the lease over after it expired), or
// Weaviate failing.
func (c *Claims) AcquireLease(ctx context.Context, key string, ttl time.Duration) (renew, release func(context.Context) error, err error) {
	if ttl <= 0 {
		return nil, nil, fmt.Errorf("lease %q: ttl must be positive, got %s", key, ttl)
	}
	gen, found, err := c.latestLease(ctx, key)
	if err != nil {
		return nil, nil, err
	}
	for range maxGens {
		if found {
			cur, ok, err := c.get(ctx, kindLease, key, gen)
			if err != nil {
				return nil, nil, err
			}
			if !ok { // pruned since we looked: a newer generation exists
				if gen, found, err = c.latestLease(ctx, key); err != nil {
					return nil, nil, err
				}
				continue
			}
			if cur.State == leaseHeld && c.opt.Now().Before(cur.ExpiresAt) {
				return nil, nil, &LeaseHeldError{Key: key, Holder: cur.Holder, Until: cur.ExpiresAt}
			}
			gen++
		}
		now := c.opt.Now()
		won, token, err := c.create(ctx, kindLease, key, claim{Gen: gen, State: leaseHeld, ClaimedAt: now, ExpiresAt: now.Add(ttl)})
		if err != nil {
			return nil, nil, err
		}
		if won {
			c.pruneLease(ctx, key, gen)
			return c.leaseFuncs(key, gen, token, ttl)
		}
		found = true // someone created this generation: read it, and go on past it if it is already free
	}
	return nil, nil, fmt.Errorf("weaviate: lease %q: more than %d generations taken at once", key, maxGens)
}

func (c *Claims) leaseFuncs(key string, gen int, token string, ttl time.Duration) (renew, release func(context.Context) error, err error) {
	renew = func(ctx context.Context) error {
		// Another replica takes over only by creating the next generation,
		// once this one expired.
		if next, ok, err := c.get(ctx, kindLease, key, gen+1); err != nil {
			return err
		} else if ok {
			return &LeaseHeldError{Key: key, Holder: next.Holder, Until: next.ExpiresAt}
		}
		return c.merge(ctx, kindLease, key, gen, map[string]any{"expires_at": rfc3339(c.opt.Now().Add(ttl))})
	}
	release = func(ctx context.Context) error {
		return c.merge(ctx, kindLease, key, gen, map[string]any{"state": leaseReleased, "expires_at": rfc3339(c.opt.Now())})
	}
	return renew, release, nil
}

// latestLease returns the highest generation stored for the lease key;
// found is false when there is none.
func (c *Claims) latestLease(ctx context.Context, key string) (gen int, found bool, err error) {
	get := c.client.GraphQL().Get().WithClassName(c.class).WithWhere(leaseWhere(key)).
		WithSort(graphql.Sort{Path: []string{"gen"}, Order: graphql.Desc}).WithLimit(1).
		WithFields(graphql.Field{Name: "gen"}).WithConsistencyLevel(c.gql)
	resp, err := gqlResult(get.Do(ctx))
	if err != nil {
		return 0, false, fmt.Errorf("weaviate: read lease %q in %s: %w", key, c.class, describe(err))
	}
	rows, err := decodeGet[struct {
		Gen int `json:"gen"`
	}](resp, c.class)
	if err != nil {
		return 0, false, fmt.Errorf("weaviate: read lease %q: %w", key, err)
	}
	if len(rows) == 0 {
		return 0, false, nil
	}
	return rows[0].Gen, true, nil
}

func leaseWhere(key string) *filters.WhereBuilder {
	return filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		filters.Where().WithPath([]string{"kind"}).WithOperator(filters.Equal).WithValueText(kindLease),
		filters.Where().WithPath([]string{"key"}).WithOperator(filters.Equal).WithValueText(key),
	})
}

// pruneLease deletes the generations of lease key older than gen-1, which
// nobody reads again: acquirers start from the latest generation. Its
// failure only leaves them for the next winner to delete.
func (c *Claims) pruneLease(ctx context.Context, key string, gen int) {
	if gen < 2 {
		return
	}
	where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		leaseWhere(key),
		filters.Where().WithPath([]string{"gen"}).WithOperator(filters.LessThan).WithValueInt(int64(gen - 1)),
	})
	_, _ = deleteAll(ctx, c.client, c.class, c.cl, where)
}
