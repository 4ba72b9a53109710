package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// writeTinyModel trains a small static model on the test repository's
// words and saves it to path; seed makes another model.
func writeTinyModel(t *testing.T, path string, seed uint64) {
	t.Helper()
	text := strings.Repeat(retryGo+"\n\n"+readme+"\n\n", 20)
	sents := func(yield func([]string) bool) error {
		for _, b := range strings.Split(text, "\n\n") {
			if toks := embed.StaticTokens(b); len(toks) > 0 && !yield(toks) {
				break
			}
		}
		return nil
	}
	p := wordvec.DefaultParams()
	p.Dim, p.MinCount, p.Epochs, p.Seed = 16, 2, 2, seed
	m, _, err := wordvec.Train(context.Background(), sents, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := m.Quantized().Save(&buf, nil, true); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeStaticConfig writes a config for repo with the static embedder and
// the model at model.
func writeStaticConfig(t *testing.T, repo, model string) string {
	t.Helper()
	cfg := fmt.Sprintf(`weaviate:
  url: %s
  collection: %s
embedder: {kind: static, model: %s}
sources:
  - {name: httpx, kind: git, path: %s}
`, weaviatetest.URL(t), weaviatetest.ClassName(), model, repo)
	path := filepath.Join(t.TempDir(), "ragbot.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestStaticReembedOnModelChange: a new model file means new vectors, so
// ask refuses the collection until index re-embeds it, which index does by
// itself (no --recreate).
func TestStaticReembedOnModelChange(t *testing.T) {
	repo, head := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	model := filepath.Join(t.TempDir(), "model.bin")
	writeTinyModel(t, model, 1)
	cfg := writeStaticConfig(t, repo, model)
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

	writeTinyModel(t, model, 2) // another seed: other vectors, another Name
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

// TestEmbeddingsTrain trains on tiny input trees twice: the pinned inputs
// are printed, PROVENANCE.md is written, and the model files are equal.
func TestEmbeddingsTrain(t *testing.T) {
	goroot, py := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(goroot, "src", "net"), 0o755)
	os.WriteFile(filepath.Join(goroot, "src", "net", "dial.go"), []byte(strings.Repeat(retryGo+"\n", 5)), 0o644)
	os.WriteFile(filepath.Join(py, "retry.py"), []byte(strings.Repeat("# Retry the request with backoff.\ndef retry_request(backoff):\n    return backoff\n\n", 20)), 0o644)
	var files [2][]byte
	for i := range files {
		out := filepath.Join(t.TempDir(), "static", "model.bin")
		code, stdout, errOut := ragbot(t, "embeddings", "train", "--goroot", goroot, "--python", py, "--man", "", "--doc", "",
			"--dim", "8", "--min-count", "2", "--epochs", "2", "--out", out)
		if code != 0 {
			t.Fatalf("embeddings train: exit %d\n%s", code, errOut)
		}
		if !strings.Contains(stdout, "pinned inputs:") || !strings.Contains(stdout, "1 files") {
			t.Errorf("embeddings train output lacks the pinned inputs:\n%s", stdout)
		}
		prov, err := os.ReadFile(filepath.Join(filepath.Dir(out), "PROVENANCE.md"))
		if err != nil || !bytes.Contains(prov, []byte("Mikolov")) {
			t.Errorf("PROVENANCE.md: %v\n%s", err, prov)
		}
		if files[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
		s, err := embed.LoadStatic(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.Model().ID("backoff"); !ok {
			t.Errorf("model lacks %q", "backoff")
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("two trainings on the same inputs gave different model files")
	}
}
