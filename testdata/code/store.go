// Package cache keeps recently used records in memory.
package cache

import (
	"context"
	"errors"
	"sync"
	"time"
)

// DefaultTTL is how long an entry lives when no TTL is given.
const DefaultTTL = 5 * time.Minute

var (
	// DefaultRouteOpts are the options of routes registered without any.
	DefaultRouteOpts = RouteOpts{Timeout: 30 * time.Second, Retries: 2}
	registry         = map[string]*Store[any]{}
)

// RouteOpts tune one route.
type RouteOpts struct {
	Timeout time.Duration
	Retries int
}

// Loader fetches a record that is not cached.
type Loader[T any] interface {
	Load(ctx context.Context, key string) (T, error)
}

// Store is a TTL cache safe for concurrent use.
type Store[T any] struct {
	mu      sync.Mutex
	entries map[string]entry[T]
	loader  Loader[T]
}

type entry[T any] struct {
	value   T
	expires time.Time
}

func init() {
	registry["default"] = &Store[any]{entries: map[string]entry[any]{}}
}

// Get returns the cached value of key, loading it on a miss.
// It returns the loader's error unchanged.
func (s *Store[T]) Get(ctx context.Context, key string) (T, error) {
	s.mu.Lock()
	e, ok := s.entries[key]
	s.mu.Unlock()
	if ok && time.Now().Before(e.expires) {
		return e.value, nil
	}
	v, err := s.loader.Load(ctx, key)
	if err != nil {
		return v, err
	}
	s.Put(key, v, DefaultTTL)
	return v, nil
}

// Put stores value under key for ttl.
func (s *Store[T]) Put(key string, value T, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries[key] = entry[T]{value: value, expires: time.Now().Add(ttl)}
}

func (e entry[T]) expired(now time.Time) bool { return now.After(e.expires) }

func init() {
	registry["routes"] = &Store[any]{entries: map[string]entry[any]{}}
}

// Validate reports a negative timeout or retry count.
func (o *RouteOpts) Validate() error {
	if o.Timeout < 0 || o.Retries < 0 {
		return errors.New("cache: route opts: timeout and retries must not be negative")
	}
	return nil
}
