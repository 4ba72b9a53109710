package sources_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/config/configtest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/internal/doctor"
	"github.com/ragbot/ragbot/internal/forget"
	"github.com/ragbot/ragbot/internal/sources"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// The views forget and doctor take of the configured sources.
var (
	_ forget.Sources = sources.Sources{}
	_ doctor.Sources = sources.Sources{}
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

// loadConfig writes files under a new folder, then body as its
// ragbot.yaml, and loads it with the git token and webhook secret of
// testConfig in the environment.
func loadConfig(t *testing.T, files map[string]string, body string) (*config.Config, string) {
	t.Helper()
	t.Setenv("SOURCES_TEST_TOKEN", "ghp-token")
	t.Setenv("SOURCES_TEST_HOOK", "hook-secret")
	dir := t.TempDir()
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return configtest.Load(t, dir, body), dir
}

const testConfig = `indexing:
  repos_dir: repos
sources:
  - name: app
    kind: git
    path: app
    branches: [main]
    link_template: "https://git.example.com/app/{commit}/{path}#{start}"
  - name: payments
    kind: git
    url: https://github.com/acme/payments.git
    token_env: SOURCES_TEST_TOKEN
    webhook_secret_env: SOURCES_TEST_HOOK
    poll_interval: 10m
  - name: guide
    kind: markdown
    path: app/docs
  - name: export
    kind: html
    path: export
  - name: wiki
    kind: confluence
    url: https://acme.atlassian.net/wiki
    spaces: [OPS]
    ttl: 12h
    token_env: SOURCES_TEST_WIKI_TOKEN
    email_env: SOURCES_TEST_WIKI_EMAIL
  - name: specs
    kind: confluence
    flavour: datacenter
    url: https://conf.example.com/confluence
    spaces: [ENG]
    schedule: "0 3 * * *"
    token_env: SOURCES_TEST_SPECS_TOKEN
`

var testFiles = map[string]string{"app/main.go": "package main\n", "app/docs/retry.md": "# Retry\n\nRetries 503s.\n", "export/index.html": "<html></html>\n"}

// TestRepos: a local git source is read at its path; a remote one is
// cloned under repos_dir with the token and webhook secret of the
// variables its config names, and matched by its URL and web page.
func TestRepos(t *testing.T) {
	cfg, dir := loadConfig(t, testFiles, testConfig)
	got := sources.Sources{Config: cfg}.Repos()
	want := []ingest.Repo{
		{Name: "app", Branches: []string{"main"}, Source: ingest.GitSource{ID: "repo:app", Dir: filepath.Join(dir, "app"),
			LinkTemplate: "https://git.example.com/app/{commit}/{path}#{start}"}},
		{Name: "payments", Poll: cfg.Sources[1].PollInterval, WebhookSecret: "hook-secret",
			Source: ingest.GitSource{ID: "repo:payments", Dir: ingest.CloneDir(filepath.Join(dir, "repos"), "payments")},
			Remote: &ingest.Remote{URL: "https://github.com/acme/payments.git", Token: "ghp-token", TokenUser: cfg.Sources[1].TokenUser},
			URLs:   []string{"https://github.com/acme/payments.git", "https://github.com/acme/payments"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Repos (-want +got):\n%s", diff)
	}
}

// TestDir: a markdown folder under the config's folder is cited by its
// path and links as the git source holding it.
func TestDir(t *testing.T) {
	cfg, dir := loadConfig(t, testFiles, testConfig)
	got := sources.Sources{Config: cfg}.Dir(cfg.Sources[2])
	want := ingest.DirSource{ID: "docs:guide", Dir: filepath.Join(dir, "app/docs"), Prefix: "app/docs",
		LinkTemplate: "https://git.example.com/app/{commit}/{path}#{start}"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Dir (-want +got):\n%s", diff)
	}
}

// TestPages: an HTML export and a Confluence space with its token make a
// page set; a Confluence space without its token, or a git source, is an
// error naming the variable or the source.
func TestPages(t *testing.T) {
	cfg, _ := loadConfig(t, testFiles, testConfig)
	src := sources.Sources{Config: cfg}
	for _, tt := range []struct {
		source  int
		wantID  string
		wantErr string
	}{
		{source: 3, wantID: "docs:export"},
		{source: 5, wantErr: "SOURCES_TEST_SPECS_TOKEN"},
		{source: 0, wantErr: "app: a git source has no pages"},
	} {
		t.Run(cfg.Sources[tt.source].Name, func(t *testing.T) {
			set, err := src.Pages(cfg.Sources[tt.source])
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Pages = %v, want an error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || set.ID != tt.wantID || set.Pages == nil {
				t.Errorf("Pages = %+v, %v; want the page set of %s", set, err, tt.wantID)
			}
		})
	}
	t.Setenv("SOURCES_TEST_SPECS_TOKEN", "pat")
	if set, err := src.Pages(cfg.Sources[5]); err != nil || set.ID != "confluence:specs" {
		t.Errorf("Pages(specs) with its token = %+v, %v", set, err)
	}
}

// TestPageSyncs: one sync per Confluence space, at its schedule or every
// TTL; the page set is made when the sync runs.
func TestPageSyncs(t *testing.T) {
	cfg, _ := loadConfig(t, testFiles, testConfig)
	syncs := sources.Sources{Config: cfg}.PageSyncs()
	var got [][2]string
	for _, s := range syncs {
		got = append(got, [2]string{s.ID, s.Spec})
	}
	if diff := cmp.Diff([][2]string{{"confluence:wiki", "@every 12h0m0s"}, {"confluence:specs", "0 3 * * *"}}, got); diff != "" {
		t.Fatalf("PageSyncs (-want +got):\n%s", diff)
	}
	if _, err := syncs[1].Set(); err == nil || !strings.Contains(err.Error(), "SOURCES_TEST_SPECS_TOKEN") {
		t.Errorf("Set of specs without its token = %v, want an error naming the variable", err)
	}
}

// TestIndex: the sources asked for are indexed, one summary line each; a
// source that fails (a Confluence space without its token) does not stop
// the others, and its error is returned.
func TestIndex(t *testing.T) {
	cfg, _ := loadConfig(t, testFiles, testConfig)
	emb := embed.NewOffline()
	ix := &ingest.Indexer{Store: weaviatetest.NewStore(t, emb.Name()), Embedder: emb}
	var out bytes.Buffer
	err := sources.Sources{Config: cfg}.Index(context.Background(), ix, map[string]bool{"specs": true, "guide": true}, false, &out)
	if err == nil || !strings.Contains(err.Error(), "SOURCES_TEST_SPECS_TOKEN") {
		t.Errorf("Index = %v, want the error of specs naming its token variable", err)
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "guide: ") {
		t.Errorf("Index printed %q, want one line for guide", out.String())
	}
	n, cerr := ix.Store.Count(context.Background(), "docs:guide")
	if cerr != nil || n == 0 {
		t.Errorf("chunks of docs:guide = %d, %v; want some", n, cerr)
	}
}
