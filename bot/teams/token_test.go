package teams

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestTokenFetch tables the token endpoint's answers: what the client sends,
// when it renews, and what a refusal says (never the secret).
func TestTokenFetch(t *testing.T) {
	const secret = "Xy8Q~unit.s3cr3t"
	now := time.Date(2026, 4, 5, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		status    int
		body      string
		wantRenew time.Duration // after now; checked when wantErr is ""
		wantErr   []string      // substrings of the error
	}{
		{name: "hour token renewed 5 minutes early", status: 200,
			body:      `{"token_type":"Bearer","expires_in":3599,"access_token":"eyJ.tok"}`,
			wantRenew: 3599*time.Second - 5*time.Minute},
		{name: "short token renewed halfway", status: 200,
			body:      `{"token_type":"Bearer","expires_in":300,"access_token":"eyJ.tok"}`,
			wantRenew: 150 * time.Second},
		{name: "refused, echoing the secret", status: 401,
			body:    `{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided: ` + secret + `"}`,
			wantErr: []string{"token for app app-1: POST ", "status 401 Unauthorized (invalid_client): AADSTS7000215", "[redacted]"}},
		{name: "no token in the answer", status: 200, body: `{"token_type":"Bearer"}`,
			wantErr: []string{"token for app app-1 from ", "access_token"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var form map[string][]string
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				r.ParseForm()
				form = r.PostForm
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			s := &tokenSource{url: srv.URL, clientID: "app-1", secret: secret, client: srv.Client(), now: func() time.Time { return now }}
			tok, err := s.fetch(context.Background())
			if got := strings.Join(form["client_secret"], ",") + " " + strings.Join(form["scope"], ",") + " " +
				strings.Join(form["grant_type"], ","); got != secret+" "+tokenScope+" client_credentials" {
				t.Errorf("form sent %q, want the secret, scope and grant in it", got)
			}
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("fetch: %v", err)
				}
				if got := tok.renewAt.Sub(now); got != tt.wantRenew {
					t.Errorf("renew after %s, want %s", got, tt.wantRenew)
				}
				return
			}
			if err == nil {
				t.Fatal("fetch succeeded, want an error")
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q, want it to contain %q", err, want)
				}
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q holds the secret", err)
			}
		})
	}
}
