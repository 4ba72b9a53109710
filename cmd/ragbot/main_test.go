package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

// gitRepo makes a repository in a temp dir with one commit of files and
// returns its path and head SHA. The git environment is hermetic.
func gitRepo(t *testing.T, files map[string]string) (dir, head string) {
	t.Helper()
	dir = t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string { return runGit(t, dir, args...) }
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "initial")
	return dir, git("rev-parse", "HEAD")
}

// runGit runs git in dir with a hermetic environment and returns its trimmed output.
func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Ann Lee", "GIT_AUTHOR_EMAIL=ann@example.com", "GIT_AUTHOR_DATE=2026-01-02T03:04:05Z",
		"GIT_COMMITTER_NAME=Ann Lee", "GIT_COMMITTER_EMAIL=ann@example.com", "GIT_COMMITTER_DATE=2026-01-02T03:04:05Z")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

const retryGo = `package httpx

import "time"

// Backoff decides how long to wait between attempts.
type Backoff struct {
	Base time.Duration
}

// RetryOn503 reports whether a response status is worth retrying: 503
// Service Unavailable and 429 Too Many Requests are, anything else is not.
func RetryOn503(status int) bool {
	return status == 503 || status == 429
}

// Next returns the wait before attempt n, doubling each time.
func (b *Backoff) Next(n int) time.Duration {
	return b.Base << n
}
`

const readme = `# httpx

## Retries

Requests that fail with 503 are retried with exponential backoff.
`

// writeConfig writes a config pointing at the test Weaviate with a fresh collection.
func writeConfig(t *testing.T, repo string) string {
	t.Helper()
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    path: %s
    link_template: "https://git.example.com/httpx/blob/{commit}/{path}#L{start}-L{end}"
`, weaviatetest.URL(t), weaviatetest.ClassName(), repo)
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func ragbot(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestIndexThenAsk(t *testing.T) {
	repo, head := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme, "logo.png": "\x89PNG\x00\x00binary"})
	cfg := writeConfig(t, repo)
	t.Cleanup(func() { dropCollection(t, cfg) })

	code, out, errOut := ragbot(t, "index", "--config", cfg)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	wantSummary := "httpx@main (" + head[:7] + "): 2 files, 5 chunks (5 embedded, 0 reused, 0 unchanged, 0 deleted), skipped 1 (binary 1)" // 3 Go symbols; README: "# httpx" and "httpx > Retries"
	if !strings.Contains(out, wantSummary) {
		t.Errorf("index summary:\n%s\nwant it to contain:\n%s", out, wantSummary)
	}

	code, out, errOut = ragbot(t, "ask", "--config", cfg, "--json", "where is the retry for 503 errors decided?")
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s", code, errOut)
	}
	var ans retrieval.Answer
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	// Five chunks make thin evidence, and the answer band needs one hit
	// that is both similar and holds the question's words, so the outcome
	// may be "not sure"; either way its first match must be RetryOn503.
	if ans.Coverage == retrieval.NoCoverage || len(ans.Snippets) == 0 {
		t.Fatalf("answer: coverage %s with %d snippets", ans.Coverage, len(ans.Snippets))
	}
	got := ans.Snippets[0].Citation
	if got.Symbol != "RetryOn503" || got.Path != "httpx/retry.go" || got.StartLine != 10 || got.EndLine != 14 {
		t.Errorf("top citation %s %s:%d-%d, want RetryOn503 httpx/retry.go:10-14", got.Symbol, got.Path, got.StartLine, got.EndLine)
	}
	if got.CommitSHA != head || got.Author != "Ann Lee" || got.Branch != "main" {
		t.Errorf("citation commit %q author %q branch %q, want %s, Ann Lee, main", got.CommitSHA, got.Author, got.Branch, head)
	}
	if wantURL := "https://git.example.com/httpx/blob/" + head + "/httpx/retry.go#L10-L14"; got.URL != wantURL {
		t.Errorf("url %q, want %q", got.URL, wantURL)
	}
	if age := time.Since(got.IndexedAt); age < 0 || age > time.Minute {
		t.Errorf("indexed_at %v is not the index run's time", got.IndexedAt)
	}

	// The terminal form: `path:start-end  symbol  (source@abc1234, by author, indexed ...)`.
	code, out, _ = ragbot(t, "ask", "--config", cfg, "RetryOn503")
	header := regexp.MustCompile(`(?m)^\[1\] httpx/retry\.go:10-14  RetryOn503  \(httpx@` + head[:7] + `, by Ann Lee, indexed just now\)$`)
	if code != 0 || !header.MatchString(out) || !strings.Contains(out, "return status == 503 || status == 429") {
		t.Errorf("ask text output (exit %d):\n%s", code, out)
	}

	// Nothing about this is indexed: say so instead of guessing.
	code, out, _ = ragbot(t, "ask", "--config", cfg, "--json", "kubernetes helm chart ingress annotations")
	ans = retrieval.Answer{}
	if err := json.Unmarshal([]byte(out), &ans); code != 0 || err != nil {
		t.Fatalf("ask: exit %d, %v", code, err)
	}
	if ans.Coverage != retrieval.NoCoverage || ans.Confidence != "none" || len(ans.Snippets) != 0 {
		t.Errorf("unrelated question: coverage %s (confidence %q) with %d snippets, want no_coverage", ans.Coverage, ans.Confidence, len(ans.Snippets))
	}

	// A second run changes nothing.
	code, out, _ = ragbot(t, "index", "--config", cfg)
	if code != 0 || !strings.Contains(out, "up to date, 2 files, 5 chunks") {
		t.Errorf("re-index (exit %d): %s", code, out)
	}

	// A new commit not indexed yet: answers warn that snippets may be stale.
	if err := os.WriteFile(filepath.Join(repo, "NOTES.md"), []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, repo, "add", "NOTES.md")
	runGit(t, repo, "commit", "-q", "-m", "notes")
	newHead := runGit(t, repo, "rev-parse", "HEAD")
	code, out, _ = ragbot(t, "ask", "--config", cfg, "RetryOn503")
	wantWarn := "warning: httpx@main is indexed at " + head[:7] + " but the branch is at " + newHead[:7] + ": snippets may be stale (run ragbot index)"
	if code != 0 || !strings.Contains(out, wantWarn) {
		t.Errorf("ask after a new commit (exit %d):\n%s\nwant the line %q", code, out, wantWarn)
	}
}

func dropCollection(t *testing.T, cfgPath string) {
	t.Helper()
	a, err := openApp(context.Background(), commonFlags{config: cfgPath}, &bytes.Buffer{})
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	if err := a.store.Drop(context.Background()); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

func TestExitCodes(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("sources:\n  - name: x\n    kind: svn\n    path: /nonexistent\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no command", nil, 2, "Usage:"},
		{"unknown command", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"ask without question", []string{"ask"}, 2, "ask needs a question"},
		{"bad flag", []string{"index", "--nope"}, 2, "flag provided but not defined: -nope"},
		{"missing config", []string{"validate", "--config", "/nonexistent/ragbot.yaml"}, 1, "config file /nonexistent/ragbot.yaml not found"},
		{"bad config names the field", []string{"validate", "--config", bad}, 1, `sources[0].kind: got "svn", want one of git, markdown`},
		{"help", []string{"help"}, 0, ""},
		{"help of a command", []string{"help", "index"}, 0, "ragbot index indexes the configured sources"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := ragbot(t, tc.args...)
			if code != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and stderr containing %q", code, errOut, tc.wantCode, tc.wantErr)
			}
		})
	}
}

// TestAskGroups: chunks of a source with an acl are found only when ask
// names one of its groups.
func TestAskGroups(t *testing.T) {
	docs := t.TempDir()
	runbook := "# Payroll\n\n## Bonus run\n\nThe quarterly bonus payouts are computed by the bonus-run job on the first Monday.\n"
	if err := os.WriteFile(filepath.Join(docs, "payroll.md"), []byte(runbook), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf("weaviate:\n  url: %s\n  collection: %s\nsources:\n  - {name: payroll-docs, kind: markdown, path: %s, acl: [payroll]}\n",
		weaviatetest.URL(t), weaviatetest.ClassName(), docs)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropCollection(t, cfg) })
	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	q := "when are the quarterly bonus payouts computed?"
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{nil, false},
		{[]string{"--groups", "payroll"}, true},
	} {
		args := append(append([]string{"ask", "--config", cfg}, tt.args...), q)
		code, out, errOut := ragbot(t, args...)
		if code != 0 {
			t.Fatalf("ask %v: exit %d\n%s", tt.args, code, errOut)
		}
		if got := strings.Contains(out, "payroll.md"); got != tt.want {
			t.Errorf("ask %v: shows payroll.md %v, want %v\n%s", tt.args, got, tt.want, out)
		}
	}
	if code, _, errOut := ragbot(t, "ask", "--config", cfg, "--groups", "payroll, finanse", q); code != 2 || !strings.Contains(errOut, `--groups "finanse" is in no source's acl`) {
		t.Errorf("ask --groups with a typo: exit %d, %s; want 2 naming the group", code, errOut)
	}
}

// TestIndexMarkdownInGit: a markdown source inside an indexed repository is
// cited by its source name, at HEAD, with the git source's link.
func TestIndexMarkdownInGit(t *testing.T) {
	repo, head := gitRepo(t, map[string]string{
		"README.md":      "# httpx\n\nA small HTTP client.\n",
		"docs/README.md": "# Handbook\n\n## Escalation\n\nPage the on-call engineer through the escalation rota when the checkout queue stalls.\n",
	})
	cfg := filepath.Join(repo, "ragbot.yaml") // untracked, beside the docs: paths relative to it
	body := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    path: .
    exclude: [docs]
    link_template: "https://git.example.com/httpx/blob/{commit}/{path}#L{start}-L{end}"
  - name: handbook
    kind: markdown
    path: docs
`, weaviatetest.URL(t), weaviatetest.ClassName())
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropCollection(t, cfg) })
	code, out, errOut := ragbot(t, "index", "--config", cfg)
	if code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	if want := "handbook (" + head[:7] + "): "; !strings.Contains(out, want) {
		t.Errorf("index summary:\n%s\nwant a line starting %q", out, want)
	}
	code, out, errOut = ragbot(t, "ask", "--config", cfg, "who do we page when the checkout queue stalls?")
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"handbook: docs/README.md:3-5  Handbook > Escalation  (commit " + head[:7] + ", by Ann Lee, ",
		"https://git.example.com/httpx/blob/" + head + "/docs/README.md#L3-L5",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("ask output lacks %q:\n%s", want, out)
		}
	}
}

// TestHelpAndSuggestions: a mistyped command gets the closest one, -h of
// feedback prints its own help, and every line of the command list keeps
// the name apart from its description.
func TestHelpAndSuggestions(t *testing.T) {
	code, _, errOut := ragbot(t, "idnex")
	if code != 2 || !strings.HasPrefix(errOut, "ragbot: unknown command \"idnex\"; did you mean \"index\"?\n") {
		t.Errorf("ragbot idnex: exit %d, stderr:\n%s", code, errOut)
	}
	code, _, errOut = ragbot(t, "deploy")
	if code != 2 || !strings.HasPrefix(errOut, "ragbot: unknown command \"deploy\"\n") {
		t.Errorf("ragbot deploy: exit %d, stderr:\n%s", code, errOut)
	}
	code, out, errOut := ragbot(t, "feedback", "-h")
	if code != 0 || !strings.HasPrefix(out, "ragbot feedback export writes") {
		t.Errorf("feedback -h: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, _ = ragbot(t, "-h")
	if code != 0 {
		t.Fatalf("ragbot -h: exit %d", code)
	}
	_, list, _ := strings.Cut(out, "Commands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	entry := regexp.MustCompile(`^  [a-z]+ {2,}[a-z]`)
	for _, line := range strings.Split(list, "\n") {
		if !entry.MatchString(line) {
			t.Errorf("ragbot -h command line %q: want the name, two or more spaces, the description", line)
		}
	}
}

// rewriteConfig writes body to the config file at path, failing the test
// on an error.
func rewriteConfig(t *testing.T, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
