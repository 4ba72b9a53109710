package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// askJSON runs `ragbot ask --json` and decodes the answer.
func askJSON(t *testing.T, args ...string) retrieval.Answer {
	t.Helper()
	code, out, errOut := ragbot(t, append([]string{"ask", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("ask %q: exit %d\n%s", args, code, errOut)
	}
	var ans retrieval.Answer
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	return ans
}

// TestAskBranchAndStale indexes a remote repository with two tracked
// branches, asks about each, then pushes a change and asks before and after
// the reindex: the stale snippet is marked and shows the current lines.
func TestAskBranchAndStale(t *testing.T) {
	origin := filepath.Join(t.TempDir(), "origin.git")
	runGit(t, filepath.Dir(origin), "init", "-q", "--bare", "-b", "main", origin)
	work, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	runGit(t, work, "checkout", "-q", "-b", "release-1.2")
	release := strings.Replace(retryGo, "return status == 503 || status == 429", "return status == 503", 1)
	if err := os.WriteFile(filepath.Join(work, "httpx/retry.go"), []byte(release), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, work, "commit", "-q", "-am", "release: no 429")
	runGit(t, work, "checkout", "-q", "main")
	runGit(t, work, "push", "-q", origin, "main", "release-1.2")

	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    url: file://%s
    branches: [main, release-1.2]
    link_template: "https://git.example.com/httpx/blob/{commit}/{path}#L{start}-L{end}"
`, weaviatetest.URL(t), weaviatetest.ClassName(), origin)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropCollection(t, cfg) })
	code, out, errOut := ragbot(t, "index", "--config", cfg)
	if code != 0 || !strings.Contains(out, "httpx@main") || !strings.Contains(out, "httpx@release-1.2") {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}

	for _, tc := range []struct {
		args       []string
		wantBranch string
		wantText   string
	}{
		{[]string{"RetryOn503"}, "main", "return status == 503 || status == 429"},
		{[]string{"--branch", "release-1.2", "RetryOn503"}, "release-1.2", "return status == 503\n"},
	} {
		ans := askJSON(t, append([]string{"--config", cfg}, tc.args...)...)
		if len(ans.Snippets) == 0 {
			t.Fatalf("ask %q: no snippets", tc.args)
		}
		for _, s := range ans.Snippets {
			if s.Branch != tc.wantBranch {
				t.Errorf("ask %q: snippet %s of branch %q, want %q", tc.args, s.Symbol, s.Branch, tc.wantBranch)
			}
		}
		if s := ans.Snippets[0]; s.Symbol != "RetryOn503" || !strings.Contains(s.Text+"\n", tc.wantText) || s.Stale != "" {
			t.Errorf("ask %q: top snippet %s %q stale %q, want RetryOn503 with %q", tc.args, s.Symbol, s.Text, s.Stale, tc.wantText)
		}
	}
	if code, _, errOut := ragbot(t, "ask", "--config", cfg, "--branch", "nope", "RetryOn503"); code != 2 || !strings.Contains(errOut, `--branch "nope" is not tracked`) {
		t.Errorf("ask --branch nope: exit %d, %s; want a usage error", code, errOut)
	}

	// Push a change, fetch it (as serve's poll or webhook run would start
	// to) but do not index: the snippet is marked and shows the new lines.
	changed := strings.Replace(retryGo, "return status == 503 || status == 429", "return status == 503 || status == 429 || status == 502", 1)
	if err := os.WriteFile(filepath.Join(work, "httpx/retry.go"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, work, "commit", "-q", "-am", "retry 502 too")
	runGit(t, work, "push", "-q", origin, "main")
	a, err := openApp(t.Context(), commonFlags{config: cfg}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	r := a.sources().Repo(a.cfg.Sources[0])
	if _, err := r.Remote.Sync(t.Context(), r.Source.Dir, []string{"main"}); err != nil {
		t.Fatal(err)
	}
	ans := askJSON(t, "--config", cfg, "RetryOn503")
	s := ans.Snippets[0]
	if !strings.Contains(s.Stale, "changed since indexed") || !strings.Contains(s.Text, "status == 502") {
		t.Errorf("snippet after an unindexed push: stale %q, text %q; want the warning and the current lines", s.Stale, s.Text)
	}
	if len(ans.Warnings) == 0 || !strings.Contains(strings.Join(ans.Warnings, "\n"), "httpx@main is indexed at") {
		t.Errorf("answer warnings %q, want the index-behind warning for main", ans.Warnings)
	}
	code, out, _ = ragbot(t, "index", "--config", cfg)
	if code != 0 || !strings.Contains(out, "httpx@main") || !strings.Contains(out, "incremental") {
		t.Errorf("index after the push (exit %d):\n%s\nwant an incremental run of main", code, out)
	}
	ans = askJSON(t, "--config", cfg, "RetryOn503")
	if s := ans.Snippets[0]; s.Stale != "" || !strings.Contains(s.Text, "status == 502") || len(ans.Warnings) != 0 {
		t.Errorf("after the reindex: stale %q, text %q, warnings %q; want fresh", s.Stale, s.Text, ans.Warnings)
	}
}
