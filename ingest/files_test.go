package ingest_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// chunkPaths returns the distinct paths of the stored chunks of source, sorted.
func chunkPaths(t *testing.T, cs []storedChunk) []string {
	t.Helper()
	var out []string
	for _, c := range cs {
		out = append(out, c.Path)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// TestGitFiles: GitFiles reads exactly the files an index run chunks:
// include and exclude apply, and lockfiles, binary and vendored files are
// left out, as IndexGit leaves them.
func TestGitFiles(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	files := map[string]string{"docs/guide.md": "# Guide\n\nRead me.\n", "docs/internal/secret.md": "# Secret\n\nNot for the index.\n"}
	for p, c := range shopFiles {
		files[p] = c
	}
	repo.write(t, files)
	head := repo.commit(t, "shop and docs")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir, Exclude: []string{"docs/internal"}}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	var got []string
	commit, err := ingest.GitFiles(ctx, src, func(path string, data []byte) error {
		got = append(got, path)
		if string(data) != files[path] {
			t.Errorf("GitFiles: %s: content differs from the committed file", path)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("GitFiles: %v", err)
	}
	if commit != head {
		t.Errorf("GitFiles read commit %s, want the head %s", commit, head)
	}
	slices.Sort(got)
	if diff := cmp.Diff(chunkPaths(t, storedChunks(t, store, src.ID)), got); diff != "" {
		t.Errorf("GitFiles paths against the paths of the indexed chunks (-indexed +read):\n%s", diff)
	}
	if slices.Contains(got, "docs/internal/secret.md") {
		t.Error("GitFiles read docs/internal/secret.md, under an excluded path")
	}
}

// TestDirFiles: DirFiles reads exactly the markdown files IndexDir chunks:
// not the excluded folder, hidden folders or other files.
func TestDirFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"guide.md":          "# Guide\n\nIntro.\n",
		"sub/faq.md":        "## Why\n\nBecause.\n",
		"notes.txt":         "not markdown\n",
		".hidden/secret.md": "# Secret\n",
		"drafts/wip.md":     "# WIP\n",
	}, t0)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.DirSource{ID: "docs:guide", Dir: dir, Exclude: []string{"drafts"}}
	if _, err := newIndexer(t, store, emb, t0).IndexDir(ctx, src); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := ingest.DirFiles(src, func(path string, _ []byte) error {
		got = append(got, path)
		return nil
	}); err != nil {
		t.Fatalf("DirFiles: %v", err)
	}
	want := []string{"guide.md", "sub/faq.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("DirFiles paths (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(chunkPaths(t, storedChunks(t, store, src.ID)), got); diff != "" {
		t.Errorf("DirFiles paths against the paths of the indexed chunks (-indexed +read):\n%s", diff)
	}
}
