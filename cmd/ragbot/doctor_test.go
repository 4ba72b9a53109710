package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/config"
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
	emb, err := newEmbedder(context.Background(), cfg, &bytes.Buffer{})
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

// setShard sets the status of every shard of class over Weaviate's REST API
// (PUT /v1/schema/{class}/shards/{shard}) and returns the shard names.
func setShard(t *testing.T, base, class, status string) []string {
	t.Helper()
	resp, err := http.Get(base + "/v1/schema/" + class + "/shards")
	if err != nil {
		t.Fatal(err)
	}
	var shards []struct{ Name string }
	err = json.NewDecoder(resp.Body).Decode(&shards)
	resp.Body.Close()
	if err != nil || len(shards) == 0 {
		t.Fatalf("shards of %s: %v %v", class, shards, err)
	}
	var names []string
	for _, s := range shards {
		req, _ := http.NewRequest(http.MethodPut, base+"/v1/schema/"+class+"/shards/"+s.Name, strings.NewReader(`{"status":"`+status+`"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("PUT shard %s status %s: %v %v", s.Name, status, resp, err)
		}
		resp.Body.Close()
		names = append(names, s.Name)
	}
	return names
}

// TestDoctor runs `ragbot doctor` on a healthy setup (real Weaviate, an
// indexed git repo), then breaks one thing at a time: a READONLY shard,
// no thresholds entry, an unreadable git source, Weaviate down.
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
		"warn git httpx: branch ")

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
		if strings.Contains(out, "FAIL") || strings.Contains(out, "warn") {
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
	t.Run("readonly shard", func(t *testing.T) {
		shards := setShard(t, base, class, "READONLY")
		defer setShard(t, base, class, "READY")
		code, out, errOut := ragbot(t, "doctor", "--config", healthy)
		if code != 1 || !strings.Contains(errOut, "ragbot doctor: 1 check failed") {
			t.Errorf("exit %d, stderr %q; want 1 and one failed check\n%s", code, errOut, out)
		}
		wantLines(t, out, fmt.Sprintf(`FAIL shard %s/%s: READONLY: index runs and votes cannot write (Weaviate sets this when the disk is nearly full); fix: free disk space on Weaviate's data dir, then curl -X PUT %s/v1/schema/%s/shards/%s -H 'Content-Type: application/json' -d '{"status":"READY"}'`,
			class, shards[0], base, class, shards[0]))
	})
	t.Run("no thresholds entry", func(t *testing.T) {
		code, out, _ := ragbot(t, "doctor", "--config", plain)
		if code != 0 {
			t.Errorf("exit %d, want 0: missing thresholds of an offline embedder only warn\n%s", code, out)
		}
		wantLines(t, out, "warn thresholds: no retrieval.thresholds entry for "+name+": using built-in defaults; fix: run `ragbot eval`")
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
	t.Run("weaviate down", func(t *testing.T) {
		cfg := doctorConfig(t, "http://127.0.0.1:1", class, repo, "")
		code, out, errOut := ragbot(t, "doctor", "--config", cfg)
		if code != 1 || !strings.Contains(errOut, "ragbot doctor: 1 check failed") {
			t.Errorf("exit %d, stderr %q; want 1 and one failed check\n%s", code, errOut, out)
		}
		wantLines(t, out, "FAIL weaviate: cannot reach http://127.0.0.1:1: ",
			"skip index: shards, embedder and git index state need Weaviate", "ok   webhook httpx: ")
		if !strings.Contains(out, "fix: start it (`systemctl start weaviate`, or `ragbot weaviate` for the local one) or correct weaviate.url") {
			t.Errorf("no fix for Weaviate down:\n%s", out)
		}
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
	t.Run("slack auth.test", func(t *testing.T) {
		fake := slackfake.New(t)
		cfg := doctorConfig(t, base, class, repo, fmt.Sprintf("  api_url: %s\n  mode: http\n  signing_secret_env: RAGBOT_TEST_DOCTOR_SIGNING\n", fake.APIURL()))
		t.Setenv("RAGBOT_TEST_DOCTOR_SIGNING", slackfake.SigningSecret)
		t.Setenv("RAGBOT_TEST_DOCTOR_NO_SUCH_TOKEN", slackfake.BotToken)
		code, out, _ := ragbot(t, "doctor", "--config", cfg)
		if code != 0 {
			t.Errorf("exit %d, want 0\n%s", code, out)
		}
		wantLines(t, out, "ok   slack: auth.test: bot ")
		t.Setenv("RAGBOT_TEST_DOCTOR_NO_SUCH_TOKEN", "xoxb-revoked")
		code, out, _ = ragbot(t, "doctor", "--config", cfg)
		if code != 1 {
			t.Errorf("revoked token: exit %d, want 1\n%s", code, out)
		}
		wantLines(t, out, "FAIL slack: auth.test: invalid_auth; fix: reinstall the app")
	})
}
