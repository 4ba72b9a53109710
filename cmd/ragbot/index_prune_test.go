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
	rewriteConfig(t, cfg, head+fmt.Sprintf("  - {name: notes, kind: markdown, path: %s}\n", notes))
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

	rewriteConfig(t, cfg, head)
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

// TestIndexPruneDryRun: with a source taken out of the config and a new
// one added, index --prune --dry-run names what --prune would delete and
// leaves Weaviate as it was: the old source keeps its chunk and index
// state, the new one is not indexed.
func TestIndexPruneDryRun(t *testing.T) {
	notes, fresh := t.TempDir(), t.TempDir()
	for dir, text := range map[string]string{notes: "# Walrus\n\nThe walrus lever.\n", fresh: "# Flamingo\n\nThe flamingo replica.\n"} {
		if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	head := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n", weaviatetest.URL(t), weaviatetest.ClassName())
	rewriteConfig(t, cfg, head+fmt.Sprintf("  - {name: notes, kind: markdown, path: %s}\n", notes))
	a, _ := openTestApp(t, cfg)
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	held := func(id string) (chunks int, state bool) {
		t.Helper()
		n, err := a.store.Count(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := a.store.State(t.Context(), id, "")
		if err != nil {
			t.Fatal(err)
		}
		return n, ok
	}
	if n, ok := held("docs:notes"); n != 1 || !ok {
		t.Fatalf("indexed notes: %d chunks, state %v; want 1 and a state", n, ok)
	}

	rewriteConfig(t, cfg, head+fmt.Sprintf("  - {name: fresh, kind: markdown, path: %s}\n", fresh))
	code, out, errOut := ragbot(t, "index", "--config", cfg, "--prune", "--dry-run")
	for _, want := range []string{"source notes: would prune 1 chunk and its index state (not configured)\n", "dry run: nothing was deleted, nothing was indexed\n"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("index --prune --dry-run: exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	if strings.Contains(out, "fresh") {
		t.Errorf("index --prune --dry-run printed a line about the configured source:\n%s", out)
	}
	if n, ok := held("docs:notes"); n != 1 || !ok {
		t.Errorf("after --dry-run, notes has %d chunks, state %v; want 1 and its state", n, ok)
	}
	if n, ok := held("docs:fresh"); n != 0 || ok {
		t.Errorf("--dry-run indexed fresh: %d chunks, state %v", n, ok)
	}

	if code, out, errOut := ragbot(t, "index", "--config", cfg, "--prune"); code != 0 || !strings.Contains(out, "source notes: pruned 1 chunk") {
		t.Fatalf("index --prune: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = ragbot(t, "index", "--config", cfg, "--prune", "--dry-run")
	if want := "every source in the index is configured: nothing to prune\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("index --prune --dry-run with nothing to prune: exit %d, want %q in\n%s%s", code, want, out, errOut)
	}
}

// TestIndexDryRunUsage: --dry-run without --prune, or with a flag that
// asks for indexing, is a usage error (exit 2) naming the flags, caught
// before Weaviate is contacted; index -h documents it.
func TestIndexDryRunUsage(t *testing.T) {
	cfg := writeConfig(t, t.TempDir())
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--dry-run"}, "--dry-run goes with --prune"},
		{[]string{"--prune=false", "--dry-run"}, "--dry-run goes with --prune"},
		{[]string{"--prune", "--dry-run", "--full"}, "--prune --dry-run indexes nothing, so --full does not go with it"},
		{[]string{"--prune", "--dry-run", "--source", "httpx"}, "so --source does not go with it"},
		{[]string{"--prune", "--dry-run", "--recreate"}, "so --recreate does not go with it"},
	} {
		code, out, errOut := ragbot(t, append([]string{"index", "--config", cfg}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("index %q: exit %d, want 2 and %q:\n%s%s", tt.args, code, tt.want, out, errOut)
		}
	}
	code, out, errOut := ragbot(t, "index", "-h")
	for _, want := range []string{"--prune --dry-run\nprints what --prune would delete", "ragbot index --config ragbot.yaml --prune --dry-run", "-dry-run"} {
		if code != 0 || !strings.Contains(out+errOut, want) {
			t.Errorf("index -h: exit %d, lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
}
