package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestIndexUnconfiguredOneChunk indexes a markdown folder of one section
// (one chunk), takes it out of the config, and checks the lines of index
// (reported) and index --prune (pruned) say "1 chunk", and that Weaviate
// holds the chunk until the prune and nothing after it.
func TestIndexUnconfiguredOneChunk(t *testing.T) {
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "walrus.md"), []byte("# Walrus\n\nThe walrus lever promotes the flamingo replica.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	head := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: empty, kind: markdown, path: %s}\n",
		weaviatetest.URL(t), weaviatetest.ClassName(), t.TempDir())
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(head + fmt.Sprintf("  - {name: notes, kind: markdown, path: %s}\n", notes))
	a, _ := openTestApp(t, cfg)
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	count := func() int {
		t.Helper()
		n, err := a.store.Count(t.Context(), "docs:notes")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("indexed %d chunks of notes, want 1 (one section)", n)
	}

	write(head)
	code, out, errOut := ragbot(t, "index", "--config", cfg)
	if want := "source notes: 1 chunk, not configured; `ragbot forget --source notes` or `ragbot index --prune` deletes them\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("index without notes: exit %d, want %q in\n%s%s", code, want, out, errOut)
	}
	if n := count(); n != 1 {
		t.Errorf("index without --prune left %d chunks of notes, want 1", n)
	}
	code, out, errOut = ragbot(t, "index", "--config", cfg, "--prune")
	if want := "source notes: pruned 1 chunk and its index state (not configured)\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("index --prune: exit %d, want %q in\n%s%s", code, want, out, errOut)
	}
	if n := count(); n != 0 {
		t.Errorf("after --prune: %d chunks of notes, want 0", n)
	}
}

// TestPlural: one is singular, other counts plural with thousands commas.
func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 chunks", 1: "1 chunk", 2: "2 chunks", 1234: "1,234 chunks", 1234567: "1,234,567 chunks"} {
		if got := plural(n, "chunk"); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
}
