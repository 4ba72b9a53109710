package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/internal/fakesecret"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// settingsConfig writes to path a config with a git source and a markdown
// folder of repo and an API description, in collection class, and extra
// appended (YAML at the top level, or "").
func settingsConfig(t *testing.T, path, class, repo, extra string) {
	t.Helper()
	spec, err := filepath.Abs("../../testdata/openapi/shop-swagger2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: httpx
    kind: git
    path: %s
  - name: handbook
    kind: markdown
    path: %s
  - {name: shop-api, kind: openapi, path: %s}
%s`, weaviatetest.URL(t), class, repo, filepath.Join(repo, "docs"), spec, extra)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestDoctorSettingsDrift indexes a repository holding a token with
// indexing.redact false, then turns redaction back on without indexing:
// doctor warns (exit 0, as for every warning) that the git branch and the
// markdown folder were indexed with other settings, while their commit is
// current; after `ragbot index` the lines are ok again.
func TestDoctorSettingsDrift(t *testing.T) {
	token := fakesecret.New(7).GitHubPAT
	deploy := fmt.Sprintf("package deploy\n\n// Token is the release bot's token.\nfunc Token() string {\n\treturn %q\n}\n", token)
	doc := fmt.Sprintf("# Release\n\nThe release bot uses the token %s to tag releases.\n", token)
	repo, head := gitRepo(t, map[string]string{"deploy/token.go": deploy, "docs/release.md": doc})
	cfg, class := filepath.Join(t.TempDir(), "ragbot.yaml"), weaviatetest.ClassName()
	settingsConfig(t, cfg, class, repo, "indexing:\n  redact: false\n")
	t.Cleanup(func() { dropCollection(t, cfg) })
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index with redact false: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut := ragbot(t, "doctor", "--config", cfg)
	if code != 0 {
		t.Errorf("doctor after indexing with the config's settings: exit %d\n%s%s", code, out, errOut)
	}
	wantLines(t, out, "ok   git httpx: index at the branch head "+head[:7], "ok   markdown handbook: indexed with the config's settings",
		"ok   openapi shop-api: indexed with the config's settings")

	settingsConfig(t, cfg, class, repo, "") // redaction on, as by default
	code, out, errOut = ragbot(t, "doctor", "--config", cfg)
	if code != 0 {
		t.Errorf("doctor with redaction turned on since the index: exit %d, want 0 (warnings only)\n%s%s", code, out, errOut)
	}
	drift := ": indexed with other settings than the config (e.g. redaction, chunking, embedder); answers show what the last run stored until `ragbot index` re-reads it; fix: run `ragbot index --source "
	wantLines(t, out, "warn git httpx"+drift+"httpx`", "warn markdown handbook"+drift+"handbook`",
		"warn openapi shop-api: indexed from another version of the spec file or with other settings than the config", "ok   redaction: secrets replaced at index time")
	if strings.Contains(out, "ok   git httpx") {
		t.Errorf("doctor says the stale index is ok:\n%s", out)
	}
	if ans := askJSON(t, "--config", cfg, "release bot token"); !strings.Contains(fmt.Sprint(ans.Snippets), token) {
		t.Fatalf("before the re-index, the answer should still show the token the last run stored: %+v", ans.Snippets)
	}

	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index with redaction on: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = ragbot(t, "doctor", "--config", cfg)
	if code != 0 || strings.Contains(out, "indexed with other settings") {
		t.Errorf("doctor after the re-index: exit %d\n%s%s", code, out, errOut)
	}
	wantLines(t, out, "ok   git httpx: index at the branch head "+head[:7], "ok   markdown handbook: indexed with the config's settings",
		"ok   openapi shop-api: indexed with the config's settings")
	if ans := askJSON(t, "--config", cfg, "release bot token"); strings.Contains(fmt.Sprint(ans.Snippets), token) {
		t.Errorf("after the re-index the answer still shows the token: %+v", ans.Snippets)
	}
}

// TestIndexDropsUnconfiguredBranch indexes main and feature of a
// repository, removes feature from the source's branches and indexes
// again: the summary says feature's chunks were deleted, and neither
// chunks nor index state of feature are left (forget --dry-run finds none).
func TestIndexDropsUnconfiguredBranch(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	runGit(t, repo, "checkout", "-q", "-b", "feature")
	if err := os.WriteFile(filepath.Join(repo, "httpx/extra.go"), []byte("package httpx\n\n// Extra is new on feature.\nfunc Extra() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, repo, "add", ".")
	runGit(t, repo, "commit", "-q", "-m", "extra")
	runGit(t, repo, "checkout", "-q", "main")
	cfg, class := filepath.Join(t.TempDir(), "ragbot.yaml"), weaviatetest.ClassName()
	write := func(branches string) {
		body := fmt.Sprintf("weaviate:\n  url: %s\n  collection: %s\nsources:\n  - name: httpx\n    kind: git\n    path: %s\n    branches: [%s]\n",
			weaviatetest.URL(t), class, repo, branches)
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main, feature")
	t.Cleanup(func() { dropCollection(t, cfg) })
	code, out, errOut := ragbot(t, "index", "--config", cfg)
	m := regexp.MustCompile(`(?m)^httpx@feature \([0-9a-f]{7}\): \d+ files, (\d+) chunks`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("index of main and feature: exit %d\n%s%s", code, out, errOut)
	}
	chunks, _ := strconv.Atoi(m[1])

	write("main")
	code, out, errOut = ragbot(t, "index", "--config", cfg)
	want := fmt.Sprintf("httpx@feature: branch no longer configured: %d chunks deleted\n", chunks)
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "httpx@main (") {
		t.Fatalf("index after dropping feature: exit %d\n%s%s\nwant the line %q", code, out, errOut, want)
	}
	a, err := openApp(t.Context(), commonFlags{config: cfg}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	branches, err := a.store.StateBranches(t.Context(), "repo:httpx")
	if err != nil || slices.Contains(branches, "feature") || !slices.Contains(branches, "main") {
		t.Errorf("branches with an index state: %v, %v; want main and not feature", branches, err)
	}
	code, out, errOut = ragbot(t, "forget", "--config", cfg, "--source", "httpx", "--branch", "feature", "--dry-run")
	if code != 0 || !strings.Contains(out, "@feature: 0 chunks\n") {
		t.Errorf("forget --dry-run of feature: exit %d\n%s%s\nwant 0 chunks and no index state", code, out, errOut)
	}
	// Indexing again deletes nothing more and says nothing of feature.
	if code, out, _ = ragbot(t, "index", "--config", cfg); code != 0 || strings.Contains(out, "feature") {
		t.Errorf("second index after dropping feature: exit %d\n%s", code, out)
	}
}
