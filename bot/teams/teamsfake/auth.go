package teamsfake

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"encoding/base64"
	"math/big"
	"net/http"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// key is one RSA signing key of the fake. An unpublished key signs tokens
// but is not in the JWKS (an attacker's key, or one not rotated in yet).
type key struct {
	kid          string
	priv         *rsa.PrivateKey
	endorsements []string
	published    bool
}

// rsaKeys are generated once per test binary (2048-bit generation takes
// a while) and handed out in order.
var rsaKeys struct {
	mu   sync.Mutex
	keys []*rsa.PrivateKey
}

func rsaKey(i int) *rsa.PrivateKey {
	rsaKeys.mu.Lock()
	defer rsaKeys.mu.Unlock()
	for len(rsaKeys.keys) <= i {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		rsaKeys.keys = append(rsaKeys.keys, k)
	}
	return rsaKeys.keys[i]
}

// AddKey adds a signing key kid endorsed for the given channel ids, in the
// JWKS when published. Adding a published key later is a key rotation: the
// bot only knows it after fetching the JWKS again.
func (s *Server) AddKey(kid string, published bool, endorsements ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k, ok := s.keys[kid]; ok {
		k.published, k.endorsements = published, endorsements
		return
	}
	s.keys[kid] = &key{kid: kid, priv: rsaKey(len(s.keyOrder)), endorsements: endorsements, published: published}
	s.keyOrder = append(s.keyOrder, kid)
}

func (s *Server) serveKeys(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.keyFetches++
	var keys []map[string]any
	for _, kid := range s.keyOrder {
		k := s.keys[kid]
		if !k.published {
			continue
		}
		pub := k.priv.PublicKey
		n := pub.N.Bytes()
		e := big.NewInt(int64(pub.E)).Bytes()
		thumb := sha1.Sum(n)
		keys = append(keys, map[string]any{
			"kty": "RSA", "use": "sig", "kid": k.kid, "x5t": base64.RawURLEncoding.EncodeToString(thumb[:]),
			"n": base64.RawURLEncoding.EncodeToString(n), "e": base64.RawURLEncoding.EncodeToString(e),
			"endorsements": k.endorsements,
		})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"keys": keys})
}

// Claims say what a minted token holds. Zero times take defaults from the
// fake's clock: issued and valid from now, expiring in an hour.
type Claims struct {
	KID        string // signing key [KeyID]
	HeaderKID  string // kid written in the header when it differs from KID (a forged signature)
	Alg        string // [RS256]
	Issuer     string // [Issuer]
	Audience   string // [AppID]
	ServiceURL string // the serviceurl claim; "" leaves it out
	IssuedAt   time.Time
	NotBefore  time.Time
	ExpiresAt  time.Time
}

// ValidClaims are the claims of a token the Bot Framework would send with an
// activity for serviceURL.
func (s *Server) ValidClaims(serviceURL string) Claims { return Claims{ServiceURL: serviceURL} }

// Token mints a token with c, signed by c.KID's key (published or not). An
// unknown KID signs with a fresh unpublished key of that id.
func (s *Server) Token(c Claims) string {
	if c.KID == "" {
		c.KID = KeyID
	}
	if c.Alg == "" {
		c.Alg = "RS256"
	}
	if c.Issuer == "" {
		c.Issuer = Issuer
	}
	if c.Audience == "" {
		c.Audience = AppID
	}
	now := s.opts.Now()
	if c.IssuedAt.IsZero() {
		c.IssuedAt = now.Add(-time.Minute)
	}
	if c.NotBefore.IsZero() {
		c.NotBefore = c.IssuedAt
	}
	if c.ExpiresAt.IsZero() {
		c.ExpiresAt = now.Add(time.Hour)
	}
	s.mu.Lock()
	k, ok := s.keys[c.KID]
	s.mu.Unlock()
	if !ok {
		s.AddKey(c.KID, false, "msteams")
		s.mu.Lock()
		k = s.keys[c.KID]
		s.mu.Unlock()
	}
	claims := jwt.MapClaims{
		"iss": c.Issuer, "aud": c.Audience, "iat": c.IssuedAt.Unix(), "nbf": c.NotBefore.Unix(), "exp": c.ExpiresAt.Unix(),
	}
	if c.ServiceURL != "" {
		claims["serviceurl"] = c.ServiceURL
	}
	method := jwt.GetSigningMethod(c.Alg)
	tok := jwt.NewWithClaims(method, claims)
	tok.Header["kid"] = c.KID
	if c.HeaderKID != "" {
		tok.Header["kid"] = c.HeaderKID
	}
	var signKey any = k.priv
	if c.Alg == "HS256" { // an attacker signing with the public modulus as an HMAC secret
		signKey = k.priv.PublicKey.N.Bytes()
	}
	signed, err := tok.SignedString(signKey)
	if err != nil {
		panic("teamsfake: sign token: " + err.Error())
	}
	return signed
}
