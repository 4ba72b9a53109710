package ingest_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestIndexGitLegacyEncoding indexes files that are not UTF-8: Windows-1252
// text ("caf\xe9") is stored decoded, bytes that are no printable
// single-byte text are stored as U+FFFD, and either way the file is named
// in a warning; a UTF-8 file is not.
func TestIndexGitLegacyEncoding(t *testing.T) {
	repo := newRepo(t)
	repo.write(t, map[string]string{
		"menu.py":       "def cafe_price():\n    \"\"\"Price of a caf\xe9 cr\xe8me, in \x80.\"\"\"\n    return 3\n",
		"notes.md":      "# Caf\xe9\n\nOpen at 8.\n",
		"broken.py":     "def odd():\n    return '\x81\x8d\x01'\n",
		"shop/store.go": storeGo,
	})
	repo.commit(t, "legacy")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	var logs syncBuffer
	ix := newIndexer(t, store, emb, t0.Add(100*time.Hour))
	ix.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	if _, err := ix.IndexGit(context.Background(), ingest.GitSource{ID: "repo:shop", Dir: repo.dir}, false); err != nil {
		t.Fatal(err)
	}
	content := map[string]string{}
	for _, c := range storedChunks(t, store, "repo:shop") {
		content[c.Path] += c.Content
	}
	for path, want := range map[string]string{
		"menu.py":   "Price of a café crème, in €.",
		"notes.md":  "# Café",
		"broken.py": "return '\uFFFD",
	} {
		if !strings.Contains(content[path], want) {
			t.Errorf("%s stored as %q, want it to contain %q", path, content[path], want)
		}
	}
	lines := strings.Split(logs.String(), "\n")
	for _, path := range []string{"menu.py", "notes.md", "broken.py"} {
		if !hasLine(lines, "level=WARN", "path="+path, "UTF-8") {
			t.Errorf("no warning naming %s:\n%s", path, logs.String())
		}
	}
	if hasLine(lines, "path=shop/store.go") {
		t.Errorf("a warning names the UTF-8 file shop/store.go:\n%s", logs.String())
	}
}

// hasLine reports whether a line holds every part.
func hasLine(lines []string, parts ...string) bool {
	for _, l := range lines {
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(l, p)
		}
		if ok {
			return true
		}
	}
	return false
}
