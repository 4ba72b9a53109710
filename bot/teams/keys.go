package teams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/ragbot/ragbot/internal/httpretry"
)

// Key cache timing. The Bot Framework rotates its signing keys rarely and
// publishes new ones ahead of use; its SDKs cache them for about a day
// (botframework-connector's OpenIdMetadata refreshes every 24 hours by
// default; microsoft/botbuilder-python issue #1210). A token naming a key
// not in the cache makes the cache fetch again at once, but at most once
// per unknownKIDGap, so a stream of made-up key ids cannot turn into a
// stream of requests to the metadata host.
const (
	keysTTL       = 24 * time.Hour
	unknownKIDGap = time.Minute
	maxKeysBody   = 1 << 20 // the Bot Framework key set is a few KB
)

var (
	// errUnknownKey is a token signed by a key that is not in the key set.
	errUnknownKey = errors.New("signing key not in the Bot Framework key set")
	// errKeysUnavailable is a key set that could not be fetched, with none cached.
	errKeysUnavailable = errors.New("Bot Framework signing keys unavailable")
)

// keySnapshot is one fetched key set: the keys as a jwt.Keyfunc (keyfunc
// checks alg and use against each JWK) and each key's endorsements, the
// channels it may sign for, which jwkset does not keep.
type keySnapshot struct {
	keyfunc      keyfunc.Keyfunc
	endorsements map[string][]string // by kid
}

// keyCache holds the signing keys of the OpenID metadata at metadataURL.
// It is safe for concurrent use; fetches are serialized.
type keyCache struct {
	metadataURL string
	client      *http.Client
	now         func() time.Time
	log         *slog.Logger

	mu          sync.Mutex
	snap        *keySnapshot
	fetched     time.Time // when snap was fetched
	lastFailed  time.Time // last failed fetch: a stale set is kept unknownKIDGap before trying again
	lastUnknown time.Time // last fetch for an unknown kid
}

// lookup returns a key set holding kid, fetching the set when it is missing
// or older than keysTTL, and again when kid is not in it (see unknownKIDGap).
// Errors: errUnknownKey, or errKeysUnavailable when the fetch failed and no
// earlier set is cached.
func (c *keyCache) lookup(ctx context.Context, kid string) (*keySnapshot, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if c.snap == nil || (now.Sub(c.fetched) > keysTTL && now.Sub(c.lastFailed) >= unknownKIDGap) {
		if err := c.refresh(ctx, now); err != nil {
			if c.snap == nil {
				return nil, fmt.Errorf("%w: %w", errKeysUnavailable, err)
			}
			c.lastFailed = now
			c.log.Warn("teams: refreshing the signing keys failed; using the cached ones", "fetched", c.fetched, "err", err)
		}
	}
	if _, ok := c.snap.endorsements[kid]; ok {
		return c.snap, nil
	}
	if c.lastUnknown.IsZero() || now.Sub(c.lastUnknown) >= unknownKIDGap {
		c.lastUnknown = now
		c.log.Info("teams: token signed by an unknown key; fetching the key set again", "kid", kid)
		if err := c.refresh(ctx, now); err != nil {
			c.log.Warn("teams: refreshing the signing keys failed", "err", err)
		}
		if _, ok := c.snap.endorsements[kid]; ok {
			return c.snap, nil
		}
	}
	return nil, fmt.Errorf("%w: kid %q", errUnknownKey, kid)
}

// refresh fetches the metadata, then its jwks_uri, and replaces the cached
// set. A key that jwkset cannot read is skipped with a warning.
func (c *keyCache) refresh(ctx context.Context, now time.Time) error {
	var meta struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := c.getJSON(ctx, c.metadataURL, &meta); err != nil {
		return fmt.Errorf("teams: OpenID metadata: %w", err)
	}
	if meta.JWKSURI == "" {
		return fmt.Errorf("teams: OpenID metadata %s has no jwks_uri", c.metadataURL)
	}
	var set struct {
		Keys []json.RawMessage `json:"keys"`
	}
	if err := c.getJSON(ctx, meta.JWKSURI, &set); err != nil {
		return fmt.Errorf("teams: signing keys: %w", err)
	}
	store := jwkset.NewMemoryStorage()
	endorse := map[string][]string{}
	for i, raw := range set.Keys {
		var k struct {
			jwkset.JWKMarshal
			Endorsements []string `json:"endorsements"`
		}
		if err := json.Unmarshal(raw, &k); err != nil {
			c.log.Warn("teams: unreadable signing key skipped", "index", i, "err", err)
			continue
		}
		jwk, err := jwkset.NewJWKFromMarshal(k.JWKMarshal, jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
		if err == nil {
			err = store.KeyWrite(ctx, jwk)
		}
		if err == nil && k.USE != "" && k.USE != jwkset.UseSig {
			err = fmt.Errorf("use %q, want sig", k.USE)
		}
		if err != nil || k.KID == "" {
			c.log.Warn("teams: unusable signing key skipped", "index", i, "kid", k.KID, "err", err)
			continue
		}
		endorse[k.KID] = k.Endorsements
	}
	if len(endorse) == 0 {
		return fmt.Errorf("teams: signing keys at %s: no usable key", meta.JWKSURI)
	}
	kf, err := keyfunc.New(keyfunc.Options{Storage: store})
	if err != nil {
		return fmt.Errorf("teams: signing keys: %w", err)
	}
	c.snap, c.fetched = &keySnapshot{keyfunc: kf, endorsements: endorse}, now
	c.log.Debug("teams: signing keys fetched", "keys", len(endorse), "url", meta.JWKSURI)
	return nil
}

func (c *keyCache) getJSON(ctx context.Context, url string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxKeysBody))
	if err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return httpretry.NewStatusError(resp, http.MethodGet, url, "", "", c.now())
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}
