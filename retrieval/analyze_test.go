package retrieval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestAnalyzeSettings checks that a setting written key=value (or a URL's
// ?key=value&key=value) names its key and not the asker's value, as typed
// and in lower case.
func TestAnalyzeSettings(t *testing.T) {
	tests := []struct {
		q    string
		want Analysis
	}{
		{"retry_on_timeout=True - where is it turned into a retry policy?",
			Analysis{Identifiers: []string{"retry_on_timeout"}, Literals: []string{"retry_on_timeout"},
				Plain: []string{"where", "is", "it", "turned", "into", "a", "retry", "policy"}, Words: 9}}, // "-" counts as a word, as before
		{"where are query parameters of a redis:// url (like ?socket_timeout=5) parsed into connection kwargs?",
			Analysis{Identifiers: []string{"socket_timeout"}, Literals: []string{"socket_timeout"},
				Plain: []string{"where", "are", "query", "parameters", "of", "a", "redis://", "url", "like", "parsed", "into", "connection", "kwargs"}, Words: 13}},
		{"?socket_timeout=5&health_check_interval=30 ignored",
			Analysis{Identifiers: []string{"socket_timeout", "health_check_interval"}, Literals: []string{"socket_timeout", "health_check_interval"},
				Plain: []string{"ignored"}, Words: 1}},
		{"maxRedirects=0 where", Analysis{Identifiers: []string{"maxRedirects"}, Plain: []string{"where"}, Words: 1}},
		{"maxredirects=0 where", Analysis{Plain: []string{"maxredirects", "where"}, Words: 2}},
		{"NoSync=true, where", Analysis{Identifiers: []string{"NoSync"}, Plain: []string{"where"}, Words: 1}},
		{"nosync=true, where", Analysis{Plain: []string{"nosync", "where"}, Words: 2}},
		{"timeout:5 where", Analysis{Plain: []string{"timeout", "where"}, Words: 2}},
		// Not settings: a flag with its value, a URL, a place in a file.
		{"--cluster.settle-timeout=5s", Analysis{Literals: []string{"cluster.settle-timeout", "5s"}}},
		{"https://example.com:8080/x", Analysis{Plain: []string{"https://example.com:8080/x"}, Words: 1}},
		{"store.go:230", Analysis{Paths: []string{"store.go"}, Lines: []int{230}}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Analyze(tt.q), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("Analyze(%q) (-want +got):\n%s", tt.q, diff)
		}
	}
	// In lower case a camelCase or PascalCase key is a plain word; its
	// value still names nothing.
	for _, tt := range tests {
		for _, p := range Analyze(strings.ToLower(tt.q)).Plain {
			if strings.ContainsAny(p, "=") {
				t.Errorf("Analyze(%q): plain word %q holds a setting's value", strings.ToLower(tt.q), p)
			}
		}
	}
}
