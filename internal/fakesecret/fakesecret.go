// Package fakesecret makes realistic-looking fake credentials for tests of
// secret redaction: random values of the shapes that gitleaks' default rules
// (github.com/zricethezav/gitleaks/v8, config/gitleaks.toml) look for, so
// that none is an allowlisted example value (AKIAIOSFODNN7EXAMPLE) and the
// entropy-gated rules fire. None of them is a live credential.
package fakesecret

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Set is one fake credential of each kind.
type Set struct {
	AWSKeyID     string // "AKIA" + 16 of [A-Z2-7] (rule aws-access-token)
	AWSSecret    string // 40 base64 characters, letters never adjacent (no rule of its own; generic-api-key when assigned to a *_secret_* name)
	SlackBot     string // "xoxb-" + 12 digits + "-" + 13 digits + "-" + 24 letters and digits (rule slack-bot-token)
	GitHubPAT    string // "ghp_" + 36 letters and digits (rule github-pat)
	PrivateKey   string // a PEM "RSA PRIVATE KEY" block of 12 lines of 64 base64 characters (rule private-key), no final newline
	Password     string // 24 letters and digits, alternating (generic-api-key when assigned to "password")
	JWT          string // header.payload.signature, base64url (rule jwt)
	PrivateLines []string
}

const (
	upper  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lower  = "abcdefghijklmnopqrstuvwxyz"
	digits = "0123456789"
	alnum  = upper + lower + digits
	b64    = alnum + "+/"
)

// New returns the Set drawn from seed: the same seed gives the same values.
func New(seed uint64) Set {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pick := func(n int, from string) string {
		var b strings.Builder
		for range n {
			b.WriteByte(from[r.IntN(len(from))])
		}
		return b.String()
	}
	var s Set
	s.AWSKeyID = "AKIA" + pick(16, upper+"234567")
	// generic-api-key drops a value holding one of its stopwords (English
	// words and names: "lamp", "core"), so the values it must find never
	// have two letters in a row.
	spaced := func(n int, letters, others string) string {
		var b strings.Builder
		for i := range n {
			if i%2 == 0 {
				b.WriteString(pick(1, letters))
			} else {
				b.WriteString(pick(1, others))
			}
		}
		return b.String()
	}
	s.AWSSecret = spaced(40, upper+lower, digits+"+/")
	s.SlackBot = "xoxb-" + pick(1, "123456789") + pick(11, digits) + "-" + pick(1, "123456789") + pick(12, digits) + "-" + pick(24, alnum)
	s.GitHubPAT = "ghp_" + pick(36, alnum)
	s.PrivateLines = make([]string, 12)
	for i := range s.PrivateLines {
		s.PrivateLines[i] = pick(64, b64)
	}
	s.PrivateKey = "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Join(s.PrivateLines, "\n") + "\n-----END RSA PRIVATE KEY-----" // gitleaks:allow (the template of the fake)
	s.Password = spaced(24, upper+lower, digits)
	enc := base64.RawURLEncoding
	s.JWT = enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." +
		enc.EncodeToString([]byte(fmt.Sprintf(`{"sub":"%s","iat":%d}`, pick(12, digits), 1700000000+r.IntN(1e8)))) + "." +
		pick(43, alnum)
	return s
}

// Secrets lists the values that must never be shown, by kind: each whole
// value, and each body line of the private key.
func (s Set) Secrets() map[string]string {
	m := map[string]string{
		"aws key id": s.AWSKeyID, "aws secret": s.AWSSecret, "slack bot token": s.SlackBot,
		"github token": s.GitHubPAT, "password": s.Password, "jwt": s.JWT,
	}
	for i, l := range s.PrivateLines {
		m[fmt.Sprintf("private key line %d", i+1)] = l
	}
	return m
}
