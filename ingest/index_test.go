package ingest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	wvclient "github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) {
	// The indexer runs git too: keep the user's and the system's git config
	// (autocrlf, hooks, safe.directory, ...) out of it as well.
	os.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	weaviatetest.Main(m)
}

// t0 is the fixed clock of the tests: commit n of a test repo is dated
// t0 + n hours, and index run k runs at t0 + 100h + k hours.
var t0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// The author and the committer differ, so that a test sees which one ends up
// in Chunk.Author: the author of the last commit that changed the chunk's
// lines, never its committer (on GitHub the committer of a squash merge is
// "GitHub").
const (
	authorName    = "Ann Author"
	committerName = "Carl Committer"
)

// The files of the small multi-language test repository.
const (
	storeGo = `package shop

// Store keeps orders by id.
type Store struct {
	orders map[string]int
}

// Get returns the order with id.
func (s *Store) Get(id string) int {
	return s.orders[id]
}

// Put stores an order.
func (s *Store) Put(id string, n int) {
	s.orders[id] = n
}

func helper() int {
	return 1
}
`
	retryPy = `import time


def backoff(attempt):
    """Seconds to wait before retry attempt."""
    return 2 ** attempt


class Client:
    def get(self, url):
        time.sleep(backoff(1))
        return url
`
	readmeMd = `# Shop

A tiny order store.

## Install

Run go get.

## Usage

Call Store.Get.
`
	vendoredGo = "package lib\n\nfunc Lib() {}\n"
	goSum      = "github.com/acme/lib v1.0.0 h1:abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG=\n"
	logoPNG    = "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
)

// shopFiles is the first commit of the test repository.
var shopFiles = map[string]string{
	"shop/store.go":                     storeGo,
	"retry.py":                          retryPy,
	"README.md":                         readmeMd,
	"assets/logo.png":                   logoPNG,
	"vendor/github.com/acme/lib/lib.go": vendoredGo,
	"go.sum":                            goSum,
}

// shopChunks are the chunks of shopFiles.
var shopChunks = []chunkRow{
	{"README.md", "Shop", 1, 4},
	{"README.md", "Shop > Install", 5, 8},
	{"README.md", "Shop > Usage", 9, 11},
	{"retry.py", "backoff", 4, 6},
	{"retry.py", "Client", 9, 12},
	{"retry.py", "Client.get", 10, 12},
	{"shop/store.go", "Store", 3, 6},
	{"shop/store.go", "Store.Get", 8, 11},
	{"shop/store.go", "Store.Put", 13, 16},
	{"shop/store.go", "helper", 18, 20},
}

const linkTemplate = "https://git.example.com/shop/blob/{commit}/{path}#L{start}-L{end}"

func TestIndexGit(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, shopFiles)
	head := repo.commit(t, "shop")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	now := t0.Add(100 * time.Hour)
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir, LinkTemplate: linkTemplate}

	st, err := newIndexer(t, store, emb, now).IndexGit(ctx, src, false)
	if err != nil {
		t.Fatalf("IndexGit: %v", err)
	}
	wantStats := ingest.Stats{
		Source: "repo:shop", Branch: "main", Commit: head, Mode: ingest.ModeFull, Reason: "first index of the branch",
		Files: 3, Chunks: len(shopChunks), Embedded: len(shopChunks),
		Skipped: map[string]int{"binary": 1, "vendored": 1, "lockfile": 1},
	}
	if diff := cmp.Diff(wantStats, st, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(ingest.Stats{}, "Duration")); diff != "" {
		t.Errorf("Stats (-want +got):\n%s", diff)
	}
	got := storedChunks(t, store, src.ID)
	if diff := cmp.Diff(shopChunks, rows(got)); diff != "" {
		t.Errorf("stored chunks (-want +got):\n%s", diff)
	}
	commitTime := t0.Add(time.Hour)
	for _, c := range got {
		if c.ObjectID != c.ID() {
			t.Errorf("%s %q: object id %s, want Chunk.ID %s", c.Path, c.Symbol, c.ObjectID, c.ID())
		}
		wantKind := retrieval.KindCode
		if strings.HasSuffix(c.Path, ".md") {
			wantKind = retrieval.KindDoc
		}
		wantURL := fmt.Sprintf("https://git.example.com/shop/blob/%s/%s#L%d-L%d", head, c.Path, c.StartLine, c.EndLine)
		checks := []struct {
			field     string
			got, want any
		}{
			{"kind", c.Kind, wantKind},
			{"commit_sha", c.CommitSHA, head},
			{"branch", c.Branch, "main"},
			{"author", c.Author, authorName},
			{"modified_at", c.ModifiedAt, commitTime},
			{"indexed_at", c.IndexedAt, now},
			{"content_hash", c.ContentHash, retrieval.HashContent(c.Content)},
			{"url", c.URL, wantURL},
		}
		for _, ch := range checks {
			if ch.got != ch.want {
				t.Errorf("%s %q: %s = %v, want %v", c.Path, c.Symbol, ch.field, ch.got, ch.want)
			}
		}
	}
	state, ok, err := store.State(ctx, src.ID, "main")
	if err != nil || !ok {
		t.Fatalf("State: ok=%v err=%v", ok, err)
	}
	wantState := retrieval.SourceState{Source: src.ID, Branch: "main", CommitSHA: head, Embedder: emb.Name(),
		IndexedAt: now, Files: 3, Chunks: len(shopChunks)}
	if diff := cmp.Diff(wantState, state, cmpopts.IgnoreFields(retrieval.SourceState{}, "Settings")); diff != "" {
		t.Errorf("SourceState (-want +got):\n%s", diff)
	}
}

func TestIndexGitUnchanged(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, shopFiles)
	head := repo.commit(t, "shop")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatalf("first IndexGit: %v", err)
	}
	before := storedChunks(t, store, src.ID)

	tests := []struct {
		name string
		full bool
		want ingest.Stats
	}{
		{
			name: "up to date",
			want: ingest.Stats{Source: src.ID, Branch: "main", Commit: head, UpToDate: true,
				Files: 3, Chunks: len(shopChunks)},
		},
		{
			name: "full run re-embeds nothing",
			full: true,
			want: ingest.Stats{Source: src.ID, Branch: "main", Commit: head, Mode: ingest.ModeFull, Reason: "full run requested",
				Files: 3, Chunks: len(shopChunks), Kept: len(shopChunks),
				Skipped: map[string]int{"binary": 1, "vendored": 1, "lockfile": 1}},
		},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recordingEmbedder{Embedder: emb}
			st, err := newIndexer(t, store, rec, t0.Add(time.Duration(101+i)*time.Hour)).IndexGit(ctx, src, tt.full)
			if err != nil {
				t.Fatalf("IndexGit: %v", err)
			}
			if diff := cmp.Diff(tt.want, st, cmpopts.EquateEmpty(), cmpopts.IgnoreFields(ingest.Stats{}, "Duration")); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
			if got := rec.take(); len(got) > 0 {
				t.Errorf("embedded %q, want nothing", got)
			}
			n, err := store.Count(ctx, src.ID)
			if err != nil {
				t.Fatal(err)
			}
			if n != len(shopChunks) {
				t.Errorf("Count = %d, want %d", n, len(shopChunks))
			}
			// Kept chunks are not written: they keep the first run's indexed_at.
			if diff := cmp.Diff(before, storedChunks(t, store, src.ID)); diff != "" {
				t.Errorf("stored chunks changed (-before +after):\n%s", diff)
			}
		})
	}
}

func TestIndexGitFallbackAndCRLF(t *testing.T) {
	ctx := context.Background()
	// broken.py does not parse from its second function on: ok keeps its
	// symbol, the rest is cut into windows of 60 lines that overlap by 10.
	var broken strings.Builder
	broken.WriteString("def ok():\n    return 1\n\ndef broken(:\n")
	for i := range 96 {
		fmt.Fprintf(&broken, "    x%d = %d\n", i, i)
	}
	const goSrc = `package crlf

// A is first.
func A() int {
	return 1
}

// B is second.
func B() int {
	return 2
}
`
	repo := newRepo(t)
	repo.write(t, map[string]string{
		"broken.py": broken.String(),
		"lf.go":     goSrc,
		"crlf.go":   strings.ReplaceAll(goSrc, "\n", "\r\n"),
	})
	repo.commit(t, "fallback")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:fallback", Dir: repo.dir}

	st, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false)
	if err != nil {
		t.Fatalf("IndexGit: %v", err)
	}
	if diff := cmp.Diff(map[string]int{"parse error": 1}, st.Fallback); diff != "" {
		t.Errorf("Stats.Fallback (-want +got):\n%s", diff)
	}
	if st.Files != 3 {
		t.Errorf("Stats.Files = %d, want 3", st.Files)
	}
	want := []chunkRow{
		{"broken.py", "ok", 1, 2},
		{"broken.py", "", 4, 63},
		{"broken.py", "", 54, 100},
		{"crlf.go", "A", 3, 6},
		{"crlf.go", "B", 8, 11},
		{"lf.go", "A", 3, 6},
		{"lf.go", "B", 8, 11},
	}
	got := storedChunks(t, store, src.ID)
	if diff := cmp.Diff(want, rows(got)); diff != "" {
		t.Errorf("stored chunks (-want +got):\n%s", diff)
	}
	// Nothing of broken.py is dropped: ok and the windows hold every
	// non-blank line.
	lines := strings.Split(strings.TrimSuffix(broken.String(), "\n"), "\n")
	covered := make([]bool, len(lines)+1)
	content := map[string]string{}
	for _, c := range got {
		content[c.Path+":"+c.Symbol] = c.Content
		if c.Path != "broken.py" {
			continue
		}
		if want := map[string]string{"ok": "function", "": "window"}[c.Symbol]; c.SymbolKind != want {
			t.Errorf("broken.py %d-%d: symbol_kind %q, want %q", c.StartLine, c.EndLine, c.SymbolKind, want)
		}
		if want := strings.Join(lines[c.StartLine-1:c.EndLine], "\n"); c.Content != want {
			t.Errorf("broken.py %d-%d: content is not lines %d-%d of the file", c.StartLine, c.EndLine, c.StartLine, c.EndLine)
		}
		for l := c.StartLine; l <= c.EndLine; l++ {
			covered[l] = true
		}
	}
	for l := 1; l <= len(lines); l++ {
		if !covered[l] && strings.TrimSpace(lines[l-1]) != "" {
			t.Errorf("broken.py line %d is in no chunk", l)
		}
	}
	// CRLF gives the content of LF, without CR.
	for _, sym := range []string{"A", "B"} {
		if lf, crlf := content["lf.go:"+sym], content["crlf.go:"+sym]; lf != crlf || strings.Contains(crlf, "\r") {
			t.Errorf("%s: crlf.go content %q, want lf.go's %q", sym, crlf, lf)
		}
	}
}

// TestIndexGitInterrupted stops a run half-way through its embed batches and
// checks that the state does not advance and that the next run completes the
// index without duplicates or holes.
func TestIndexGitInterrupted(t *testing.T) {
	ctx := context.Background()
	var big strings.Builder
	big.WriteString("package big\n")
	for i := range 600 { // 600 chunks: three embed batches of up to 256
		fmt.Fprintf(&big, "\n// F%d returns %d.\nfunc F%d() int { return %d }\n", i, i, i, i)
	}
	repo := newRepo(t)
	repo.write(t, map[string]string{"shop/store.go": storeGo, "README.md": readmeMd})
	first := repo.commit(t, "small")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:big", Dir: repo.dir}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatalf("IndexGit at the first commit: %v", err)
	}
	repo.write(t, map[string]string{"big/big.go": big.String()})
	second := repo.commit(t, "big")

	// A run at the second commit, canceled when its last embed call (of three)
	// returns: the first batches are stored by then, or being stored.
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	cut := &cancelingEmbedder{Embedder: emb, after: 3, cancel: cancel}
	_, err := newIndexer(t, store, cut, t0.Add(101*time.Hour)).IndexGit(runCtx, src, false)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted IndexGit: error %v, want one wrapping context.Canceled", err)
	}
	state, _, err := store.State(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	if state.CommitSHA != first || state.LastError == "" {
		t.Errorf("state after the interrupted run: commit %s, last error %q; want the first commit %s and an error",
			state.CommitSHA, state.LastError, first)
	}

	// The next run, with a fresh context, finishes the job.
	st, err := newIndexer(t, store, emb, t0.Add(102*time.Hour)).IndexGit(ctx, src, false)
	if err != nil {
		t.Fatalf("IndexGit after the interrupted run: %v", err)
	}
	t.Logf("run after the interruption: embedded %d, reused %d, kept %d", st.Embedded, st.Reused, st.Kept)
	// The interrupted run left its mark, so the next one is a full
	// reconcile: the 7 chunks of the unchanged files move to the second
	// commit with their vectors, what the interrupted run stored of
	// big/big.go is kept as it is, and only the rest of it is embedded.
	if st.UpToDate || st.Mode != ingest.ModeFull || !strings.HasPrefix(st.Reason, "the previous run did not finish") ||
		st.Commit != second || st.Embedded+st.Kept != 600 || st.Reused != 7 || st.Kept == 0 || st.Deleted != 0 {
		t.Errorf("Stats after the interrupted run = %+v; want a full run at %s after the unfinished one, embedded+kept == 600, kept > 0, 7 reused, nothing deleted",
			st, second)
	}
	state, _, err = store.State(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	if state.CommitSHA != second || state.LastError != "" {
		t.Errorf("state after the next run: commit %s, last error %q; want %s and no error",
			state.CommitSHA, state.LastError, second)
	}

	// The same as a clean index of the second commit: no duplicates, no holes.
	clean := weaviatetest.NewStore(t, emb.Name())
	cst, err := newIndexer(t, clean, emb, t0.Add(102*time.Hour)).IndexGit(ctx, src, false)
	if err != nil {
		t.Fatalf("clean IndexGit: %v", err)
	}
	if want := 600 + 4 + 3; cst.Chunks != want {
		t.Errorf("clean index: %d chunks, want %d", cst.Chunks, want)
	}
	for _, s := range []*weaviate.Store{store, clean} {
		if n, err := s.Count(ctx, src.ID); err != nil || n != cst.Chunks {
			t.Errorf("Count in %s = %d, %v; want %d", s.ChunkClass(), n, err, cst.Chunks)
		}
	}
	want, err := clean.ListStored(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.ListStored(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks after interrupted + next run vs a clean index (-clean +got):\n%s", diff)
	}
	stored := storedChunks(t, store, src.ID)
	gotVecs, err := store.Vectors(ctx, objectIDs(stored))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(embeddings(t, emb, stored), gotVecs, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("stored vectors vs embeddings of the stored chunks (-want +got):\n%s", diff)
	}
}

// TestIndexDir indexes a folder of markdown files (no git) after each of a
// list of changes.
func TestIndexDir(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	mtime := t0.Add(-24 * time.Hour)
	const guide = "# Guide\n\nIntro.\n\n## Setup\n\nRun it.\n"
	rec := &recordingEmbedder{Embedder: embed.NewOffline()}
	store := weaviatetest.NewStore(t, rec.Name())
	src := ingest.DirSource{ID: "docs:guide", Dir: dir, Exclude: []string{"drafts"}}

	type counts struct{ Files, Chunks, Embedded, Reused, Deleted int }
	steps := []struct {
		name     string
		edit     func(*testing.T)
		want     []chunkRow
		embedded []string
		// kept are the chunks ("path:symbol") left as they were: same
		// content, lines and version. They are not written again, so they
		// keep the indexed_at of the run that wrote them.
		kept   []string
		counts counts
	}{
		{
			name: "add",
			edit: func(t *testing.T) {
				writeFiles(t, dir, map[string]string{
					"guide.md":          guide,
					"sub/faq.md":        "## Why\n\nBecause.\n",
					"notes.txt":         "not markdown\n",
					".hidden/secret.md": "# Secret\n",
					"drafts/wip.md":     "# WIP\n",
				}, mtime)
			},
			want: []chunkRow{
				{"guide.md", "Guide", 1, 4},
				{"guide.md", "Guide > Setup", 5, 7},
				{"sub/faq.md", "Why", 1, 3},
			},
			embedded: []string{"guide.md:Guide", "guide.md:Guide > Setup", "sub/faq.md:Why"},
			counts:   counts{Files: 2, Chunks: 3, Embedded: 3},
		},
		{
			// Without a commit, the same content, lines and version say
			// nothing changed: nothing is written.
			name: "unchanged",
			edit: func(*testing.T) {},
			want: []chunkRow{
				{"guide.md", "Guide", 1, 4},
				{"guide.md", "Guide > Setup", 5, 7},
				{"sub/faq.md", "Why", 1, 3},
			},
			kept:   []string{"guide.md:Guide", "guide.md:Guide > Setup", "sub/faq.md:Why"},
			counts: counts{Files: 2, Chunks: 3},
		},
		{
			name: "insert a section above another",
			edit: func(t *testing.T) {
				writeFiles(t, dir, map[string]string{"guide.md": strings.Replace(guide, "## Setup", "## Build\n\nMake it.\n\n## Setup", 1)}, mtime)
			},
			want: []chunkRow{
				{"guide.md", "Guide", 1, 4},
				{"guide.md", "Guide > Build", 5, 8},
				{"guide.md", "Guide > Setup", 9, 11},
				{"sub/faq.md", "Why", 1, 3},
			},
			embedded: []string{"guide.md:Guide > Build"},
			// Setup moved down: rewritten with its stored vector.
			kept:   []string{"guide.md:Guide", "sub/faq.md:Why"},
			counts: counts{Files: 2, Chunks: 4, Embedded: 1, Reused: 1},
		},
		{
			name: "delete a file",
			edit: func(t *testing.T) {
				if err := os.Remove(filepath.Join(dir, "sub", "faq.md")); err != nil {
					t.Fatal(err)
				}
			},
			want: []chunkRow{
				{"guide.md", "Guide", 1, 4},
				{"guide.md", "Guide > Build", 5, 8},
				{"guide.md", "Guide > Setup", 9, 11},
			},
			kept:   []string{"guide.md:Guide", "guide.md:Guide > Build", "guide.md:Guide > Setup"},
			counts: counts{Files: 1, Chunks: 3, Deleted: 1},
		},
	}
	indexed := map[string]time.Time{} // "path:symbol" -> when a run last wrote it
	for i, step := range steps {
		if !t.Run(step.name, func(t *testing.T) {
			step.edit(t)
			now := t0.Add(time.Duration(100+i) * time.Hour)
			st, err := newIndexer(t, store, rec, now).IndexDir(ctx, src)
			if err != nil {
				t.Fatalf("IndexDir: %v", err)
			}
			got := counts{st.Files, st.Chunks, st.Embedded, st.Reused, st.Deleted}
			if diff := cmp.Diff(step.counts, got); diff != "" {
				t.Errorf("Stats (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(step.embedded, rec.take(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("embedded (-want +got):\n%s", diff)
			}
			stored := storedChunks(t, store, src.ID)
			if diff := cmp.Diff(step.want, rows(stored)); diff != "" {
				t.Errorf("stored chunks (-want +got):\n%s", diff)
			}
			for _, c := range stored {
				key := c.Path + ":" + c.Symbol
				wantIndexed := now
				if slices.Contains(step.kept, key) {
					wantIndexed = indexed[key]
				}
				if c.Kind != retrieval.KindDoc || c.CommitSHA != "" || c.Branch != "" || !c.ModifiedAt.Equal(mtime) || !c.IndexedAt.Equal(wantIndexed) {
					t.Errorf("%s %q: kind %q, commit %q, branch %q, modified_at %v, indexed_at %v; want doc, no commit, no branch, %v, %v",
						c.Path, c.Symbol, c.Kind, c.CommitSHA, c.Branch, c.ModifiedAt, c.IndexedAt, mtime, wantIndexed)
				}
				indexed[key] = c.IndexedAt
			}
		}) {
			break
		}
	}
}

func TestIndexGitBranch(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, map[string]string{"shop/store.go": storeGo})
	mainHead := repo.commit(t, "main")
	repo.git(t, "checkout", "-q", "-b", "feature")
	repo.write(t, map[string]string{"shop/store.go": storeGo + "\nfunc Extra() {}\n"})
	featureHead := repo.commit(t, "feature")
	repo.git(t, "checkout", "-q", "main")
	// A tag named like the branch, on another commit: git's own ref lookup
	// prefers refs/tags/feature over refs/heads/feature.
	repo.git(t, "tag", "feature", mainHead)

	mainChunks := []chunkRow{
		{"shop/store.go", "Store", 3, 6},
		{"shop/store.go", "Store.Get", 8, 11},
		{"shop/store.go", "Store.Put", 13, 16},
		{"shop/store.go", "helper", 18, 20},
	}
	tests := []struct {
		name       string
		branch     string
		wantBranch string
		wantCommit string
		want       []chunkRow
		wantErr    string // in the error, "" for none
	}{
		{name: "checked out", wantBranch: "main", wantCommit: mainHead, want: mainChunks},
		{name: "main", branch: "main", wantBranch: "main", wantCommit: mainHead, want: mainChunks},
		{
			name: "feature", branch: "feature", wantBranch: "feature", wantCommit: featureHead,
			want: append(mainChunks[:4:4], chunkRow{"shop/store.go", "Extra", 22, 22}),
		},
		{name: "unknown", branch: "nope", wantErr: `"nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			emb := embed.NewOffline()
			store := weaviatetest.NewStore(t, emb.Name())
			src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir, Branch: tt.branch}
			st, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("IndexGit: error %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("IndexGit: %v", err)
			}
			if st.Branch != tt.wantBranch || st.Commit != tt.wantCommit {
				t.Errorf("Stats: branch %q commit %s, want %q %s", st.Branch, st.Commit, tt.wantBranch, tt.wantCommit)
			}
			stored := storedChunks(t, store, src.ID)
			if diff := cmp.Diff(tt.want, rows(stored)); diff != "" {
				t.Errorf("stored chunks (-want +got):\n%s", diff)
			}
			for _, c := range stored {
				if c.Branch != tt.wantBranch || c.CommitSHA != tt.wantCommit {
					t.Errorf("%s %q: branch %q commit %s, want %q %s", c.Path, c.Symbol, c.Branch, c.CommitSHA, tt.wantBranch, tt.wantCommit)
				}
			}
			if _, ok, err := store.State(ctx, src.ID, tt.wantBranch); err != nil || !ok {
				t.Errorf("State(%q): ok=%v err=%v, want a state", tt.wantBranch, ok, err)
			}
		})
	}
}

// gitTestEnv is a hermetic environment for git: no user or system config, no
// inherited GIT_* variables, fixed names and dates.
func gitTestEnv(author, committer string, when time.Time) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	date := when.Format(time.RFC3339)
	return append(env,
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME="+author,
		"GIT_AUTHOR_EMAIL=ann@example.com",
		"GIT_AUTHOR_DATE="+date,
		"GIT_COMMITTER_NAME="+committer,
		"GIT_COMMITTER_EMAIL=committer@example.com",
		"GIT_COMMITTER_DATE="+date,
	)
}

// runGit runs git in dir and returns its trimmed stdout.
func runGit(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out))
}

// testRepo is a git repository in a temporary folder. Its methods take the
// t of the (sub)test that calls them.
type testRepo struct {
	dir       string
	author    string   // author of the next commit [authorName]
	committer string   // committer of the next commit [committerName]
	commits   []string // SHAs of the commits made, in order
}

// newRepo returns an empty repository whose branch is main.
func newRepo(t testing.TB) *testRepo {
	t.Helper()
	r := &testRepo{dir: t.TempDir()}
	r.git(t, "init", "-q", "-b", "main")
	return r
}

// when is the date of the next commit.
func (r *testRepo) when() time.Time { return t0.Add(time.Duration(len(r.commits)+1) * time.Hour) }

func (r *testRepo) git(t testing.TB, args ...string) string {
	t.Helper()
	author, committer := r.author, r.committer
	if author == "" {
		author = authorName
	}
	if committer == "" {
		committer = committerName
	}
	return runGit(t, r.dir, gitTestEnv(author, committer, r.when()), args...)
}

// write writes files (repo-relative path -> content), creating folders.
func (r *testRepo) write(t testing.TB, files map[string]string) {
	t.Helper()
	writeFiles(t, r.dir, files, time.Time{})
}

// commit stages everything and commits it; it returns the new head.
func (r *testRepo) commit(t testing.TB, msg string) string {
	t.Helper()
	r.git(t, "add", "-A")
	r.git(t, "commit", "-q", "--allow-empty", "-m", msg)
	sha := r.git(t, "rev-parse", "HEAD")
	r.commits = append(r.commits, sha)
	return sha
}

// head is the SHA of the checked-out commit.
func (r *testRepo) head(t testing.TB) string {
	t.Helper()
	return r.git(t, "rev-parse", "HEAD")
}

// writeFiles writes files (slash-separated path under dir -> content),
// creating folders, and sets their modification time to mtime unless it is zero.
func writeFiles(t testing.TB, dir string, files map[string]string, mtime time.Time) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if !mtime.IsZero() {
			if err := os.Chtimes(full, mtime, mtime); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// newIndexer returns an indexer whose clock stands at now and whose log goes
// to the test's output.
func newIndexer(t testing.TB, store *weaviate.Store, emb retrieval.Embedder, now time.Time) *ingest.Indexer {
	return &ingest.Indexer{
		Store:    store,
		Embedder: emb,
		Now:      func() time.Time { return now },
		Log:      slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn})),
		// SCIP costs seconds per run (Node); scip_test.go turns it on.
		NoSCIP: true,
	}
}

// storedChunk is a chunk as read back from Weaviate, with its object id.
type storedChunk struct {
	ObjectID string
	retrieval.Chunk
}

// storedChunks reads every chunk of source back from the store's collection
// (all fields, not only what ListStored returns), ordered by path, line and
// ordinal. It pages with Weaviate's cursor like ListStored does.
func storedChunks(t testing.TB, store *weaviate.Store, source string) []storedChunk {
	t.Helper()
	u, err := url.Parse(weaviatetest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	client, err := wvclient.NewClient(wvclient.Config{Host: u.Host, Scheme: u.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Source      string `json:"source"`
		Kind        string `json:"kind"`
		Path        string `json:"path"`
		Symbol      string `json:"symbol"`
		SymbolKind  string `json:"symbol_kind"`
		Language    string `json:"language"`
		Signature   string `json:"signature"`
		Content     string `json:"content"`
		StartLine   int    `json:"start_line"`
		EndLine     int    `json:"end_line"`
		Ordinal     int    `json:"ordinal"`
		CommitSHA   string `json:"commit_sha"`
		Branch      string `json:"branch"`
		URL         string `json:"url"`
		Author      string `json:"author"`
		ModifiedAt  string `json:"modified_at"`
		IndexedAt   string `json:"indexed_at"`
		ContentHash string `json:"content_hash"`
		Additional  struct {
			ID string `json:"id"`
		} `json:"_additional"`
	}
	names := []string{"source", "kind", "path", "symbol", "symbol_kind", "language", "signature", "content",
		"start_line", "end_line", "ordinal", "commit_sha", "branch", "url", "author", "modified_at",
		"indexed_at", "content_hash", "_additional { id }"}
	fields := make([]graphql.Field, len(names))
	for i, n := range names {
		fields[i] = graphql.Field{Name: n}
	}
	parse := func(s string) time.Time {
		if s == "" {
			return time.Time{}
		}
		tm, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatalf("stored date %q: %v", s, err)
		}
		return tm.UTC()
	}
	const page = 500
	class := store.ChunkClass()
	var out []storedChunk
	for after := ""; ; {
		get := client.GraphQL().Get().WithClassName(class).WithFields(fields...).WithLimit(page)
		if after != "" {
			get = get.WithAfter(after)
		}
		resp, err := get.Do(context.Background())
		if err != nil {
			t.Fatalf("read chunks: %v", err)
		}
		if len(resp.Errors) > 0 {
			t.Fatalf("read chunks: %s", resp.Errors[0].Message)
		}
		raw, err := json.Marshal(resp.Data["Get"])
		if err != nil {
			t.Fatal(err)
		}
		var got map[string][]row
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatal(err)
		}
		rows := got[class]
		for _, r := range rows {
			if r.Source != source {
				continue
			}
			out = append(out, storedChunk{ObjectID: r.Additional.ID, Chunk: retrieval.Chunk{
				Source: r.Source, Kind: r.Kind, Path: r.Path, Symbol: r.Symbol, SymbolKind: r.SymbolKind,
				Language: r.Language, Signature: r.Signature, Content: r.Content,
				StartLine: r.StartLine, EndLine: r.EndLine, Ordinal: r.Ordinal,
				CommitSHA: r.CommitSHA, Branch: r.Branch, URL: r.URL, Author: r.Author,
				ModifiedAt: parse(r.ModifiedAt), IndexedAt: parse(r.IndexedAt), ContentHash: r.ContentHash,
			}})
		}
		if len(rows) < page {
			break
		}
		after = rows[len(rows)-1].Additional.ID
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.Ordinal < b.Ordinal
	})
	return out
}

// chunkRow is what the tables spell out about a stored chunk.
type chunkRow struct {
	Path, Symbol string
	Start, End   int
}

func rows(cs []storedChunk) []chunkRow {
	var out []chunkRow
	for _, c := range cs {
		out = append(out, chunkRow{c.Path, c.Symbol, c.StartLine, c.EndLine})
	}
	return out
}

func objectIDs(cs []storedChunk) []string {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ObjectID
	}
	return ids
}

// embeddings returns the vector each chunk should have, by object id: emb's
// embedding of ingest.EmbedText of the chunk.
func embeddings(t testing.TB, emb retrieval.Embedder, cs []storedChunk) map[string][]float32 {
	t.Helper()
	texts := make([]string, len(cs))
	for i, c := range cs {
		texts[i] = ingest.EmbedText(c.Chunk)
	}
	vecs, err := emb.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]float32, len(cs))
	for i, c := range cs {
		out[c.ObjectID] = vecs[i]
	}
	return out
}

// recordingEmbedder embeds with Embedder and remembers what it was asked to
// embed, as "path:symbol" (from the first lines of ingest.EmbedText).
type recordingEmbedder struct {
	retrieval.Embedder
	mu   sync.Mutex
	seen []string
}

func (r *recordingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	r.mu.Lock()
	for _, text := range texts {
		symbol, rest, _ := strings.Cut(text, "\n")
		path, _, _ := strings.Cut(rest, "\n")
		r.seen = append(r.seen, path+":"+symbol)
	}
	r.mu.Unlock()
	return r.Embedder.Embed(ctx, texts)
}

// take returns what was embedded since the last take, sorted.
func (r *recordingEmbedder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.seen
	r.seen = nil
	sort.Strings(out)
	return out
}

// cancelingEmbedder embeds with Embedder and calls cancel once after calls
// Embed calls have returned: it stands for a run stopped half-way (a deploy,
// ^C, a timeout).
type cancelingEmbedder struct {
	retrieval.Embedder
	after  int32
	cancel context.CancelFunc
	calls  atomic.Int32
}

func (c *cancelingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	vecs, err := c.Embedder.Embed(ctx, texts)
	if c.calls.Add(1) == c.after {
		c.cancel()
	}
	return vecs, err
}

// TestIndexDirPrefix checks that a folder's prefix leads every chunk path,
// so a citation names the file as it is found from the repository root, and
// that a folder outside git gets no commit, author or link.
func TestIndexDirPrefix(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"setup.md": "## Tokens\n\nSet RAGBOT_TOKEN.\n", "ops/deploy.md": "# Deploy\n"}, t0)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.DirSource{ID: "docs:handbook", Dir: dir, Prefix: "docs", LinkTemplate: "https://git.example.com/{commit}/{path}"}
	if _, err := newIndexer(t, store, emb, t0).IndexDir(ctx, src); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range storedChunks(t, store, src.ID) {
		got = append(got, c.Path)
		if c.CommitSHA != "" || c.Author != "" || c.URL != "" { // a folder outside git
			t.Errorf("%s: commit %q, author %q, url %q, want none", c.Path, c.CommitSHA, c.Author, c.URL)
		}
	}
	if diff := cmp.Diff([]string{"docs/ops/deploy.md", "docs/setup.md"}, got); diff != "" {
		t.Errorf("chunk paths (-want +got):\n%s", diff)
	}
}

// TestIndexDirInGit indexes a markdown folder that lies in a git work tree:
// a file unchanged at HEAD is cited at HEAD, each section by the author of
// its newest line and linked with the file's path in the repository; a
// file with uncommitted edits, and an untracked one, are cited as any
// folder's files are, without commit, author or link.
func TestIndexDirInGit(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	const readme = "# Handbook\n\nHow we work.\n\n## Retries\n\nRetry 503 twice.\n"
	repo.write(t, map[string]string{"README.md": "# Root\n", "docs/README.md": readme, "docs/guide.md": "# Guide\n\nStart here.\n"})
	repo.commit(t, "docs") // t0+1h by Ann
	repo.author = "Dora Dev"
	repo.write(t, map[string]string{"docs/README.md": strings.Replace(readme, "twice", "three times", 1)})
	head := repo.commit(t, "more retries") // t0+2h by Dora
	writeFiles(t, repo.dir, map[string]string{"docs/guide.md": "# Guide\n\nStart here, edited.\n", "docs/new.md": "# New\n"}, t0)

	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.DirSource{ID: "docs:handbook", Dir: filepath.Join(repo.dir, "docs"),
		LinkTemplate: "https://git.example.com/h/blob/{commit}/{path}#L{start}-L{end}"}
	st, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexDir(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if st.Commit != head {
		t.Errorf("Stats.Commit = %q, want HEAD %s", st.Commit, head)
	}
	type cited struct {
		Commit, Author, URL string
		When                time.Time
	}
	link := func(start, end int) string {
		return fmt.Sprintf("https://git.example.com/h/blob/%s/docs/README.md#L%d-L%d", head, start, end)
	}
	want := map[string]cited{
		"README.md:Handbook":           {head, authorName, link(1, 4), t0.Add(1 * time.Hour)},
		"README.md:Handbook > Retries": {head, "Dora Dev", link(5, 7), t0.Add(2 * time.Hour)},
		"guide.md:Guide":               {When: t0},
		"new.md:New":                   {When: t0},
	}
	got := map[string]cited{}
	for _, c := range storedChunks(t, store, src.ID) {
		got[c.Path+":"+c.Symbol] = cited{c.CommitSHA, c.Author, c.URL, c.ModifiedAt.UTC()}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunk commit, author, link and modified_at (-want +got):\n%s", diff)
	}
}

// TestIndexSpecKeepsUnchanged re-indexes an unchanged API spec with full
// set: every operation is chunked again, but none is written, since its
// content, lines and version are what is stored. Writing them again would
// make Weaviate count their old postings in BM25 until it compacts, and
// move the ranking of every other source in the collection.
func TestIndexSpecKeepsUnchanged(t *testing.T) {
	ctx := context.Background()
	rec := &recordingEmbedder{Embedder: embed.NewOffline()}
	store := weaviatetest.NewStore(t, rec.Name())
	src := ingest.SpecSource{ID: "openapi:shop", File: filepath.Join("..", "testdata", "openapi", "orders.yaml")}
	first, err := newIndexer(t, store, rec, t0).IndexSpec(ctx, src, false)
	if err != nil {
		t.Fatal(err)
	}
	if first.Chunks == 0 || first.Embedded != first.Chunks {
		t.Fatalf("first run: %d chunks, %d embedded; want every chunk embedded", first.Chunks, first.Embedded)
	}
	rec.take()
	again, err := newIndexer(t, store, rec, t0.Add(time.Hour)).IndexSpec(ctx, src, true)
	if err != nil {
		t.Fatal(err)
	}
	if again.Kept != first.Chunks || again.Embedded != 0 || again.Reused != 0 || again.Deleted != 0 {
		t.Errorf("full re-index of the unchanged spec: kept %d, embedded %d, reused %d, deleted %d; want all %d kept, nothing written",
			again.Kept, again.Embedded, again.Reused, again.Deleted, first.Chunks)
	}
	for _, c := range storedChunks(t, store, src.ID) {
		if !c.IndexedAt.Equal(t0) {
			t.Errorf("%s: indexed_at %v, want %v (not written again)", c.Symbol, c.IndexedAt, t0)
		}
	}
	state, _, err := store.State(ctx, src.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	checkVocabulary(t, store, state)
}
