package ingest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Leaser grants leases that make a piece of work exclusive across the
// replicas of `ragbot serve` sharing one Weaviate (the local lock file of
// Indexer.LockDir only covers one machine). *weaviate.Claims implements it
// with the Weaviate Delivery collection.
type Leaser interface {
	// AcquireLease takes the lease named key for ttl. renew extends it to
	// ttl from now; release gives it up. A lease not renewed within ttl
	// may be taken over by another replica. Errors: a LeaseHeld when
	// another replica holds it (renew returns one too once another replica
	// took it over), or the store failing.
	AcquireLease(ctx context.Context, key string, ttl time.Duration) (renew, release func(context.Context) error, err error)
}

// LeaseHeld is implemented by the error of a Leaser when another replica
// holds the lease: holder names it, until is the end of its lease unless
// renewed.
type LeaseHeld interface {
	error
	LeaseHeld() (holder string, until time.Time)
}

// DefaultLeaseTTL is the lease of an index run: renewed every third of it,
// so a replica that dies mid-run holds its sources at most this long. Two
// minutes is long against a renewal (two small Weaviate requests) and short
// against a poll interval or a Confluence TTL.
const DefaultLeaseTTL = 2 * time.Minute

// Leased runs work under a lease of Leaser. The zero TTL, Clock and Log
// take DefaultLeaseTTL, the system clock and slog.Default().
type Leased struct {
	Leaser Leaser
	TTL    time.Duration
	Clock  Clock
	Log    *slog.Logger
}

func (l *Leased) ttl() time.Duration {
	if l.TTL > 0 {
		return l.TTL
	}
	return DefaultLeaseTTL
}

// Run takes the lease key and runs fn while renewing it every TTL/3, then
// releases it. When another replica holds the lease, fn does not run and
// held says who (err is nil). When a renewal finds that another replica
// took the lease over (this one could not renew it in time), fn's context
// is cancelled with that cause. A renewal that fails otherwise is logged
// and tried again at the next third. err is fn's, or the failure to take
// the lease (Weaviate down: indexing cannot work either).
func (l *Leased) Run(ctx context.Context, key string, fn func(context.Context) error) (held LeaseHeld, err error) {
	ttl, clock, log := l.ttl(), l.Clock, cmp.Or(l.Log, slog.Default())
	if clock == nil {
		clock = realClock{}
	}
	renew, release, err := l.Leaser.AcquireLease(ctx, key, ttl)
	if h, ok := errors.AsType[LeaseHeld](err); ok {
		return h, nil
	}
	if err != nil {
		return nil, fmt.Errorf("lease %s: %w", key, err)
	}
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // exits when fn has returned (stop) or the lease is lost
		for {
			select {
			case <-stop:
				return
			case <-clock.After(ttl / 3):
			}
			rctx, rcancel := context.WithTimeout(runCtx, ttl/3)
			err := renew(rctx)
			rcancel()
			if h, ok := errors.AsType[LeaseHeld](err); ok {
				holder, _ := h.LeaseHeld()
				log.Error("lease lost to another replica; stopping the run", "lease", key, "holder", holder)
				cancel(fmt.Errorf("lease %s lost: %w", key, h))
				return
			}
			if err != nil && runCtx.Err() == nil {
				log.Warn("lease not renewed; trying again", "lease", key, "err", err)
			}
		}
	})
	err = fn(runCtx)
	close(stop)
	wg.Wait()
	rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer rcancel()
	if rerr := release(rctx); rerr != nil {
		log.Warn("lease not released; it expires by itself", "lease", key, "ttl", ttl, "err", rerr)
	}
	return nil, err
}
