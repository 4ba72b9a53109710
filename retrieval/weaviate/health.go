package weaviate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// HealthTTL is how long a health check of the chunk collection is reused
// (Health): answers and /readyz read the cached verdict, so Weaviate sees at
// most one check (three small GETs) per HealthTTL from each ragbot process,
// and a node that went down shows in answers within about HealthTTL plus
// Weaviate's own failure detection (GET /v1/nodes listed a SIGKILLed local
// node UNAVAILABLE at once and dropped it within 1-8 s here, Weaviate
// v1.39.2 with CLUSTER_IN_LOCALHOST; docs/deploy.md, "Scaling out").
const HealthTTL = 5 * time.Second

// maxStale, in TTLs, is how old a verdict an answer takes without waiting
// for a new check (Health.Current).
const maxStale = 3

// healthCheckTimeout bounds one health check (its requests run at once), so
// an answer that has to wait for the first check waits at most this long.
const healthCheckTimeout = 2 * time.Second

// IndexHealth is what Weaviate says about the chunk collection's shards at
// CheckedAt: whether every shard has a replica on a live node, and which
// shards are not READY. Read from GET /v1/nodes/{class}?output=verbose (the
// live nodes, each with its replicas of the class's shards and their status,
// Weaviate REST docs "Nodes"), GET /v1/schema/{class} (the shard count,
// shardingConfig.actualCount, and replicationConfig.factor) and GET
// /v1/cluster/statistics (the Raft voters: the nodes there should be,
// including those that memberlist dropped from /v1/nodes after they died).
// None of the three needs the Raft leader, so the check answers while a
// new leader is being elected.
type IndexHealth struct {
	CheckedAt time.Time
	// Err is set when the check failed (Weaviate unreachable, the
	// collection missing, a request refused); the other fields are then
	// zero.
	Err error
	// Class is the chunk collection.
	Class string
	// Nodes are the nodes of the cluster: the Raft voters and the nodes
	// /v1/nodes lists, sorted.
	Nodes []string
	// Down are the Nodes that /v1/nodes does not list as HEALTHY (absent,
	// UNHEALTHY, UNAVAILABLE, TIMEOUT), sorted.
	Down []string
	// Shards is how many shards the collection has; Factor its replication
	// factor.
	Shards, Factor int
	// Unavailable is how many shards have no replica on a HEALTHY node:
	// the part of the index no search reads now.
	Unavailable int
	// Status maps a shard to the status of its replicas that is not READY
	// (READONLY, LOADING, INDEXING: vectorIndexingStatus, which Weaviate
	// fills with the shard's status); shards whose live replicas are all
	// READY are absent.
	Status map[string]string
	// Pending is how many chunks wait for their semantic vector: 0 as soon
	// as none does, otherwise a count up to PendingCountTTL old; set by
	// Store.Health's checks only.
	Pending int
}

// Known reports whether a check has finished (successfully or not).
func (h IndexHealth) Known() bool { return !h.CheckedAt.IsZero() }

// Complete reports whether the check succeeded and every shard is
// readable on some live node.
func (h IndexHealth) Complete() bool { return h.Known() && h.Err == nil && h.Unavailable == 0 }

// ReadOnly lists the shards that have a READONLY replica, sorted. Weaviate
// marks shards READONLY when the disk use passes DISK_USE_READONLY_PERCENTAGE
// (Weaviate docs, "Environment variables") and never clears it itself.
func (h IndexHealth) ReadOnly() []string {
	return slices.DeleteFunc(slices.Sorted(maps.Keys(h.Status)), func(sh string) bool { return h.Status[sh] != "READONLY" })
}

// Warnings are the notices an answer carries about the index: part of it
// unavailable (searches read the shards that are left, so results may be
// incomplete), or read-only (new commits are not indexed). None when the
// check failed or has not finished: the answer itself says whether
// Weaviate answered.
func (h IndexHealth) Warnings() []string {
	if !h.Known() || h.Err != nil {
		return nil
	}
	var out []string
	if h.Unavailable > 0 {
		what := fmt.Sprintf("%d of %d shards unreachable", h.Unavailable, h.Shards)
		if len(h.Down) > 0 {
			what = fmt.Sprintf("%d of %d Weaviate nodes down", len(h.Down), len(h.Nodes))
		}
		out = append(out, "Part of the index is unavailable ("+what+"); results may be incomplete.")
	}
	if ro := h.ReadOnly(); len(ro) > 0 {
		out = append(out, fmt.Sprintf("The index is read-only (%d of %d shards READONLY in Weaviate, usually after its disk filled up); new commits are not being indexed.",
			len(ro), h.Shards))
	}
	if h.Pending > 0 {
		out = append(out, fmt.Sprintf("%d chunks are indexed without their semantic vector yet (ragbot index is still filling them in, or the embedding endpoint failed while indexing); until they have it they are found by keywords only.", h.Pending))
	}
	return out
}

// unusable is what Problem and Readiness share: the collection was not
// checked, the check failed, or it has no shards; nil otherwise.
func (h IndexHealth) unusable() error {
	switch {
	case !h.Known():
		return errors.New("weaviate: not checked yet")
	case h.Err != nil:
		return h.Err
	case h.Shards == 0:
		return fmt.Errorf("weaviate: collection %s has no shards", h.Class)
	}
	return nil
}

// Problem is nil when the collection can serve every question: the check
// succeeded, every shard has a live replica and all of them are READY.
// Otherwise it says what is wrong, naming Weaviate, the collection and the
// shard. A node that is down while its shards have live replicas elsewhere
// is no problem.
func (h IndexHealth) Problem() error {
	if err := h.unusable(); err != nil {
		return err
	}
	if h.Unavailable > 0 {
		return fmt.Errorf("weaviate: %d of %d shards of %s have no live replica (nodes down: %s)",
			h.Unavailable, h.Shards, h.Class, strings.Join(h.Down, ", "))
	}
	if len(h.Status) > 0 {
		first := slices.Sorted(maps.Keys(h.Status))[0]
		return fmt.Errorf("weaviate: shard %s/%s is %s", h.Class, first, h.Status[first])
	}
	return nil
}

// Health caches the store's IndexHealth for HealthTTL. A verdict up to
// maxStale old is returned at once while a new check runs in the
// background, so with steady traffic answers never wait on Weaviate for it;
// the first answer of a process, or the first after a quiet spell, waits
// for one check (at most healthCheckTimeout), so that it does not carry a
// verdict from long ago. Safe for concurrent use.
type Health struct {
	check func(context.Context) IndexHealth
	ttl   time.Duration
	now   func() time.Time
	log   *slog.Logger

	mu      sync.Mutex
	last    IndexHealth
	running chan struct{} // non-nil while a check runs, closed when it ends
}

func newHealth(s *Store) *Health {
	return &Health{check: s.checkHealth, ttl: HealthTTL, now: time.Now, log: s.log}
}

// Health is the store's cached health of the chunk collection.
func (s *Store) Health() *Health { return s.health }

// Current returns the latest verdict, starting a check when it is older
// than the TTL. Only when there is none yet, or it is older than maxStale,
// does it wait, for that check or until ctx ends; the result may then be
// unknown (IndexHealth.Known) or old.
func (h *Health) Current(ctx context.Context) IndexHealth {
	h.mu.Lock()
	age := h.now().Sub(h.last.CheckedAt)
	if h.last.Known() && age < h.ttl {
		defer h.mu.Unlock()
		return h.last
	}
	done := h.startLocked()
	if h.last.Known() && age < maxStale*h.ttl {
		defer h.mu.Unlock()
		return h.last
	}
	h.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

// Fresh returns a verdict at most maxAge old, waiting for a new check when
// the cached one is older (or until ctx ends: then an error).
func (h *Health) Fresh(ctx context.Context, maxAge time.Duration) (IndexHealth, error) {
	h.mu.Lock()
	if h.last.Known() && h.now().Sub(h.last.CheckedAt) < maxAge {
		defer h.mu.Unlock()
		return h.last, nil
	}
	done := h.startLocked()
	h.mu.Unlock()
	select {
	case <-done:
	case <-ctx.Done():
		return IndexHealth{}, fmt.Errorf("weaviate: health check: %w", context.Cause(ctx))
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last, nil
}

// startLocked starts a check unless one is running, and returns the
// channel closed when it ends. h.mu must be held.
func (h *Health) startLocked() <-chan struct{} {
	if h.running != nil {
		return h.running
	}
	done := make(chan struct{})
	h.running = done
	go func() {
		// Its own deadline: the check outlives the answer that started it.
		ctx, cancel := context.WithTimeout(context.Background(), healthCheckTimeout)
		got := h.check(ctx)
		cancel()
		got.CheckedAt = h.now()
		h.mu.Lock()
		prev := h.last
		h.last, h.running = got, nil
		h.mu.Unlock()
		close(done)
		h.logChange(prev, got)
	}()
	return done
}

// logChange logs a verdict that differs from the previous one: once when
// part of the index becomes unavailable or the check starts failing, once
// when it recovers.
func (h *Health) logChange(prev, cur IndexHealth) {
	was, is := problemText(prev), problemText(cur)
	switch {
	case is == was:
	case is != "":
		h.log.Warn("weaviate index health", "problem", is, "nodes_down", cur.Down)
	case prev.Known():
		h.log.Info("weaviate index health recovered", "class", cur.Class)
	}
}

func problemText(h IndexHealth) string {
	if !h.Known() {
		return ""
	}
	if err := h.Problem(); err != nil {
		return err.Error()
	}
	return ""
}

// HealthGuard is the retrieval.Guard that adds IndexHealth.Warnings to
// every answer: part of the index unavailable, or read-only. It reads the
// cached verdict (Health.Current), never failing the answer.
type HealthGuard struct{ Store *Store }

// Guard implements retrieval.Guard.
func (g HealthGuard) Guard(ctx context.Context, _ retrieval.Request, ans *retrieval.Answer) error {
	h := g.Store.Health().Current(ctx)
	ans.Warnings = append(ans.Warnings, h.Warnings()...)
	return nil
}

// checkHealth reads the three endpoints at once (see IndexHealth), then
// the chunks waiting for their semantic vector (healthPending).
func (s *Store) checkHealth(ctx context.Context) IndexHealth {
	h := CheckHealth(ctx, s.http, s.base, s.apiKey, s.chunk)
	if h.Err == nil {
		if n, err := s.healthPending(ctx); err == nil {
			h.Pending = n
		}
	}
	return h
}

// CheckHealth checks the health of collection class on the Weaviate at
// base (scheme://host:port) through hc, with apiKey as a bearer token when
// not empty (see IndexHealth; Store.Health caches it). CheckedAt is when
// the check ended.
func CheckHealth(ctx context.Context, hc *http.Client, base, apiKey, class string) (h IndexHealth) {
	h.Class = class
	defer func() { h.CheckedAt = time.Now() }()
	var nodes struct {
		Nodes []struct {
			Name   string `json:"name"`
			Status string `json:"status"`
			Shards []struct {
				Name   string `json:"name"`
				Class  string `json:"class"`
				Status string `json:"vectorIndexingStatus"`
			} `json:"shards"`
		} `json:"nodes"`
	}
	var schema struct {
		Sharding struct {
			ActualCount int `json:"actualCount"`
		} `json:"shardingConfig"`
		Replication struct {
			Factor int `json:"factor"`
		} `json:"replicationConfig"`
	}
	var stats struct {
		Statistics []struct {
			Raft struct {
				Configuration []struct {
					ID string `json:"id"`
				} `json:"latestConfiguration"`
			} `json:"raft"`
		} `json:"statistics"`
	}
	get := func(path string, v any) error { return getJSON(ctx, hc, base+path, apiKey, nil, v) }
	var nodesErr, schemaErr, statsErr error
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); nodesErr = get("/v1/nodes/"+url.PathEscape(class)+"?output=verbose", &nodes) }()
	go func() {
		// "consistency: false" reads the node's own copy of the schema
		// instead of asking the Raft leader (Weaviate REST docs, "Get a
		// single collection"): after the leader died, until another is
		// elected (about 10 s here), the default read waits.
		defer wg.Done()
		schemaErr = getJSON(ctx, hc, base+"/v1/schema/"+url.PathEscape(class), apiKey, http.Header{"Consistency": {"false"}}, &schema)
	}()
	go func() { defer wg.Done(); statsErr = get("/v1/cluster/statistics", &stats) }()
	wg.Wait()
	if err := errors.Join(nodesErr, schemaErr); err != nil {
		var st statusError
		switch {
		case errors.As(err, &st) && st.code == http.StatusNotFound:
			h.Err = fmt.Errorf("weaviate: collection %s %w (run `ragbot index`)", class, ErrNoCollection)
		case errors.As(err, &st) && (st.code == http.StatusForbidden || st.code == http.StatusUnauthorized):
			// With RBAC, GET /v1/nodes needs the nodes read permission at
			// verbose level for the collection (Weaviate docs, "RBAC").
			h.Err = fmt.Errorf("weaviate refused the health check of %s (grant ragbot's API key read access to nodes and to the collection's schema): %w", class, err)
		case errors.As(err, &st):
			h.Err = fmt.Errorf("weaviate refusing the health check of %s: %w", class, err)
		default:
			h.Err = fmt.Errorf("weaviate unreachable: %w: %w", ErrUnreachable, err)
		}
		return h
	}
	h.Shards, h.Factor = schema.Sharding.ActualCount, schema.Replication.Factor
	known := map[string]bool{}
	if statsErr == nil { // optional: without it, nodes dropped from /v1/nodes go uncounted
		for _, st := range stats.Statistics {
			for _, c := range st.Raft.Configuration {
				if c.ID != "" {
					known[c.ID] = true
				}
			}
		}
	}
	healthy := map[string]bool{}
	live := map[string]bool{} // shards with a replica on a HEALTHY node
	for _, n := range nodes.Nodes {
		known[n.Name] = true
		if n.Status != "HEALTHY" {
			continue
		}
		healthy[n.Name] = true
		for _, sh := range n.Shards {
			if sh.Class != "" && sh.Class != class {
				continue
			}
			live[sh.Name] = true
			if sh.Status != "" && sh.Status != "READY" {
				if h.Status == nil {
					h.Status = map[string]string{}
				}
				h.Status[sh.Name] = sh.Status
			}
		}
	}
	h.Nodes = slices.Sorted(maps.Keys(known))
	for _, n := range h.Nodes {
		if !healthy[n] {
			h.Down = append(h.Down, n)
		}
	}
	h.Unavailable = max(h.Shards-len(live), 0)
	return h
}

// ErrNoCollection is wrapped by IndexHealth.Err when the collection does
// not exist.
var ErrNoCollection = errors.New("does not exist")

// ErrUnreachable is wrapped by IndexHealth.Err when Weaviate did not
// answer the health check (connection refused, timeout).
var ErrUnreachable = errors.New("no answer")

// statusError is a non-200 reply of a health request.
type statusError struct {
	code int
	msg  string
}

func (e statusError) Error() string { return e.msg }

func getJSON(ctx context.Context, hc *http.Client, u, apiKey string, header http.Header, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	for k, vs := range header {
		req.Header[k] = vs
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return statusError{code: resp.StatusCode, msg: fmt.Sprintf("GET %s: %s %s", req.URL.Path, resp.Status, strings.TrimSpace(string(body)))}
	}
	return json.NewDecoder(resp.Body).Decode(v)
}
