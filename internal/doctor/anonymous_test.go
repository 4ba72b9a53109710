package doctor

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestCheckAnonymous: a Weaviate that answers GET /v1/schema without a key
// gets a warning with the fix for a remote or the local server; one that
// refuses it is ok, the locked local server too.
func TestCheckAnonymous(t *testing.T) {
	fake := func(status int) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "" {
				t.Errorf("probe sent credentials: %q", r.Header.Get("Authorization"))
			}
			if r.Method != http.MethodGet || r.URL.Path != "/v1/schema" {
				t.Errorf("probe %s %s, want GET /v1/schema", r.Method, r.URL.Path)
			}
			w.WriteHeader(status)
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	tests := []struct {
		name   string
		status int
		local  bool
		want   string // the line's start; "" for no line
	}{
		{"anonymous remote", http.StatusOK, false, "warn weaviate auth: %s answered a request without credentials (GET /v1/schema: 200): anonymous access is on"},
		{"anonymous local", http.StatusOK, true, "warn weaviate auth: %s answered a request without credentials"},
		{"key required", http.StatusUnauthorized, false, "ok   weaviate auth: %s refuses requests without an API key"},
		{"forbidden", http.StatusForbidden, false, "ok   weaviate auth: %s refuses requests without an API key"},
		{"server error", http.StatusInternalServerError, false, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			d := New(&out, time.Second)
			d.base = fake(tc.status)
			d.checkAnonymous(context.Background(), tc.local)
			got := out.String()
			if tc.want == "" {
				if got != "" {
					t.Errorf("got %q, want no line", got)
				}
				return
			}
			if want := strings.Replace(tc.want, "%s", d.base, 1); !strings.HasPrefix(got, want) {
				t.Errorf("got %q, want a line starting %q", got, want)
			}
			if tc.local && !strings.Contains(got, "fix: stop that server and let this ragbot start it") {
				t.Errorf("local fix missing: %q", got)
			}
			if !tc.local && tc.status == http.StatusOK && !strings.Contains(got, "weaviate.api_key_env") {
				t.Errorf("remote fix missing: %q", got)
			}
		})
	}
	t.Run("real server", func(t *testing.T) {
		base, key := weaviatetest.Direct(t)
		var out bytes.Buffer
		d := New(&out, 5*time.Second)
		d.base = base
		d.checkAnonymous(context.Background(), false)
		want := "ok   weaviate auth:"
		if key == "" {
			want = "warn weaviate auth:" // the shared anonymous test server
		}
		if !strings.HasPrefix(out.String(), want) {
			t.Errorf("got %q, want %q (server key set: %v)", out.String(), want, key != "")
		}
	})
}
