package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/models"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// writeCodeSearchModel writes the built-in codesearch model to path with
// note in its header: the same vectors, but other bytes, so another hash
// and another embedder Name, as a retrained model has.
func writeCodeSearchModel(t *testing.T, path, note string) {
	t.Helper()
	m, _, err := codesearch.Load(models.CodeSearchV1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Train, err = json.Marshal(map[string]string{"note": note}); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestCodeSearchReembedOnModelChange: a new model file means new vectors, so
// ask refuses the collection until index re-embeds it, which index does by
// itself (no --recreate).
func TestCodeSearchReembedOnModelChange(t *testing.T) {
	repo, head := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	model := filepath.Join(t.TempDir(), "model.bin")
	writeCodeSearchModel(t, model, "first")
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
embedder: {kind: codesearch, model: %s}
sources:
  - {name: httpx, kind: git, path: %s}
`, weaviatetest.URL(t), weaviatetest.ClassName(), model, repo)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropCollection(t, cfg) })
	summary := "httpx@main (" + head[:7] + "): 2 files, 5 chunks (5 embedded, 0 reused, 0 unchanged, 0 deleted)"

	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 || !strings.Contains(out, summary) {
		t.Fatalf("first index: exit %d\n%s%s\nwant the summary %q", code, out, errOut, summary)
	}
	if code, out, _ := ragbot(t, "index", "--config", cfg); code != 0 || !strings.Contains(out, "up to date") {
		t.Errorf("second index with the same model: exit %d, %q; want up to date", code, out)
	}
	if code, _, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry for 503 decided?"); code != 0 {
		t.Fatalf("ask: exit %d\n%s", code, errOut)
	}

	writeCodeSearchModel(t, model, "second") // another file: another Name
	code, _, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry for 503 decided?")
	if code != 1 || !strings.Contains(errOut, "holds vectors from embedder") {
		t.Errorf("ask after the model changed: exit %d, %q; want the embedder mismatch", code, errOut)
	}
	code, out, errOut := ragbot(t, "index", "--config", cfg)
	if code != 0 || !strings.Contains(out, summary) || !strings.Contains(errOut, "re-embedding every source") {
		t.Fatalf("index after the model changed: exit %d\n%s%s\nwant a re-embed of everything", code, out, errOut)
	}
	if code, _, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry for 503 decided?"); code != 0 {
		t.Errorf("ask after the re-embed: exit %d\n%s", code, errOut)
	}
}
