package ingest_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/zricethezav/gitleaks/v8/detect"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/fakesecret"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// credsGo is a Go file with one fake credential of each kind inside real
// functions; the private key's 14 lines start at line 21.
func credsGo(s fakesecret.Set) string {
	return fmt.Sprintf(`package creds

import "os"

// awsConfig returns the deploy account's keys.
func awsConfig() (string, string) {
	aws_access_key_id := %q
	aws_secret_access_key := %q
	return aws_access_key_id, aws_secret_access_key
}

// notify posts to the ops channel.
func notify() string {
	slackToken := %q
	githubToken := %q
	return slackToken + githubToken
}

// signingKey is the release signing key.
const signingKey = `+"`%s`"+`

// connect opens the database.
func connect() string {
	password := %q
	session := %q
	return os.Getenv("DB") + password + session
}
`, s.AWSKeyID, s.AWSSecret, s.SlackBot, s.GitHubPAT, s.PrivateKey, s.Password, s.JWT)
}

// TestRedactorText: every kind of fake credential is found by its rule and
// replaced by its marker on its own line; the line count stays, and a PEM
// block becomes one marker per line.
func TestRedactorText(t *testing.T) {
	s := fakesecret.New(7)
	r, err := ingest.NewRedactor(ingest.RedactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := credsGo(s)
	out, found := r.Text("creds/creds.go", in)
	for kind, secret := range s.Secrets() {
		if strings.Contains(out, secret) {
			t.Errorf("%s is still in the redacted text", kind)
		}
	}
	if got, want := strings.Count(out, "\n"), strings.Count(in, "\n"); got != want {
		t.Errorf("redacted text has %d lines, want %d", got, want)
	}
	inLines, outLines := strings.Split(in, "\n"), strings.Split(out, "\n")
	lineOf := func(secret string) int {
		for i, l := range inLines {
			if strings.Contains(l, secret) {
				return i + 1
			}
		}
		t.Fatalf("fixture has no line with the secret")
		return 0
	}
	want := []ingest.Redaction{
		{Path: "creds/creds.go", Line: lineOf(s.AWSKeyID), Rule: "aws-access-token"},
		{Path: "creds/creds.go", Line: lineOf(s.AWSSecret), Rule: "generic-api-key"},
		{Path: "creds/creds.go", Line: lineOf(s.SlackBot), Rule: "slack-bot-token"},
		{Path: "creds/creds.go", Line: lineOf(s.GitHubPAT), Rule: "github-pat"},
		{Path: "creds/creds.go", Line: lineOf("BEGIN RSA PRIVATE KEY"), Rule: "private-key"},
		{Path: "creds/creds.go", Line: lineOf(s.Password), Rule: "generic-api-key"},
		{Path: "creds/creds.go", Line: lineOf(s.JWT), Rule: "jwt"},
	}
	if !slices.Equal(found, want) {
		t.Errorf("redactions:\n got %v\nwant %v", found, want)
	}
	for _, w := range want {
		if l := outLines[w.Line-1]; !strings.Contains(l, ingest.RedactMarker(w.Rule)) {
			t.Errorf("line %d is %q, want the marker of %s", w.Line, l, w.Rule)
		}
	}
	// The key block: the marker replaces the BEGIN line's text after the
	// backquote, then every body line and the END line.
	pem := lineOf("BEGIN RSA PRIVATE KEY")
	for i := pem; i < pem+len(s.PrivateLines)+1; i++ {
		if l := outLines[i]; !strings.HasPrefix(l, ingest.RedactMarker("private-key")) {
			t.Errorf("key line %d is %q, want the marker", i+1, l)
		}
	}
	if l := outLines[pem-1]; l != "const signingKey = `"+ingest.RedactMarker("private-key") {
		t.Errorf("key's first line is %q", l)
	}
}

// TestRedactorOptions: allowed paths are not scanned, a disabled rule finds
// nothing, and an unknown rule id or a bad glob is refused naming its field.
func TestRedactorOptions(t *testing.T) {
	s := fakesecret.New(7)
	text := fmt.Sprintf("const endpoint = \"https://api.github.com\"\nvar client = newClient(%q)\n", s.GitHubPAT)
	r, err := ingest.NewRedactor(ingest.RedactOptions{AllowPaths: []string{"testdata/**"}, DisableRules: []string{"slack-bot-token"}})
	if err != nil {
		t.Fatal(err)
	}
	if out, found := r.Text("testdata/fixtures/client.go", text); out != text || found != nil {
		t.Errorf("allowed path: got %d redactions, text changed %v; want it untouched", len(found), out != text)
	}
	if out, found := r.Text("client/client.go", text); strings.Contains(out, s.GitHubPAT) || len(found) != 1 {
		t.Errorf("other path: %v; want the token redacted", found)
	}
	slack := fmt.Sprintf("func ping() { post(%q) }\n", s.SlackBot)
	if _, found := r.Text("ops/ping.go", slack); slices.ContainsFunc(found, func(f ingest.Redaction) bool { return f.Rule == "slack-bot-token" }) {
		t.Errorf("disabled rule slack-bot-token still found: %v", found)
	}
	for _, tc := range []struct {
		opt  ingest.RedactOptions
		want string
	}{
		{ingest.RedactOptions{DisableRules: []string{"no-such-rule"}}, `indexing.redact_disable_rules: "no-such-rule" is not a rule id of gitleaks`},
		{ingest.RedactOptions{AllowPaths: []string{"a/[b"}}, `indexing.redact_allow_paths: "a/[b" is not a valid glob`},
	} {
		if _, err := ingest.NewRedactor(tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewRedactor(%+v): %v, want %q", tc.opt, err, tc.want)
		}
	}
}

// TestRedactorShared: one Redactor used by many goroutines at once gives
// every one the same result (run with -race to check the detector is only
// read).
func TestRedactorShared(t *testing.T) {
	r, err := ingest.NewRedactor(ingest.RedactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in := credsGo(fakesecret.New(7))
	want, _ := r.Text("creds.go", in)
	var wg sync.WaitGroup
	outs := make([]string, 8)
	for i := range outs {
		wg.Go(func() { outs[i], _ = r.Text("creds.go", in) })
	}
	wg.Wait()
	for i, out := range outs {
		if out != want {
			t.Errorf("goroutine %d got a different redaction", i)
		}
	}
}

// TestIndexRedactsPagesAndSpecs: a Confluence section (IndexPages) and an
// API operation (IndexSpec) with a credential are stored and embedded with
// the marker, never the secret, and counted in the run's stats.
func TestIndexRedactsPagesAndSpecs(t *testing.T) {
	ctx := context.Background()
	s := fakesecret.New(11)
	emb := &textEmbedder{Embedder: embed.NewOffline()}
	store := weaviatetest.NewStore(t, emb.Name())
	ix := newIndexer(t, store, emb, t0)
	var err error
	if ix.Redact, err = ingest.NewRedactor(ingest.RedactOptions{}); err != nil {
		t.Fatal(err)
	}

	page := memPage("7", "OPS/Runbook", "2", "Alerts")
	page.Sections = append(page.Sections, retrieval.Chunk{Kind: retrieval.KindDoc, Path: "OPS/Runbook",
		Symbol: "OPS/Runbook > Slack", SymbolKind: "section", StartLine: 5, EndLine: 8,
		Content: fmt.Sprintf("## Slack\n\nThe alert bot posts with\n\n    SLACK_BOT_TOKEN=%s\n", s.SlackBot)})
	pst, err := ix.IndexPages(ctx, ingest.PageSet{ID: "confluence:ops", Pages: &memPages{pages: map[string]ingest.Page{"OPS/Runbook": page}}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if pst.Redacted.Total() != 1 || !strings.Contains(pst.String(), ", 1 secret redacted") {
		t.Errorf("page stats: redacted %v, %q; want 1", pst.Redacted, pst)
	}

	spec := filepath.Join(t.TempDir(), "repos.yaml")
	specText := fmt.Sprintf(`openapi: 3.0.3
info: {title: Repos, version: "1"}
paths:
  /repos:
    get:
      operationId: listRepos
      summary: List repositories
      description: "Example: GITHUB_TOKEN=%s repos-cli list"
      responses:
        "200": {description: The repositories.}
`, s.GitHubPAT)
	if err := os.WriteFile(spec, []byte(specText), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := ix.IndexSpec(ctx, ingest.SpecSource{ID: "openapi:repos", File: spec}, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := (ingest.RedactCounts{"github-pat": 1}); !maps.Equal(st.Redacted, want) {
		t.Errorf("spec stats: redacted %v, want %v", st.Redacted, want)
	}

	markers := map[string]string{"confluence:ops": "slack-bot-token", "openapi:repos": "github-pat"}
	for src, rule := range markers {
		chunks := storedChunks(t, store, src)
		found := false
		for _, c := range chunks {
			for _, text := range []string{c.Content, c.SearchText, c.Signature, c.Symbol} {
				if strings.Contains(text, s.SlackBot) || strings.Contains(text, s.GitHubPAT) {
					t.Errorf("%s %s: a secret is stored", src, c.Symbol)
				}
			}
			found = found || strings.Contains(c.Content, ingest.RedactMarker(rule))
		}
		if !found {
			t.Errorf("%s: no stored chunk shows %s", src, ingest.RedactMarker(rule))
		}
	}
	for _, text := range emb.texts() {
		if strings.Contains(text, s.SlackBot) || strings.Contains(text, s.GitHubPAT) {
			t.Errorf("a secret was embedded: %.60q...", text)
		}
	}
}

// textEmbedder keeps every text it embeds.
type textEmbedder struct {
	retrieval.Embedder
	mu   sync.Mutex
	seen []string
}

func (e *textEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	e.seen = append(e.seen, texts...)
	e.mu.Unlock()
	return e.Embedder.Embed(ctx, texts)
}

func (e *textEmbedder) texts() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.seen)
}

// TestRedactorMatchesGitleaks: scanning only around each rule's keywords
// finds what gitleaks' own whole-text scan finds (rule and secret), on a
// long file whose secrets lie far apart among lines full of keywords, and,
// when RAGBOT_EVAL_CORPUS is set, on every file of the alertmanager corpus.
func TestRedactorMatchesGitleaks(t *testing.T) {
	r, err := ingest.NewRedactor(ingest.RedactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	s := fakesecret.New(3)
	var long strings.Builder
	filler := func(n int) {
		for i := range n {
			fmt.Fprintf(&long, "\tapiKeys[%d] = s.tokens.next(auth)\n", i)
		}
	}
	long.WriteString("package api\n\nfunc setup() {\n")
	filler(240)
	fmt.Fprintf(&long, "\tgithubToken := %q\n", s.GitHubPAT)
	filler(150)
	fmt.Fprintf(&long, "\tconst key = `%s`\n", s.PrivateKey)
	filler(100)
	fmt.Fprintf(&long, "\tpassword := %q\n}", s.Password)
	texts := map[string]string{"long.go": long.String(), "creds.go": credsGo(s)}
	if dir := os.Getenv("RAGBOT_EVAL_CORPUS"); dir != "" {
		root := filepath.Join(dir, "alertmanager@v0.35.0")
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				if d != nil && d.Name() == ".git" {
					return filepath.SkipDir
				}
				return err
			}
			data, err := os.ReadFile(p)
			if err == nil && len(data) < 1<<20 {
				rel, _ := filepath.Rel(root, p)
				texts[filepath.ToSlash(rel)] = string(data)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	kinds := map[string]bool{}
	for path, text := range texts {
		want := map[string]bool{}
		for _, f := range whole.Detect(detect.Fragment{Raw: text, FilePath: path}) {
			if f.Secret != "" {
				want[f.RuleID] = true
				kinds[f.RuleID] = true
			}
		}
		_, found := r.Text(path, text)
		got := map[string]bool{}
		for _, f := range found {
			got[f.Rule] = true
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: rules found %v, gitleaks finds %v", path, got, want)
		}
	}
	if !kinds["github-pat"] || !kinds["private-key"] || !kinds["generic-api-key"] {
		t.Errorf("the long file's secrets were not all found by gitleaks itself: %v", kinds)
	}
	_, found := r.Text("long.go", texts["long.go"])
	var lines []int
	for _, f := range found {
		lines = append(lines, f.Line)
	}
	if want := []int{244, 395, 509}; !slices.Equal(lines, want) {
		t.Errorf("long file: secrets at lines %v, want %v", lines, want)
	}
}

// TestRedactorUnknownRuleSuggests: a misspelt rule id is answered with the
// closest real one.
func TestRedactorUnknownRuleSuggests(t *testing.T) {
	_, err := ingest.NewRedactor(ingest.RedactOptions{DisableRules: []string{"generic-api-keys"}})
	if err == nil || !strings.Contains(err.Error(), `did you mean "generic-api-key"?`) {
		t.Errorf("err = %v, want a suggestion of generic-api-key", err)
	}
}

// checksumFiles are dependency checksums as their tools write them, each
// under its own file name: lines of this repository's go.sum and of
// models/codesearch-v1/inputs/go-modules.txt whose module paths hold a
// keyword of generic-api-key (oauth2, auth, api, credentials), and the
// entry of js-tokens (keyword "token") with its real sha512 integrity in
// package-lock.json (from alertmanager v0.35.0's ui/mantine-ui), yarn.lock
// (v1) and pnpm-lock.yaml (v9); and a Go test quoting go.sum lines.
var checksumFiles = map[string]string{
	"go.sum": "github.com/getkin/kin-openapi v0.153.0 h1:Qo4qWW+Pj8o90LUTE6MDyG5TJAtWnfvrcWOBcWg7eBw=\n" +
		"github.com/getkin/kin-openapi v0.153.0/go.mod h1:gBZMYk6Ch4Ts5KhdJy9HMY+3GrLdmdHBXQqKQ9hsNfw=\n" +
		"golang.org/x/oauth2 v0.25.0 h1:CY4y7XT9v0cRI9oupztF8AgiIu99L/ksR/Xp/6jrZ70=\n",
	"go-modules.txt": "cloud.google.com/go/auth v0.18.1 h1:IwTEx92GFUo2pJ6Qea0EU3zYvKnTAeRCODxfA/G5UWs=\n" +
		"cloud.google.com/go/auth/oauth2adapt v0.2.8 h1:keo8NaayQZ6wimpNSmW5OPc283g65QNIiLpZnkHRbnc=\n" +
		"github.com/aws/aws-sdk-go-v2/credentials v1.19.14 h1:n+UcGWAIZHkXzYt87uMFBv/l8THYELoX6gVcUvgl6fI=\n",
	"package-lock.json": `    "node_modules/js-tokens": {
      "version": "4.0.0",
      "resolved": "https://registry.npmjs.org/js-tokens/-/js-tokens-4.0.0.tgz",
      "integrity": "sha512-RdJUflcE3cUzKiMqQgsCu06FPu9UdIJO0beYbPhHN4k6apgJtifcoCtT9bcxOpYBtpD2kCM6Sbzg4CausW/PKQ==",
      "dev": true,
      "license": "MIT"
    },
`,
	"yarn.lock": `js-tokens@^4.0.0:
  version "4.0.0"
  resolved "https://registry.yarnpkg.com/js-tokens/-/js-tokens-4.0.0.tgz"
  integrity sha512-RdJUflcE3cUzKiMqQgsCu06FPu9UdIJO0beYbPhHN4k6apgJtifcoCtT9bcxOpYBtpD2kCM6Sbzg4CausW/PKQ==
`,
	"modules_test.go": "var goSum = \"golang.org/x/oauth2 v0.25.0 h1:CY4y7XT9v0cRI9oupztF8AgiIu99L/ksR/Xp/6jrZ70=\\n\" +\n" +
		"\t\"cloud.google.com/go/auth v0.18.1 h1:IwTEx92GFUo2pJ6Qea0EU3zYvKnTAeRCODxfA/G5UWs=\"\n",
	"pnpm-lock.yaml": `packages:

  js-tokens@4.0.0:
    resolution: {integrity: sha512-RdJUflcE3cUzKiMqQgsCu06FPu9UdIJO0beYbPhHN4k6apgJtifcoCtT9bcxOpYBtpD2kCM6Sbzg4CausW/PKQ==}
`,
}

// TestRedactorChecksums: checksums are not secrets. gitleaks skips go.sum
// and the lockfiles by name; the same lines anywhere else (a module list, a
// page quoting them) are left as they are too, by redact_allow.toml for the
// h1: hashes that generic-api-key would take, while a secret among them is
// still found.
func TestRedactorChecksums(t *testing.T) {
	r, err := ingest.NewRedactor(ingest.RedactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gitleaks, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range checksumFiles {
		for _, path := range []string{name, "models/inputs/" + name + ".txt", "docs/dependencies.md"} {
			t.Run(name+" as "+path, func(t *testing.T) {
				if out, found := r.Text(path, text); out != text || len(found) > 0 {
					t.Errorf("found %v; want nothing, the text as it is", found)
				}
			})
		}
		if strings.Contains(text, " h1:") {
			// Without ragbot's allowlist, gitleaks reports the hashes.
			if fs := gitleaks.Detect(detect.Fragment{Raw: text, FilePath: "docs/dependencies.md"}); len(fs) == 0 {
				t.Errorf("%s: gitleaks' default rules find nothing: the allowlist is not what keeps the hashes", name)
			}
		}
	}
	s := fakesecret.New(13)
	text := checksumFiles["go-modules.txt"] + fmt.Sprintf("oauth_token: %s\n", s.Password) + checksumFiles["go.sum"]
	out, found := r.Text("docs/dependencies.md", text)
	want := []ingest.Redaction{{Path: "docs/dependencies.md", Line: 4, Rule: "generic-api-key"}}
	if !slices.Equal(found, want) || strings.Contains(out, s.Password) {
		t.Errorf("a secret among checksums: found %v, want %v", found, want)
	}
}
