package weaviate_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// clock is a settable time for Claims.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// openClaims opens n Claims on one store, as n replicas would, all reading
// clk.
func openClaims(t *testing.T, n int, clk *clock) (*weaviate.Store, []*weaviate.Claims) {
	t.Helper()
	store := weaviatetest.NewStore(t, embed.OfflineName)
	var out []*weaviate.Claims
	for i := range n {
		c, err := store.OpenClaims(context.Background(), weaviate.ClaimsOptions{Holder: fmt.Sprintf("replica-%d", i), Now: clk.now})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	t.Cleanup(func() { _ = out[0].Drop(context.Background()) })
	return store, out
}

// TestClaimsRawCreateRace is the measurement behind Claims' design: racing
// POST /v1/objects with one id, several may be answered 200 (the existence
// check is not atomic with the write). It asserts only what Weaviate does
// guarantee, that the stored object is one of the winners' writes, and
// logs how many ids were won more than once.
func TestClaimsRawCreateRace(t *testing.T) {
	clk := &clock{t: time.Now()}
	_, cs := openClaims(t, 1, clk)
	base := weaviatetest.URL(t)
	const ids, racers = 200, 4
	doubles := 0
	var spread time.Duration // longest time between the first and the last 200 of one id
	for range ids {
		id := uuid.NewString()
		var wg sync.WaitGroup
		codes := make([]int, racers)
		answered := make([]time.Time, racers)
		start := make(chan struct{})
		for r := range racers {
			wg.Go(func() {
				body, _ := json.Marshal(map[string]any{"class": cs[0].Class(), "id": id,
					"properties": map[string]any{"kind": "race", "token": fmt.Sprint(r)}})
				<-start
				resp, err := http.Post(base+"/v1/objects", "application/json", bytes.NewReader(body))
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				codes[r], answered[r] = resp.StatusCode, time.Now()
			})
		}
		close(start)
		wg.Wait()
		var won []string
		var first, last time.Time
		for r, code := range codes {
			switch code {
			case http.StatusOK:
				won = append(won, fmt.Sprint(r))
				if first.IsZero() || answered[r].Before(first) {
					first = answered[r]
				}
				if answered[r].After(last) {
					last = answered[r]
				}
			case http.StatusUnprocessableEntity: // id already exists
			default:
				t.Fatalf("POST /v1/objects: status %d", code)
			}
		}
		if len(won) == 0 {
			t.Fatalf("id %s: no POST won", id)
		}
		if len(won) > 1 {
			doubles++
			spread = max(spread, last.Sub(first))
		}
		resp, err := http.Get(base + "/v1/objects/" + cs[0].Class() + "/" + id)
		if err != nil {
			t.Fatal(err)
		}
		var obj struct {
			Properties struct {
				Token string `json:"token"`
			} `json:"properties"`
		}
		err = json.NewDecoder(resp.Body).Decode(&obj)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !contains(won, obj.Properties.Token) {
			t.Errorf("id %s: stored token %q, not one of the winners %v", id, obj.Properties.Token, won)
		}
	}
	t.Logf("%d of %d ids created by more than one of %d racing POSTs (all answered 200); the 200s of one id came at most %s apart",
		doubles, ids, racers, spread)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestClaimDeliveryRace: four replicas claim the same deliveries at once;
// exactly one wins each.
func TestClaimDeliveryRace(t *testing.T) {
	clk := &clock{t: time.Now()}
	_, cs := openClaims(t, 4, clk)
	const ids = 120
	wins := make([]int, ids)
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 12) // ids in flight
	for i := range ids {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			var inner sync.WaitGroup
			start := make(chan struct{})
			for _, c := range cs {
				inner.Go(func() {
					<-start
					_, ok, err := c.ClaimDelivery(context.Background(), fmt.Sprintf("slack|Ev%04d", i))
					if err != nil {
						t.Error(err)
						return
					}
					if ok {
						mu.Lock()
						wins[i]++
						mu.Unlock()
					}
				})
			}
			close(start)
			inner.Wait()
		})
	}
	wg.Wait()
	for i, n := range wins {
		if n != 1 {
			t.Errorf("delivery Ev%04d claimed by %d replicas, want 1", i, n)
		}
	}
}

// TestClaimDeliveryStates walks a delivery through the states of
// bot.Deliveries across two replicas: a retry while it is answered or after
// it was is refused; after a failure it is claimed again with the reply to
// replace; an answer abandoned for longer than Abandoned is taken over; and
// ExpireDeliveries forgets old claims.
func TestClaimDeliveryStates(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	_, cs := openClaims(t, 2, clk)
	a, b := cs[0], cs[1]
	claim := func(c *weaviate.Claims, id, wantTS string, wantOK bool) {
		t.Helper()
		ts, ok, err := c.ClaimDelivery(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if ts != wantTS || ok != wantOK {
			t.Errorf("%s: ClaimDelivery(%q) = %q, %v; want %q, %v", c.Holder(), id, ts, ok, wantTS, wantOK)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	claim(a, "slack|Ev1", "", true)
	claim(b, "slack|Ev1", "", false) // a retry on the other replica while the first is answered
	must(a.SetReplyDelivery(ctx, "slack|Ev1", "1712345681.000400"))
	must(a.DoneDelivery(ctx, "slack|Ev1"))
	claim(b, "slack|Ev1", "", false) // after the answer
	claim(a, "slack|Ev1", "", false)

	claim(a, "slack|Ev2", "", true)
	must(a.SetReplyDelivery(ctx, "slack|Ev2", "1712345682.000500"))
	must(a.FailDelivery(ctx, "slack|Ev2"))
	claim(b, "slack|Ev2", "1712345682.000500", true) // a retry after a failure replaces the reply
	claim(a, "slack|Ev2", "", false)
	must(b.DoneDelivery(ctx, "slack|Ev2"))
	claim(a, "slack|Ev2", "", false)

	claim(a, "teams|Ev3", "", true)
	must(a.SetReplyDelivery(ctx, "teams|Ev3", "act-3"))
	clk.add(weaviate.DefaultClaimAbandoned - time.Second)
	claim(b, "teams|Ev3", "", false) // still being answered
	clk.add(2 * time.Second)
	claim(b, "teams|Ev3", "act-3", true) // its holder died: taken over
	claim(a, "teams|Ev3", "", false)

	claim(a, "", "", true) // no id: never deduplicated
	claim(b, "", "", true)

	n, err := a.ExpireDeliveries(ctx, clk.now().Add(time.Second))
	must(err)
	if n != 5 { // Ev1, Ev2 twice, Ev3 twice
		t.Errorf("ExpireDeliveries removed %d claims, want 5", n)
	}
	claim(b, "slack|Ev1", "", true) // forgotten
}

// TestLease: one holder at a time; release frees it at once; a holder that
// stops renewing loses it at expiry, and its next renewal says so; racing
// acquirers get one lease.
func TestLease(t *testing.T) {
	ctx := context.Background()
	clk := &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	_, cs := openClaims(t, 4, clk)
	a, b := cs[0], cs[1]
	const ttl = time.Minute
	renewA, releaseA, err := a.AcquireLease(ctx, "git:shop", ttl)
	if err != nil {
		t.Fatal(err)
	}
	held := func(err error, holder string) {
		t.Helper()
		var h *weaviate.LeaseHeldError
		if !errors.As(err, &h) || h.Holder != holder {
			t.Fatalf("err = %v, want the lease held by %s", err, holder)
		}
	}
	_, _, err = b.AcquireLease(ctx, "git:shop", ttl)
	held(err, "replica-0")
	clk.add(40 * time.Second)
	if err := renewA(ctx); err != nil {
		t.Fatal(err)
	}
	clk.add(40 * time.Second) // past the first expiry, not the renewed one
	_, _, err = b.AcquireLease(ctx, "git:shop", ttl)
	held(err, "replica-0")
	if err := releaseA(ctx); err != nil {
		t.Fatal(err)
	}
	renewB, _, err := b.AcquireLease(ctx, "git:shop", ttl)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	// b dies: no renewal, no release. After the TTL, a takes over.
	clk.add(ttl + time.Second)
	_, releaseA, err = a.AcquireLease(ctx, "git:shop", ttl)
	if err != nil {
		t.Fatalf("after b's lease expired: %v", err)
	}
	held(renewB(ctx), "replica-0") // b comes back: its lease is gone
	if err := releaseA(ctx); err != nil {
		t.Fatal(err)
	}

	// Racing acquirers, on a lease released several times over.
	for round := range 20 {
		wins := 0
		var mu sync.Mutex
		var wg sync.WaitGroup
		releases := make([]func(context.Context) error, len(cs))
		start := make(chan struct{})
		for i, c := range cs {
			wg.Go(func() {
				<-start
				_, release, err := c.AcquireLease(ctx, "git:race", ttl)
				var h *weaviate.LeaseHeldError
				switch {
				case err == nil:
					mu.Lock()
					wins++
					releases[i] = release
					mu.Unlock()
				case !errors.As(err, &h):
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		if wins != 1 {
			t.Fatalf("round %d: %d replicas took the lease, want 1", round, wins)
		}
		for _, r := range releases {
			if r != nil {
				if err := r(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// TestLeaseConsistencyAllOneReplica: weaviate.consistency_level ALL on a
// collection of one replica must not send GraphQL a consistencyLevel, which
// Weaviate only accepts on replicated classes (see Store.gqlLevel).
func TestLeaseConsistencyAllOneReplica(t *testing.T) {
	ctx := context.Background()
	store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: "LeaseAllOne", ConsistencyLevel: weaviate.ConsistencyAll}, embed.OfflineName)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Drop(context.Background()) })
	c, err := store.OpenClaims(ctx, weaviate.ClaimsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Drop(context.Background()) })
	for range 2 { // the second acquisition reads the first's generation
		_, release, err := c.AcquireLease(ctx, "git:x", time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		if err := release(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
