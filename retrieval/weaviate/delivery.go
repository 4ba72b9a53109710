package weaviate

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate/entities/models"
)

// Claims is the Weaviate collection through which several `ragbot serve`
// replicas sharing one Weaviate do a piece of work once: answer a chat
// delivery (ClaimDelivery) and run the index runs of a source (AcquireLease).
// It is "Delivery", or <chunk collection>Delivery beside a custom chunk
// collection, and has no vectors. It is safe for concurrent use.
//
// # What is atomic
//
// Weaviate has no compare-and-set on objects, and POST /v1/objects with an
// id that exists ("id ... already exists", HTTP 422) is not atomic: the
// handler checks that the id is free (usecases/objects/add.go,
// checkIDOrAssignNew, a read) and then writes the object with an upsert
// (adapters/repos/db/shard_write_put.go, putObjectLSM), outside any lock
// spanning both; two POSTs racing on one id can both pass the check, both
// answer 200, and the later write replaces the earlier one
// (TestClaimsRawCreateRace counts how often). What is serialised is the
// write itself: the shard takes a per-object lock (docIdLock) around reading
// the previous version and writing the next, so once every racing write has
// landed, every reader sees the same last one.
//
// A claim therefore creates its object, waits Settle for the writes of
// racing creators (each passed its existence check before our write landed,
// so each is within one request of landing), and reads the object back: the
// claimant whose random token is stored won, every other one lost. Exactly
// one wins as long as no racing request stalls longer than Settle between
// its existence check and its write, inside one Weaviate process.
//
// Taking over a claim (a failed answer, a holder that died, an expired
// lease) never rewrites the claimed object: it creates the next generation,
// the id of key and gen+1, with the same create-and-read-back, so two
// replicas taking over at once race on one new id and one of them wins.
// Only the winner of a generation writes to it afterwards (its state,
// reply, expiry), with merges (PATCH) of its own properties.
//
// With a replicated collection the claims are written and read at
// consistency ALL, whatever weaviate.consistency_level says: every reader
// then reads every replica, and Weaviate's read repair settles a conflict on
// the newest write everywhere alike. ALL counts the replicas on the nodes
// Weaviate sees as live: a claim made right after a node died can fail
// (until Weaviate drops the node: within 25 s in docs/deploy.md's test);
// after that claims succeed with the node still down.
type Claims struct {
	client *weaviate.Client
	class  string
	cl     string
	gql    string // level of GraphQL reads: cl when replicated, else none (see Store.gqlLevel)
	holder string
	opt    ClaimsOptions

	mu   sync.Mutex
	mine map[string]heldGen // delivery id -> the generation this replica holds
}

type heldGen struct {
	gen   int
	token string
}

// ClaimsOptions tune Claims. Zero values take the defaults.
type ClaimsOptions struct {
	// Holder names this replica in the claims it wins (logs, LeaseHeldError).
	// [ReplicaID()]
	Holder string
	// Settle is the wait between creating a claim and reading it back (see
	// Claims). [DefaultClaimSettle]
	Settle time.Duration
	// Abandoned is how long a delivery may stay "in progress" before another
	// replica takes it over, its holder presumed dead. [DefaultClaimAbandoned]
	Abandoned time.Duration
	// Now is the clock. [time.Now]
	Now func() time.Time
}

// Claim defaults. DefaultClaimSettle is 10 times the longest gap measured
// between the answers of two POSTs that both created one id (4 racers on
// 200 ids, a local Weaviate on a loaded 2-core machine: 15 to 18 ids
// created twice, their 200s at most 10 ms apart; TestClaimsRawCreateRace
// logs both figures); DefaultClaimAbandoned is a little over
// config.DefaultAnswerTimeout plus a reply, and under Slack's 5 minutes
// between its last two retries (api.slack.com/apis/events-api#retries).
const (
	DefaultClaimSettle    = 100 * time.Millisecond
	DefaultClaimAbandoned = 2 * time.Minute
)

// Claim states: a delivery is in progress, done or failed; a lease is held
// or released.
const (
	claimInProgress = "in_progress"
	claimDone       = "done"
	claimFailed     = "failed"
	leaseHeld       = "held"
	leaseReleased   = "released"
)

// Kinds of claim, the kind property.
const (
	kindDelivery = "delivery"
	kindLease    = "lease"
)

// maxGens bounds the attempts of one claim: each generation it walks
// through is a failed or abandoned attempt, so a real delivery has one or
// two.
const maxGens = 16

// OpenClaims returns the claims collection that goes with the store's chunk
// collection, creating it if missing. Errors: the schema request failed, or
// the collection has another replication factor (ErrReplicationMismatch).
func (s *Store) OpenClaims(ctx context.Context, opt ClaimsOptions) (*Claims, error) {
	name := companion(s.chunk, "Delivery")
	opt.Holder = cmp.Or(opt.Holder, ReplicaID())
	if opt.Settle <= 0 {
		opt.Settle = DefaultClaimSettle
	}
	if opt.Abandoned <= 0 {
		opt.Abandoned = DefaultClaimAbandoned
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	cl, gql := s.cl, ""
	if s.repl > 1 {
		cl, gql = ConsistencyAll, ConsistencyAll
	}
	c := &Claims{client: s.client, class: name, cl: cl, gql: gql, holder: opt.Holder, opt: opt, mine: map[string]heldGen{}}
	if _, err := s.ensureClass(ctx, claimsClass(name)); err != nil {
		return nil, err
	}
	return c, nil
}

// Class is the name of the collection.
func (c *Claims) Class() string { return c.class }

// Holder is this replica's name in its claims.
func (c *Claims) Holder() string { return c.holder }

func claimsClass(name string) *models.Class {
	text := func(n string) *models.Property {
		return &models.Property{Name: n, DataType: []string{"text"}, Tokenization: tokField, IndexSearchable: boolp(false)}
	}
	return &models.Class{
		Class:       name,
		Description: "ragbot claims: chat deliveries answered and index leases held, across serve replicas",
		Vectorizer:  "none",
		Properties: []*models.Property{
			text("kind"), text("key"), text("holder"), text("token"), text("state"), text("reply"),
			{Name: "gen", DataType: []string{"int"}},
			{Name: "claimed_at", DataType: []string{"date"}},
			{Name: "expires_at", DataType: []string{"date"}},
		},
	}
}

// ReplicaID names this process among the replicas: host name, process id
// and 4 random bytes (a restarted process on the same host with the same
// pid is another replica).
func ReplicaID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown-host"
	}
	return fmt.Sprintf("%s-%d-%s", host, os.Getpid(), randomToken(4))
}

func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b)
}

// claimID is the object id of generation gen of the claim kind/key.
func claimID(kind, key string, gen int) string {
	return uuid.NewSHA1(uuid.NameSpaceDNS, fmt.Appendf(nil, "claim|%s|%s|%d", kind, key, gen)).String()
}

// claim is one generation of a claim as stored.
type claim struct {
	Gen       int
	Holder    string
	Token     string
	State     string
	Reply     string
	ClaimedAt time.Time
	ExpiresAt time.Time
}

func (c *Claims) props(kind, key string, cl claim) map[string]any {
	return map[string]any{
		"kind": kind, "key": key, "gen": cl.Gen, "holder": cl.Holder, "token": cl.Token, "state": cl.State,
		"reply": cl.Reply, "claimed_at": rfc3339(cl.ClaimedAt), "expires_at": rfc3339(cl.ExpiresAt),
	}
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// create tries to create generation cl.Gen of kind/key with a fresh token
// and reports whether this call won it (see Claims): false when the object
// existed, or when a racing creator's write is the one stored.
func (c *Claims) create(ctx context.Context, kind, key string, cl claim) (won bool, token string, err error) {
	cl.Token, cl.Holder = randomToken(16), c.holder
	id := claimID(kind, key, cl.Gen)
	_, err = c.client.Data().Creator().WithClassName(c.class).WithID(id).WithProperties(c.props(kind, key, cl)).
		WithConsistencyLevel(c.cl).Do(ctx)
	if alreadyExists(err) {
		return false, "", nil
	}
	if err != nil {
		return false, "", fmt.Errorf("weaviate: create claim %s %q #%d in %s: %w", kind, key, cl.Gen, c.class, describe(err))
	}
	select {
	case <-time.After(c.opt.Settle):
	case <-ctx.Done():
		return false, "", ctx.Err()
	}
	got, ok, err := c.get(ctx, kind, key, cl.Gen)
	if err != nil || !ok {
		return false, "", err
	}
	return got.Token == cl.Token, cl.Token, nil
}

// get reads generation gen of kind/key; ok is false when there is none.
func (c *Claims) get(ctx context.Context, kind, key string, gen int) (cl claim, ok bool, err error) {
	objs, err := c.client.Data().ObjectsGetter().WithClassName(c.class).WithID(claimID(kind, key, gen)).
		WithConsistencyLevel(c.cl).Do(ctx)
	if isNotFound(err) || (err == nil && len(objs) == 0) {
		return claim{}, false, nil
	}
	if err != nil {
		return claim{}, false, fmt.Errorf("weaviate: read claim %s %q #%d in %s: %w", kind, key, gen, c.class, describe(err))
	}
	p, _ := objs[0].Properties.(map[string]any)
	str := func(k string) string { v, _ := p[k].(string); return v }
	tm := func(k string) time.Time { t, _ := time.Parse(time.RFC3339Nano, str(k)); return t }
	g, _ := p["gen"].(float64)
	return claim{Gen: int(g), Holder: str("holder"), Token: str("token"), State: str("state"), Reply: str("reply"),
		ClaimedAt: tm("claimed_at"), ExpiresAt: tm("expires_at")}, true, nil
}

// merge writes props into generation gen of kind/key (PATCH: the other
// properties stay). Errors: the object is gone (expired), Weaviate failed.
func (c *Claims) merge(ctx context.Context, kind, key string, gen int, props map[string]any) error {
	err := c.client.Data().Updater().WithMerge().WithClassName(c.class).WithID(claimID(kind, key, gen)).
		WithProperties(props).WithConsistencyLevel(c.cl).Do(ctx)
	if err != nil {
		return fmt.Errorf("weaviate: update claim %s %q #%d in %s: %w", kind, key, gen, c.class, describe(err))
	}
	return nil
}

// ClaimDelivery claims the chat delivery id (bot.Mention.DeliveryID: a
// Slack event id, "Ev…", or a Teams activity's "msteams|conversation|id",
// so the platform is part of the key) for this replica. ok is false
// when another attempt, on any replica, answered it, or is answering it and
// has been for less than ClaimsOptions.Abandoned. replyTS is the reply an
// earlier failed or abandoned attempt posted, to be replaced rather than
// posted again ("" for none). An empty id is always claimed. Errors:
// Weaviate unreachable or failing; the caller decides what a claim it
// cannot make means (bot fails open).
func (c *Claims) ClaimDelivery(ctx context.Context, id string) (replyTS string, ok bool, err error) {
	if id == "" {
		return "", true, nil
	}
	carried, gen := "", 0
	for range maxGens {
		now := c.opt.Now()
		won, token, err := c.create(ctx, kindDelivery, id, claim{Gen: gen, State: claimInProgress, Reply: carried,
			ClaimedAt: now, ExpiresAt: now.Add(c.opt.Abandoned)})
		if err != nil {
			return "", false, err
		}
		if won {
			c.mu.Lock()
			c.mine[id] = heldGen{gen: gen, token: token}
			c.mu.Unlock()
			return carried, true, nil
		}
		cur, found, err := c.get(ctx, kindDelivery, id, gen)
		if err != nil {
			return "", false, err
		}
		switch {
		case !found: // expired and deleted between our create and read: try this generation again
			continue
		case cur.State == claimDone:
			return "", false, nil
		case cur.State == claimInProgress && now.Before(cur.ExpiresAt):
			return "", false, nil
		}
		// Failed, or abandoned by a holder that died: take over with the
		// next generation, replacing the reply it left.
		if cur.Reply != "" {
			carried = cur.Reply
		}
		gen++
	}
	return "", false, fmt.Errorf("weaviate: claim delivery %q: no decision after %d attempts (generation %d)", id, maxGens, gen)
}

// SetReplyDelivery records the reply posted for delivery id, which this
// replica claimed (ClaimDelivery), so that a retry after a failure replaces
// it. It does nothing for an id this replica does not hold.
func (c *Claims) SetReplyDelivery(ctx context.Context, id, ts string) error {
	return c.updateDelivery(ctx, id, false, map[string]any{"reply": ts})
}

// DoneDelivery marks delivery id answered: every later claim of it fails.
func (c *Claims) DoneDelivery(ctx context.Context, id string) error {
	return c.updateDelivery(ctx, id, true, map[string]any{"state": claimDone})
}

// FailDelivery marks delivery id failed: a retry, on any replica, may claim
// it again and replace the reply.
func (c *Claims) FailDelivery(ctx context.Context, id string) error {
	return c.updateDelivery(ctx, id, true, map[string]any{"state": claimFailed})
}

func (c *Claims) updateDelivery(ctx context.Context, id string, last bool, props map[string]any) error {
	c.mu.Lock()
	h, ok := c.mine[id]
	if last {
		delete(c.mine, id)
	}
	c.mu.Unlock()
	if !ok {
		return nil
	}
	return c.merge(ctx, kindDelivery, id, h.gen, props)
}

// ExpireDeliveries deletes the delivery claims made before cutoff (batch
// deletes filtered on claimed_at, see deleteAll) and returns how many went.
// Platforms stop retrying a delivery after minutes (Slack: 3 retries within
// about 6 minutes, api.slack.com/apis/events-api#retries), so claims older
// than the dedupe TTL only take space.
func (c *Claims) ExpireDeliveries(ctx context.Context, cutoff time.Time) (int64, error) {
	where := filters.Where().WithOperator(filters.And).WithOperands([]*filters.WhereBuilder{
		filters.Where().WithPath([]string{"kind"}).WithOperator(filters.Equal).WithValueText(kindDelivery),
		filters.Where().WithPath([]string{"claimed_at"}).WithOperator(filters.LessThan).WithValueDate(cutoff),
	})
	n, err := deleteAll(ctx, c.client, c.class, c.cl, where)
	if err != nil {
		return int64(n), fmt.Errorf("weaviate: expire delivery claims: %w", err)
	}
	return int64(n), nil
}

// Drop deletes the collection (tests use it to clean up).
func (c *Claims) Drop(ctx context.Context) error {
	return dropClasses(ctx, c.client, c.class)
}
