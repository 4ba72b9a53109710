package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestForgetUnknownSource: a --source name that is neither configured nor
// in the index is an error (exit 1) naming it, the configured names and
// those only in the index, with a "did you mean" when one is close, and
// deletes nothing; a configured source with nothing indexed, and a source
// only in the index, are forgotten with exit 0 (the latter's second
// forget then finds neither).
func TestForgetUnknownSource(t *testing.T) {
	notes := t.TempDir()
	if err := os.WriteFile(filepath.Join(notes, "walrus.md"), []byte("# Walrus\n\nThe walrus lever.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	head := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n", weaviatetest.URL(t), weaviatetest.ClassName())
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
		t.Fatalf("indexed %d chunks of notes, want 1", n)
	}
	rewriteConfig(t, cfg, head+fmt.Sprintf("  - {name: fresh, kind: markdown, path: %s}\n", t.TempDir())) // notes only in the index now

	const known = "(configured: fresh; in the index only: notes)"
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--source", "frsh"}, `--source "frsh" is neither configured nor in the index; did you mean "fresh"? ` + known},
		{[]string{"--source", "note", "--dry-run"}, `--source "note" is neither configured nor in the index; did you mean "notes"? ` + known},
		{[]string{"--source", "zzzzzz"}, `--source "zzzzzz" is neither configured nor in the index ` + known},
		{[]string{"--source", "OTE"}, `--source "OTE" is neither configured nor in the index; did you mean "notes"? ` + known}, // the only name containing it
		{[]string{"--source", "es"}, `--source "es" is neither configured nor in the index ` + known},                          // too short to look for
		{[]string{"--source", "frsh", "--path", "**"}, `--source "frsh" is neither configured nor in the index; did you mean "fresh"?`},
	} {
		code, out, errOut := ragbot(t, append([]string{"forget", "--config", cfg}, tt.args...)...)
		if code != 1 || !strings.Contains(errOut, tt.want) || out != "" {
			t.Errorf("forget %q: exit %d, want 1, no stdout and %q on stderr:\n%s%s", tt.args, code, tt.want, out, errOut)
		}
	}
	if n := count(); n != 1 {
		t.Fatalf("the failed forgets left %d chunks of notes, want 1", n)
	}

	if code, out, errOut := ragbot(t, "forget", "--config", cfg, "--source", "fresh"); code != 0 || !strings.Contains(out, "forgot 0 chunks of 1 source") {
		t.Errorf("forget of a configured source never indexed: exit %d\n%s%s", code, out, errOut)
	}
	if code, out, errOut := ragbot(t, "forget", "--config", cfg, "--source", "notes"); code != 0 || !strings.Contains(out, "forgot 1 chunk of 1 source") {
		t.Errorf("forget of a source only in the index: exit %d\n%s%s", code, out, errOut)
	}
	if n := count(); n != 0 {
		t.Errorf("after forget --source notes: %d chunks left", n)
	}
	code, out, errOut := ragbot(t, "forget", "--config", cfg, "--source", "notes")
	if want := `--source "notes" is neither configured nor in the index`; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("second forget of a source only in the index: exit %d, want 1 and %q:\n%s%s", code, want, out, errOut)
	}
}
