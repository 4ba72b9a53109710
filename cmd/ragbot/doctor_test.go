package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/embedders"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// doctorConfig writes a config for a git source at repo against the Weaviate
// at url, with extra appended (YAML at the top level).
func doctorConfig(t *testing.T, url, class, repo, extra string) string {
	t.Helper()
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    path: %s
    webhook_secret_env: RAGBOT_TEST_DOCTOR_HOOK
slack:
  bot_token_env: RAGBOT_TEST_DOCTOR_NO_SUCH_TOKEN
%s`, url, class, repo, extra)
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// defaultEmbedderName is the name of the embedder a config without an
// embedder section uses.
func defaultEmbedderName(t *testing.T, cfgPath string) string {
	t.Helper()
	cfg, err := config.Load(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	emb, err := embedders.New(context.Background(), cfg.Embedder, cfg.Resolve)
	if err != nil {
		t.Fatal(err)
	}
	return emb.Name()
}

// wantLines checks that out has a line starting with each of want.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		found := false
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, w) {
				found = true
			}
		}
		if !found {
			t.Errorf("no line starting with %q in:\n%s", w, out)
		}
	}
}

// TestDoctor runs `ragbot doctor` on a healthy setup (real Weaviate, an
// indexed git repo), then breaks one thing at a time: an unreadable git
// source, a webhook secret missing. The checks one by one are tested in
// internal/doctor.
func TestDoctor(t *testing.T) {
	repo, head := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	base, class := weaviatetest.URL(t), weaviatetest.ClassName()
	t.Setenv("RAGBOT_TEST_DOCTOR_HOOK", "s3cret")
	plain := doctorConfig(t, base, class, repo, "")
	name := defaultEmbedderName(t, plain)
	healthy := doctorConfig(t, base, class, repo, fmt.Sprintf("retrieval:\n  thresholds:\n    %q:\n      min_similarity: 0.3\n", name))
	t.Cleanup(func() { dropCollection(t, healthy) })

	// Before the first index: the collections are missing.
	code, out, _ := ragbot(t, "doctor", "--config", healthy)
	if code != 1 {
		t.Errorf("doctor before any index: exit %d, want 1\n%s", code, out)
	}
	wantLines(t, out, "FAIL collection "+class+": does not exist: nothing is indexed; fix: run `ragbot index`",
		"warn git httpx: branch ", "skip vocabulary: nothing indexed yet")

	if code, _, errOut := ragbot(t, "index", "--config", healthy); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	t.Run("healthy", func(t *testing.T) {
		code, out, errOut := ragbot(t, "doctor", "--config", healthy)
		if code != 0 {
			t.Errorf("exit %d, want 0\n%s%s", code, out, errOut)
		}
		wantLines(t, out, "ok   config: ", "ok   weaviate: "+base+" reachable, version 1.", "ok   collection "+class+": ",
			"ok   collection "+class+"SourceState: ", "ok   embedder: collection "+class+" matches the configured embedder",
			"ok   git httpx: index at the branch head "+head[:7], "ok   thresholds: retrieval.thresholds has an entry for "+name,
			"ok   webhook httpx: secret set (RAGBOT_TEST_DOCTOR_HOOK)", "skip slack: RAGBOT_TEST_DOCTOR_NO_SUCH_TOKEN not set here",
			"ok   vocabulary: every indexed source and branch (1) has the vocabulary of its last run")
		// The test's Weaviate answers without a key (the shared anonymous
		// server, or weaviatetest's proxy that adds it), which doctor warns
		// about; internal/doctor tests that check.
		rest := regexp.MustCompile(`(?m)^warn weaviate auth: .*\n`).ReplaceAllString(out, "")
		if strings.Contains(rest, "FAIL") || strings.Contains(rest, "warn") {
			t.Errorf("a healthy setup has failures or warnings:\n%s", out)
		}
	})
	t.Run("no vocabulary", func(t *testing.T) {
		// An index made before vocabularies: a warning, then `ragbot index`
		// counts one although the branch is up to date.
		id := (&retrieval.SourceVocabulary{Source: "repo:httpx", Branch: "main"}).ID()
		req, _ := http.NewRequest(http.MethodDelete, base+"/v1/objects/"+class+"SourceVocabulary/"+id, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusNoContent {
			t.Fatalf("delete the vocabulary: %v %v", resp, err)
		}
		resp.Body.Close()
		code, out, _ := ragbot(t, "doctor", "--config", healthy)
		if code != 0 {
			t.Errorf("exit %d, want 0: a missing vocabulary only warns\n%s", code, out)
		}
		wantLines(t, out, "warn vocabulary repo:httpx@main: no vocabulary counted for its last index run (an index made before vocabularies, or by an older ragbot); "+
			"answers check its absent names by document frequency during the search, and correct no typos; fix: run `ragbot index --source httpx`")
		if code, _, errOut := ragbot(t, "index", "--config", healthy); code != 0 {
			t.Fatalf("index: exit %d\n%s", code, errOut)
		}
		_, out, _ = ragbot(t, "doctor", "--config", healthy)
		wantLines(t, out, "ok   vocabulary: every indexed source and branch (1)")
	})
	t.Run("unreadable git source", func(t *testing.T) {
		notRepo := t.TempDir()
		cfg := doctorConfig(t, base, class, notRepo, "")
		code, out, _ := ragbot(t, "doctor", "--config", cfg)
		if code != 1 {
			t.Errorf("exit %d, want 1\n%s", code, out)
		}
		wantLines(t, out, "FAIL git httpx: cannot read the repository at "+notRepo+": ",
			"ok   weaviate: ") // the other checks still run
	})
	t.Run("webhook secret missing", func(t *testing.T) {
		// The config check already refuses a webhook_secret_env that is not set.
		t.Setenv("RAGBOT_TEST_DOCTOR_HOOK", "")
		code, out, _ := ragbot(t, "doctor", "--config", healthy)
		if code != 1 {
			t.Errorf("exit %d, want 1\n%s", code, out)
		}
		wantLines(t, out, "FAIL config: ")
		if !strings.Contains(out, "RAGBOT_TEST_DOCTOR_HOOK") {
			t.Errorf("the missing webhook secret is not named:\n%s", out)
		}
	})
}
