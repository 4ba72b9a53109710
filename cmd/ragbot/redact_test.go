package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/internal/fakesecret"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// leakyGo and leakyPy hold fake credentials of every kind inside real
// functions. The key block is longer than indexing.max_symbol_lines below,
// so its lines are split over several line windows.
func leakyFiles(s fakesecret.Set) map[string]string {
	goFile := fmt.Sprintf(`package deploy

// AWSConfig returns the access key pair of the deploy account.
func AWSConfig() (id, secret string) {
	aws_access_key_id := %q
	aws_secret_access_key := %q
	return aws_access_key_id, aws_secret_access_key
}

// NotifyOps posts the release note to the ops channel and tags the release.
func NotifyOps(note string) []string {
	slackToken := %q
	githubToken := %q
	return []string{slackToken, githubToken, note}
}

// releaseSigningKey signs the release artifacts.
const releaseSigningKey = `+"`%s`"+`
`, s.AWSKeyID, s.AWSSecret, s.SlackBot, s.GitHubPAT, s.PrivateKey)
	pyFile := fmt.Sprintf(`import os


def load_report_settings():
    """Database settings of the nightly report job."""
    password = %q
    return {"host": os.environ.get("REPORT_DB_HOST", "localhost"), "password": password}


def report_service_session():
    """The session token the report job sends to the billing service."""
    session_jwt = %q
    return {"Authorization": "Bearer " + session_jwt}
`, s.Password, s.JWT)
	return map[string]string{"deploy/credentials.go": goFile, "jobs/report_settings.py": pyFile}
}

// TestIndexRedactsSecrets commits fake credentials of six kinds (AWS key
// id and secret, Slack bot token, GitHub token, PEM private key, password,
// JWT) into a Go and a Python file, indexes them with the real command and
// asks about the code around them and about the secrets themselves: no
// answer holds any secret, the snippets show the markers, the summary line
// counts the findings, the log says them in one line by rule, and the run
// that line points to (-v --full) names path, line and rule of each, only.
func TestIndexRedactsSecrets(t *testing.T) {
	s := fakesecret.New(2026)
	repo, _ := gitRepo(t, leakyFiles(s))
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
indexing:
  max_symbol_lines: 10
  window_lines: 5
sources:
  - name: deploy
    kind: git
    path: %s
`, weaviatetest.URL(t), weaviatetest.ClassName(), repo)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropCollection(t, cfg) })
	secrets := s.Secrets()
	leaks := func(what, out string) {
		t.Helper()
		for kind, secret := range secrets {
			if strings.Contains(out, secret) {
				t.Errorf("%s: holds the %s", what, kind)
			}
		}
	}

	code, out, errOut := ragbot(t, "index", "--config", cfg)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	// Seven findings: the AWS secret key is found by generic-api-key, as is
	// the password.
	if !strings.Contains(out, ", 7 secrets redacted,") {
		t.Errorf("index summary does not count 7 redactions:\n%s", out)
	}
	leaks("index stdout", out)
	leaks("index log", errOut)
	summary := `level=WARN msg="7 secrets redacted: generic-api-key 2, aws-access-token 1, github-pat 1, jwt 1, private-key 1, slack-bot-token 1; ragbot index -v --full lists them" source=repo:deploy branch=main`
	if got := grepLines(errOut, "redacted"); len(got) != 1 || !strings.Contains(got[0], summary) {
		t.Errorf("index log: want one line about redactions, with %s; got:\n%s", summary, strings.Join(got, "\n"))
	}

	code, out, errOut = ragbot(t, "index", "--config", cfg, "-v", "--full")
	if code != 0 {
		t.Fatalf("index -v --full: exit %d\n%s\n%s", code, out, errOut)
	}
	leaks("index -v stdout", out)
	leaks("index -v log", errOut)
	logged := regexp.MustCompile(`level=DEBUG msg="secret redacted" source=repo:deploy branch=main commit=\w+ path=(\S+) line=(\d+) rule=(\S+)`).FindAllStringSubmatch(errOut, -1)
	var rules []string
	for _, m := range logged {
		rules = append(rules, m[1]+":"+m[2]+":"+m[3])
	}
	wantRules := "deploy/credentials.go:12:slack-bot-token deploy/credentials.go:13:github-pat deploy/credentials.go:18:private-key " +
		"deploy/credentials.go:5:aws-access-token deploy/credentials.go:6:generic-api-key " +
		"jobs/report_settings.py:12:jwt jobs/report_settings.py:6:generic-api-key"
	if got := strings.Join(slices.Sorted(slices.Values(rules)), " "); got != wantRules {
		t.Errorf("logged redactions:\n got %s\nwant %s", got, wantRules)
	}

	for _, tc := range []struct{ question, marker string }{
		{"AWSConfig", "[redacted: aws-access-token]"},
		{"NotifyOps", "[redacted: slack-bot-token]"},
		{"releaseSigningKey", "[redacted: private-key]"},
		{"load_report_settings", "[redacted: generic-api-key]"},
		{"report_service_session", "[redacted: jwt]"},
	} {
		out := askRaw(t, cfg, tc.question)
		leaks("ask "+tc.question, out)
		var ans struct {
			Snippets []struct{ Symbol, Text string }
		}
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatal(err)
		}
		if len(ans.Snippets) == 0 || !strings.Contains(ans.Snippets[0].Text, tc.marker) {
			t.Errorf("ask %s: top snippet does not show %s:\n%s", tc.question, tc.marker, out)
		}
	}
	// Asking with the secret itself finds nothing that holds it. The answer
	// echoes the question ("question") and names the query term that no
	// indexed text has ("missing": the secret itself): both are the asker's
	// own words, left out here.
	for kind, secret := range secrets {
		if strings.HasPrefix(kind, "private key line") && kind != "private key line 1" {
			continue // one body line stands for the others
		}
		out := askRaw(t, cfg, "where is "+secret+" used?")
		var ans map[string]any
		if err := json.Unmarshal([]byte(out), &ans); err != nil {
			t.Fatal(err)
		}
		delete(ans, "question")
		delete(ans, "missing")
		rest, _ := json.Marshal(ans)
		leaks("ask with the "+kind, string(rest))
	}
}

// askRaw runs `ragbot ask --json` and returns its whole output.
func askRaw(t *testing.T, cfg, question string) string {
	t.Helper()
	code, out, errOut := ragbot(t, "ask", "--json", "--config", cfg, question)
	if code != 0 {
		t.Fatalf("ask %q: exit %d\n%s", question, code, errOut)
	}
	return out
}

// grepLines returns the lines of text that contain s.
func grepLines(text, s string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			out = append(out, l)
		}
	}
	return out
}
