package slackfake_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/slack/slackfake"
)

// TestSign checks the signer against a vector computed independently
// (openssl dgst -sha256 -hmac over "v0:<timestamp>:<body>", the base string
// of Slack API docs, 'Verifying requests from Slack').
func TestSign(t *testing.T) {
	got := slackfake.Sign("test-signing-secret", time.Unix(1700000000, 0), []byte(`{"type":"url_verification","challenge":"abc123"}`))
	const want = "v0=e49b9c175e31920c300508a7c11d1ea4a962ec6e74884ed58a8f234bc044da21"
	if got != want {
		t.Errorf("Sign = %s, want %s", got, want)
	}
}

func TestCheckBlocks(t *testing.T) {
	section := func(n int) string {
		return `{"type":"section","text":{"type":"mrkdwn","text":"` + strings.Repeat("é", n) + `"}}`
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = `{"type":"divider"}`
	}
	button := func(value string) string {
		return `{"type":"actions","elements":[{"type":"button","action_id":"a","value":"` + value + `","text":{"type":"plain_text","text":"ok"}}]}`
	}
	tests := []struct {
		name   string
		blocks string
		ok     bool
	}{
		{"section at the limit", "[" + section(3000) + "]", true},
		{"section over it", "[" + section(3001) + "]", false},
		{"50 blocks", "[" + strings.Join(many[:50], ",") + "]", true},
		{"51 blocks", "[" + strings.Join(many, ",") + "]", false},
		{"context element", `[{"type":"context","elements":[{"type":"mrkdwn","text":"x"}]}]`, true},
		{"empty context", `[{"type":"context","elements":[]}]`, false},
		{"button value at the limit", "[" + button(strings.Repeat("v", 2000)) + "]", true},
		{"button value over it", "[" + button(strings.Repeat("v", 2001)) + "]", false},
		{"not an array", `{"type":"divider"}`, false},
		{"unknown block", `[{"type":"sparkles"}]`, false},
	}
	for _, tt := range tests {
		err := slackfake.CheckBlocks(json.RawMessage(tt.blocks))
		if (err == nil) != tt.ok {
			t.Errorf("%s: CheckBlocks = %v, want ok=%v", tt.name, err, tt.ok)
		}
	}
}
