package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/confluence/confluencetest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// writeConfluenceConfig writes a config with one Data Center source on srv
// and a fresh collection.
func writeConfluenceConfig(t *testing.T, baseURL string) string {
	t.Helper()
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
sources:
  - name: ops-runbooks
    kind: confluence
    url: %s
    flavour: datacenter
    spaces: [OPS]
    ttl: 24h
`, weaviatetest.URL(t), weaviatetest.ClassName(), baseURL)
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestConfluenceIndexThenAsk runs `ragbot index` against a local Confluence
// and `ragbot ask` for an environment variable that appears only inside a
// code macro of the failover runbook.
func TestConfluenceIndexThenAsk(t *testing.T) {
	srv := confluencetest.New(t, confluencetest.DataCenter, confluencetest.Space{ID: "98306", Key: "OPS", Name: "Operations"})
	pages, err := confluencetest.LoadPages("../../testdata/confluence")
	if err != nil {
		t.Fatal(err)
	}
	srv.Put(pages...)
	t.Setenv("RAGBOT_CONFLUENCE_TOKEN", confluencetest.Token)
	cfg := writeConfluenceConfig(t, srv.BaseURL())
	t.Cleanup(func() { dropCollection(t, cfg) })

	code, out, errOut := ragbot(t, "index", "--config", cfg)
	// 5 pages: 5 + 4 + 6 + 3 + 5 sections (testdata/confluence/golden).
	if want := "ops-runbooks: 5 pages (5 fetched, 0 removed), 23 chunks (23 embedded, 0 reused, 0 deleted)"; code != 0 || !strings.Contains(out, want) {
		t.Fatalf("index: exit %d\n%s%s\nwant the line %q", code, out, errOut, want)
	}

	code, out, errOut = ragbot(t, "ask", "--config", cfg, "--json", "where is PGFAILOVER_PROMOTE_TIMEOUT set?")
	if code != 0 {
		t.Fatalf("ask: exit %d\n%s", code, errOut)
	}
	var ans retrieval.Answer
	if err := json.Unmarshal([]byte(out), &ans); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, out)
	}
	if ans.Coverage != retrieval.Covered || len(ans.Snippets) == 0 {
		t.Fatalf("answer: coverage %s with %d snippets", ans.Coverage, len(ans.Snippets))
	}
	got := ans.Snippets[0]
	wantURL := srv.BaseURL() + "/display/OPS/Database+failover#Databasefailover-Failoversteps"
	if got.Symbol != "Database failover > Failover steps" || got.Path != "OPS/Database failover" || got.URL != wantURL || got.Author != "Bob Stone" {
		t.Errorf("top citation %q %s %s by %q, want the Failover steps section of OPS/Database failover at %s by Bob Stone",
			got.Symbol, got.Path, got.URL, got.Author, wantURL)
	}
	if !strings.Contains(got.Text, "export PGFAILOVER_PROMOTE_TIMEOUT=120") {
		t.Errorf("snippet does not show the code macro:\n%s", got.Text)
	}

	// Nothing changed: nothing fetched.
	code, out, _ = ragbot(t, "index", "--config", cfg)
	if want := "ops-runbooks: 5 pages (0 fetched, 0 removed), 23 chunks (0 embedded, 0 reused, 0 deleted)"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("re-index (exit %d): %s\nwant %q", code, out, want)
	}

	// A revoked token: the run fails naming the request and status, never the token.
	t.Setenv("RAGBOT_CONFLUENCE_TOKEN", "revoked-token-0000")
	code, _, errOut = ragbot(t, "index", "--config", cfg)
	if code != 1 || !strings.Contains(errOut, "list pages of space OPS") || !strings.Contains(errOut, "status 401") || strings.Contains(errOut, "revoked-token-0000") {
		t.Errorf("index with a revoked token: exit %d\n%s", code, errOut)
	}
	// A missing one names the variable.
	t.Setenv("RAGBOT_CONFLUENCE_TOKEN", "")
	code, _, errOut = ragbot(t, "index", "--config", cfg)
	if want := "sources[0].token (from RAGBOT_CONFLUENCE_TOKEN): not set"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("index without a token: exit %d\n%s\nwant %q", code, errOut, want)
	}

	// Past the TTL, snippets of the source warn (the StaleDocs guard of the
	// pipeline that ask and serve share).
	a, err := openApp(context.Background(), commonFlags{config: cfg}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	stale, _ := a.pipeline(context.Background())
	stale.Guards = []retrieval.Guard{ingest.StaleDocs{States: a.store, TTLs: a.cfg.DocTTLs(), Now: func() time.Time { return time.Now().Add(26 * time.Hour) }}}
	ans, err = stale.Ask(context.Background(), retrieval.Request{Question: "PGFAILOVER_PROMOTE_TIMEOUT"})
	if err != nil || len(ans.Snippets) == 0 {
		t.Fatalf("ask: %v, %d snippets", err, len(ans.Snippets))
	}
	if s := ans.Snippets[0].Stale; s != "may be outdated, last indexed 26 hours ago (the last sync failed)" {
		t.Errorf("stale warning %q", s)
	}
}
