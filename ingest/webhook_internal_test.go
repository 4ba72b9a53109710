package ingest

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/config"
)

var t0Internal = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// TestGitHubSignatureVector checks the HMAC against a vector computed
// independently (openssl dgst -sha256 -hmac gh-secret over the body), in the
// X-Hub-Signature-256 form of GitHub docs, 'Validating webhook deliveries'.
func TestGitHubSignatureVector(t *testing.T) {
	body := []byte(`{"zen":"Keep it logically awesome.","hook_id":1}`)
	const sig = "sha256=ccfcf8f554fe45b6fffa3e6a32eb13ac37b3a1f337d0bbc97afee1ff38f1c81e"
	tests := []struct {
		name   string
		body   []byte
		header string
		secret config.Secret
		want   bool
	}{
		{"vector", body, sig, "gh-secret", true},
		{"upper-case hex", body, "sha256=" + strings.ToUpper(sig[7:]), "gh-secret", true},
		{"other secret", body, sig, "gh-secret2", false},
		{"body with a trailing newline", append(append([]byte{}, body...), '\n'), sig, "gh-secret", false},
		{"no prefix", body, sig[7:], "gh-secret", false},
		{"sha1 prefix", body, "sha1=" + sig[7:], "gh-secret", false},
		{"empty secret", body, sig, "", false},
		{"truncated", body, sig[:40], "gh-secret", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := validGitHubSignature(tt.body, tt.header, tt.secret); got != tt.want {
				t.Errorf("validGitHubSignature = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNormalizeRepoURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://github.com/Acme/Payments.git", "github.com/acme/payments"},
		{"https://github.com/acme/payments", "github.com/acme/payments"},
		{"https://github.com/acme/payments/", "github.com/acme/payments"},
		{"git@github.com:acme/payments.git", "github.com/acme/payments"},
		{"ssh://git@github.com:22/acme/payments.git", "github.com/acme/payments"},
		{"git://github.com/acme/payments.git", "github.com/acme/payments"},
		{"https://gitlab.acme.example/platform/sub/payments.git", "gitlab.acme.example/platform/sub/payments"},
		{"", ""},
		{"not a url", ""},
	}
	for _, tt := range tests {
		if got := normalizeRepoURL(tt.in); got != tt.want {
			t.Errorf("normalizeRepoURL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSecretRedacted(t *testing.T) {
	s := config.Secret("hunter2-token")
	var b strings.Builder
	slog.New(slog.NewTextHandler(&b, nil)).Info("x", "secret", s, "remote", Remote{URL: "https://x/y.git", Token: s})
	b.WriteString(fmt.Sprintf("%s %v %+v %#v %q", s, s, Remote{Token: s}, s, s))
	if strings.Contains(b.String(), "hunter2") {
		t.Errorf("secret shown: %s", b.String())
	}
}

func TestBackoffDoubles(t *testing.T) {
	var b backoff
	now := t0Internal
	for i, want := range []int{30, 60, 120, 120} {
		b.fail(now, 30e9, 120e9)
		if got := int(b.until.Sub(now).Seconds()); got != want || b.failures != i+1 {
			t.Errorf("after %d failures: wait %ds, want %ds", b.failures, got, want)
		}
	}
	b.reset()
	if b.failures != 0 || !b.until.IsZero() {
		t.Errorf("after reset: %+v", b)
	}
}
