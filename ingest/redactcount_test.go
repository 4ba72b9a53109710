package ingest_test

import (
	"bytes"
	"context"
	"log/slog"
	"maps"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/fakesecret"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestRedactCountsString(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts ingest.RedactCounts
		want   string
	}{
		{"none", nil, ""},
		{"zero", ingest.RedactCounts{"jwt": 0}, ""},
		{"one", ingest.RedactCounts{"jwt": 1}, "1 secret redacted: jwt 1"},
		// Most found first, ties by rule id.
		{"several", ingest.RedactCounts{"jwt": 14, "generic-api-key": 39, "private-key": 69}, "122 secrets redacted: private-key 69, generic-api-key 39, jwt 14"},
		{"ties", ingest.RedactCounts{"slack-bot-token": 1, "aws-access-token": 1, "generic-api-key": 2}, "4 secrets redacted: generic-api-key 2, aws-access-token 1, slack-bot-token 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.counts.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// TestIndexRedactSummary indexes a git repository holding fake credentials
// of six kinds with gitleaks' real rules: the run counts them by rule in
// Stats.Redacted and says so in one warning for the run, while each
// finding is a debug line naming path, line and rule, never the secret.
func TestIndexRedactSummary(t *testing.T) {
	ctx := context.Background()
	s := fakesecret.New(5)
	repo := newRepo(t)
	repo.write(t, map[string]string{"creds/creds.go": credsGo(s), "README.md": "# creds\n\nNothing secret here.\n"})
	repo.commit(t, "creds")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	ix := newIndexer(t, store, emb, t0)
	var logs bytes.Buffer
	ix.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var err error
	if ix.Redact, err = ingest.NewRedactor(ingest.RedactOptions{}); err != nil {
		t.Fatal(err)
	}

	st, err := ix.IndexGit(ctx, ingest.GitSource{ID: "repo:creds", Dir: repo.dir}, false)
	if err != nil {
		t.Fatal(err)
	}
	// credsGo's seven: the AWS secret key and the password are both found
	// by generic-api-key.
	want := ingest.RedactCounts{"generic-api-key": 2, "aws-access-token": 1, "slack-bot-token": 1, "github-pat": 1, "private-key": 1, "jwt": 1}
	if !maps.Equal(st.Redacted, want) {
		t.Errorf("Stats.Redacted = %v, want %v", st.Redacted, want)
	}
	var warns, debugs []string
	for _, l := range strings.Split(logs.String(), "\n") {
		switch {
		case strings.Contains(l, "level=WARN"):
			warns = append(warns, l)
		case strings.Contains(l, `level=DEBUG msg="secret redacted"`):
			debugs = append(debugs, l)
		}
	}
	summary := `msg="7 secrets redacted: generic-api-key 2, aws-access-token 1, github-pat 1, jwt 1, private-key 1, slack-bot-token 1; ragbot index -v --full lists them" source=repo:creds branch=main`
	if len(warns) != 1 || !strings.Contains(warns[0], summary) {
		t.Errorf("warnings: want one with %s; got:\n%s", summary, strings.Join(warns, "\n"))
	}
	if len(debugs) != 7 {
		t.Errorf("debug lines of findings: got %d, want 7:\n%s", len(debugs), strings.Join(debugs, "\n"))
	}
	for _, l := range debugs {
		if !strings.Contains(l, " path=creds/creds.go line=") || !strings.Contains(l, " rule=") {
			t.Errorf("debug line does not name path, line and rule: %s", l)
		}
	}
	for kind, secret := range s.Secrets() {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the log holds the %s", kind)
		}
	}
}
