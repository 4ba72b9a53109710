package ingest_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// storedKey is what a chunk set is compared by: the object id with the
// content hash and the fields that date the chunk.
type storedKey struct {
	Path, ContentHash, Author string
	ModifiedAt                time.Time
}

func keyed(cs []storedChunk) map[string]storedKey {
	out := make(map[string]storedKey, len(cs))
	for _, c := range cs {
		out[c.ObjectID] = storedKey{c.Path, c.ContentHash, c.Author, c.ModifiedAt}
	}
	return out
}

// embedKeys is the set of embedded texts of cs, as "path:symbol" plus the
// signature and content hash: a chunk whose key is in the set before a run
// must not be embedded by it.
func embedKeys(cs []storedChunk) map[string]string {
	out := map[string]string{}
	for _, c := range cs {
		out[c.Symbol+"\x00"+c.Path+"\x00"+c.Signature+"\x00"+c.ContentHash] = c.Path + ":" + c.Symbol
	}
	return out
}

// TestIndexGitIncremental changes a repository step by step and indexes it
// after each: add, modify, delete a function and a file, rename, force-push
// back, an unchanged head, then more files, a rename with an edit, binary
// files, a submodule entry, files over the size limit, a file becoming a
// symlink, a mode change, a merge commit, a force push and a rewritten and
// pruned history. After the first run, runs are incremental unless the
// history was rewritten. After every step, the chunk set must equal a
// fresh full index of the same commit (ids, content hashes, authors and
// modification times), the totals and the SourceState must match, exactly
// the chunks whose embedded text was not stored before are embedded, every
// chunk was read at a commit where its file is as at the head, and stored
// vectors are the embeddings of their chunks. The first steps also spell
// out the chunk set, what was embedded, the run's counts and authors.
func TestIndexGitIncremental(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	rec := &recordingEmbedder{Embedder: embed.NewOffline()}
	store := weaviatetest.NewStore(t, rec.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir, LinkTemplate: linkTemplate}

	// counts are the Stats fields a spelled-out step checks.
	type counts struct {
		UpToDate                                       bool
		Mode                                           string
		Files, Chunks, Embedded, Reused, Kept, Deleted int
	}
	// spelled is what a step spells out beyond the checks of every step.
	type spelled struct {
		rows     []chunkRow        // stored chunks after the run
		embedded []string          // "path:symbol" embedded by the run
		counts   counts            // of the run
		authors  map[string]string // "path:symbol" or "path" -> author of its chunks
	}
	const full, incr = ingest.ModeFull, ingest.ModeIncremental
	modified := strings.Replace(storeGo, "return s.orders[id]", "return s.orders[id] * 1", 1)
	withoutHelper := strings.Replace(modified, "\nfunc helper() int {\n\treturn 1\n}\n", "", 1)
	huge := "package huge\n\n" + strings.Repeat("// filler line to pass the one mebibyte limit of code.MaxFileBytes\n", 17000)
	const alphaGo = "package pkg\n\n// Alpha is the first letter.\nfunc Alpha() string {\n\treturn \"a\"\n}\n\n// Beta is the second.\nfunc Beta() string {\n\treturn \"b\"\n}\n\n// Gamma is the third.\nfunc Gamma() string {\n\treturn \"g\"\n}\n"
	const betaPy = "def one():\n    return 1\n\n\ndef two():\n    return 2\n"
	var forkPoint string // a commit to force-push back to
	steps := []struct {
		name     string
		author   string                      // "" for authorName
		edit     func(*testing.T, *testRepo) // changes the work tree; a commit follows unless noCommit
		noCommit bool                        // edit moved the branch itself
		mode     string                      // Stats.Mode; "" for an up-to-date run
		want     *spelled                    // nil: only the checks of every step
	}{
		{
			name: "add",
			edit: func(t *testing.T, r *testRepo) { r.write(t, shopFiles) },
			mode: full,
			want: &spelled{
				rows: shopChunks,
				embedded: []string{"README.md:Shop", "README.md:Shop > Install", "README.md:Shop > Usage",
					"retry.py:Client", "retry.py:Client.get", "retry.py:backoff",
					"shop/store.go:Store", "shop/store.go:Store.Get", "shop/store.go:Store.Put", "shop/store.go:helper"},
				counts:  counts{Mode: full, Files: 3, Chunks: 10, Embedded: 10},
				authors: map[string]string{"README.md": authorName, "retry.py": authorName, "shop/store.go": authorName},
			},
		},
		{
			name:   "modify one function body",
			author: "Dora Dev",
			edit: func(t *testing.T, r *testRepo) {
				r.write(t, map[string]string{"shop/store.go": modified})
			},
			mode: incr,
			want: &spelled{
				rows:     shopChunks,
				embedded: []string{"shop/store.go:Store.Get"},
				// The 3 other chunks of store.go move to the new commit with
				// their vectors; the 6 chunks of the other files stay.
				counts: counts{Mode: incr, Files: 3, Chunks: 10, Embedded: 1, Reused: 3, Kept: 6},
				// Blame dates each symbol: only Store.Get changed hands.
				authors: map[string]string{"README.md": authorName, "retry.py": authorName,
					"shop/store.go:Store.Get": "Dora Dev", "shop/store.go:Store": authorName, "shop/store.go:Store.Put": authorName},
			},
		},
		{
			name: "delete a function",
			edit: func(t *testing.T, r *testRepo) { r.write(t, map[string]string{"shop/store.go": withoutHelper}) },
			mode: incr,
			want: &spelled{
				rows: []chunkRow{
					{"README.md", "Shop", 1, 4},
					{"README.md", "Shop > Install", 5, 8},
					{"README.md", "Shop > Usage", 9, 11},
					{"retry.py", "backoff", 4, 6},
					{"retry.py", "Client", 9, 12},
					{"retry.py", "Client.get", 10, 12},
					{"shop/store.go", "Store", 3, 6},
					{"shop/store.go", "Store.Get", 8, 11},
					{"shop/store.go", "Store.Put", 13, 16},
				},
				counts:  counts{Mode: incr, Files: 3, Chunks: 9, Reused: 3, Kept: 6, Deleted: 1},
				authors: map[string]string{"shop/store.go:Store.Get": "Dora Dev", "shop/store.go:Store.Put": authorName},
			},
		},
		{
			name: "delete a file",
			edit: func(t *testing.T, r *testRepo) { r.git(t, "rm", "-q", "retry.py") },
			mode: incr,
			want: &spelled{
				rows: []chunkRow{
					{"README.md", "Shop", 1, 4},
					{"README.md", "Shop > Install", 5, 8},
					{"README.md", "Shop > Usage", 9, 11},
					{"shop/store.go", "Store", 3, 6},
					{"shop/store.go", "Store.Get", 8, 11},
					{"shop/store.go", "Store.Put", 13, 16},
				},
				counts: counts{Mode: incr, Files: 2, Chunks: 6, Kept: 6, Deleted: 3},
			},
		},
		{
			// The path is part of the embedded text (EmbedText), so the
			// moved chunks are embedded again: reusing the old vectors would
			// store vectors that are not the embedding of their chunk.
			name: "rename a file",
			edit: func(t *testing.T, r *testRepo) { r.git(t, "mv", "shop/store.go", "shop/orders.go") },
			mode: incr,
			want: &spelled{
				rows: []chunkRow{
					{"README.md", "Shop", 1, 4},
					{"README.md", "Shop > Install", 5, 8},
					{"README.md", "Shop > Usage", 9, 11},
					{"shop/orders.go", "Store", 3, 6},
					{"shop/orders.go", "Store.Get", 8, 11},
					{"shop/orders.go", "Store.Put", 13, 16},
				},
				embedded: []string{"shop/orders.go:Store", "shop/orders.go:Store.Get", "shop/orders.go:Store.Put"},
				counts:   counts{Mode: incr, Files: 2, Chunks: 6, Embedded: 3, Kept: 3, Deleted: 3},
				// Blame follows the rename: the lines keep their authors.
				authors: map[string]string{"README.md": authorName, "shop/orders.go:Store.Get": "Dora Dev", "shop/orders.go:Store": authorName},
			},
		},
		{
			name:     "force-push back to the second commit",
			edit:     func(t *testing.T, r *testRepo) { r.git(t, "reset", "-q", "--hard", r.commits[1]) },
			noCommit: true,
			mode:     full,
			want: &spelled{
				rows: shopChunks,
				embedded: []string{"retry.py:Client", "retry.py:Client.get", "retry.py:backoff",
					"shop/store.go:Store", "shop/store.go:Store.Get", "shop/store.go:Store.Put", "shop/store.go:helper"},
				counts:  counts{Mode: full, Files: 3, Chunks: 10, Embedded: 7, Reused: 3, Deleted: 3},
				authors: map[string]string{"README.md": authorName, "retry.py": authorName, "shop/store.go:Store.Get": "Dora Dev"},
			},
		},
		{
			name:     "run again at the same commit",
			edit:     func(*testing.T, *testRepo) {},
			noCommit: true,
			want: &spelled{
				rows:   shopChunks,
				counts: counts{UpToDate: true, Files: 3, Chunks: 10},
			},
		},
		{
			name: "add files",
			edit: func(t *testing.T, r *testRepo) {
				r.write(t, map[string]string{"pkg/alpha.go": alphaGo, "pkg/beta.py": betaPy})
			},
			mode: incr,
		},
		{
			name:   "modify a function",
			author: "Dora Dev",
			edit: func(t *testing.T, r *testRepo) {
				r.write(t, map[string]string{"pkg/alpha.go": strings.Replace(alphaGo, `return "b"`, `return "B"`, 1)})
			},
			mode: incr,
		},
		{
			name: "delete another file",
			edit: func(t *testing.T, r *testRepo) { r.git(t, "rm", "-q", "pkg/beta.py") },
			mode: incr,
		},
		{
			name: "rename a file and edit it",
			edit: func(t *testing.T, r *testRepo) {
				r.git(t, "mv", "pkg/alpha.go", "pkg/letters.go")
				r.write(t, map[string]string{"pkg/letters.go": strings.Replace(alphaGo, `return "b"`, `return "B"`, 1) +
					"\n// Delta is the fourth.\nfunc Delta() string {\n\treturn \"d\"\n}\n"})
				forkPoint = r.head(t)
			},
			mode: incr,
		},
		{
			name: "binary files",
			edit: func(t *testing.T, r *testRepo) {
				r.write(t, map[string]string{"assets/icon.bin": "\x00\x01\x02binary\x00", "assets/logo.png": logoPNG + "\x00more"})
			},
			mode: incr,
		},
		{
			name: "submodule entry",
			edit: func(t *testing.T, r *testRepo) {
				r.write(t, map[string]string{".gitmodules": "[submodule \"libs/ext\"]\n\tpath = libs/ext\n\turl = https://git.example.com/ext.git\n"})
				r.git(t, "update-index", "--add", "--cacheinfo", "160000,"+r.commits[0]+",libs/ext")
			},
			mode: incr,
		},
		{
			name: "files over the size limit",
			edit: func(t *testing.T, r *testRepo) {
				r.write(t, map[string]string{"data/huge.go": huge, "retry.py": retryPy + "\n" + strings.Repeat("# pad the file past one mebibyte\n", 33000)})
			},
			mode: incr,
		},
		{
			name: "a file becomes a symlink",
			edit: func(t *testing.T, r *testRepo) {
				if err := os.Remove(filepath.Join(r.dir, "README.md")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("pkg/letters.go", filepath.Join(r.dir, "README.md")); err != nil {
					t.Fatal(err)
				}
			},
			mode: incr,
		},
		{
			name: "mode change only",
			edit: func(t *testing.T, r *testRepo) {
				if err := os.Chmod(filepath.Join(r.dir, "shop/store.go"), 0o755); err != nil {
					t.Fatal(err)
				}
			},
			mode: incr,
		},
		{
			name:     "merge commit",
			noCommit: true,
			edit: func(t *testing.T, r *testRepo) {
				base := r.head(t)
				r.git(t, "checkout", "-q", "-b", "side")
				r.author = "Sid Side"
				r.write(t, map[string]string{"shop/store.go": strings.Replace(storeGo, "return 1", "return 2", 1)})
				r.commit(t, "side: helper returns 2")
				r.git(t, "checkout", "-q", "main")
				r.author = ""
				r.write(t, map[string]string{"pkg/letters.go": alphaGo, "docs/guide.md": "# Guide\n\n## Start\n\nRun it.\n"})
				r.commit(t, "main: letters back")
				r.git(t, "merge", "-q", "--no-ff", "-m", "merge side", "side")
				r.commits = append(r.commits, r.head(t))
				if r.head(t) == base {
					t.Fatal("merge made no commit")
				}
			},
			mode: incr,
		},
		{
			name:     "force push (rewritten history)",
			noCommit: true,
			edit: func(t *testing.T, r *testRepo) {
				r.git(t, "reset", "-q", "--hard", forkPoint)
				r.write(t, map[string]string{"pkg/letters.go": alphaGo + "\n// Omega is the last.\nfunc Omega() string {\n\treturn \"o\"\n}\n"})
				r.commit(t, "rewritten")
			},
			mode: full,
		},
		{
			name:     "history rewritten and pruned",
			noCommit: true,
			edit: func(t *testing.T, r *testRepo) {
				r.git(t, "reset", "-q", "--hard", "HEAD~1")
				r.write(t, map[string]string{"shop/extra.go": "package shop\n\n// Extra is new.\nfunc Extra() {}\n"})
				r.commit(t, "rewritten again")
				r.git(t, "branch", "-q", "-D", "side")
				r.git(t, "reflog", "expire", "--expire=now", "--all")
				r.git(t, "gc", "-q", "--prune=now")
			},
			mode: full,
		},
		{
			name:     "nothing changed since the last step",
			edit:     func(*testing.T, *testRepo) {},
			noCommit: true,
		},
	}
	for i, step := range steps {
		// Steps depend on each other: stop at the first that fails.
		if !t.Run(step.name, func(t *testing.T) {
			before := storedChunks(t, store, src.ID)
			repo.author = step.author
			step.edit(t, repo)
			if !step.noCommit {
				repo.commit(t, step.name)
			}
			head := repo.head(t)
			now := t0.Add(time.Duration(100+i) * time.Hour)
			st, err := newIndexer(t, store, rec, now).IndexGit(ctx, src, false)
			if err != nil {
				t.Fatalf("IndexGit: %v", err)
			}
			t.Logf("%s (%s): files %d chunks %d embedded %d reused %d kept %d deleted %d skipped %v",
				st.Mode, st.Reason, st.Files, st.Chunks, st.Embedded, st.Reused, st.Kept, st.Deleted, st.Skipped)
			if st.Mode != step.mode || st.Commit != head || st.UpToDate != (step.mode == "") {
				t.Errorf("run: mode %q at %s (up to date %v), want %q at head %s (reason %q)", st.Mode, st.Commit, st.UpToDate, step.mode, head, st.Reason)
			}
			after := storedChunks(t, store, src.ID)
			embedded := rec.take()

			// Only chunks whose embedded text was not stored before are embedded.
			old := embedKeys(before)
			var wantEmbedded []string
			for k, name := range embedKeys(after) {
				if _, ok := old[k]; !ok {
					wantEmbedded = append(wantEmbedded, name)
				}
			}
			sort.Strings(wantEmbedded)
			if diff := cmp.Diff(wantEmbedded, embedded, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("embedded vs chunks new to the store (-want +got):\n%s", diff)
			}

			// The same as a fresh index of the same commit.
			fresh := weaviatetest.NewStore(t, rec.Name())
			fst, err := newIndexer(t, fresh, rec.Embedder, now).IndexGit(ctx, src, false)
			if err != nil {
				t.Fatalf("fresh IndexGit: %v", err)
			}
			if diff := cmp.Diff(keyed(storedChunks(t, fresh, src.ID)), keyed(after)); diff != "" {
				t.Errorf("chunks vs a fresh index of %s (-fresh +incremental):\n%s", head[:7], diff)
			}
			if st.Files != fst.Files || st.Chunks != fst.Chunks {
				t.Errorf("totals: files %d chunks %d, fresh index: files %d chunks %d", st.Files, st.Chunks, fst.Files, fst.Chunks)
			}
			state, _, err := store.State(ctx, src.ID, "main")
			if err != nil || state.CommitSHA != head || state.LastError != "" || state.Chunks != fst.Chunks {
				t.Errorf("state: %+v, %v; want commit %s, no error, %d chunks", state, err, head, fst.Chunks)
			}
			if n, err := store.Count(ctx, src.ID); err != nil || n != len(after) {
				t.Errorf("Count = %d, %v; want the %d chunks read back", n, err, len(after))
			}
			// The vocabulary is that of the chunks as stored, current for the state.
			checkVocabulary(t, store, state)

			if w := step.want; w != nil {
				got := counts{st.UpToDate, st.Mode, st.Files, st.Chunks, st.Embedded, st.Reused, st.Kept, st.Deleted}
				if diff := cmp.Diff(w.counts, got); diff != "" {
					t.Errorf("Stats (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(w.embedded, embedded, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("embedded (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(w.rows, rows(after)); diff != "" {
					t.Errorf("stored chunks (-want +got):\n%s", diff)
				}
			}
			for _, c := range after {
				// A chunk was read at a commit where its file is as at the
				// head: the premise of the stale-citation guard.
				if at, now := repo.git(t, "rev-parse", c.CommitSHA+":"+c.Path), repo.git(t, "rev-parse", head+":"+c.Path); at != now {
					t.Errorf("%s %q: read at %s, where the file differs from the head's", c.Path, c.Symbol, c.CommitSHA[:7])
				}
				if want := fmt.Sprintf("https://git.example.com/shop/blob/%s/%s#L%d-L%d", c.CommitSHA, c.Path, c.StartLine, c.EndLine); c.URL != want {
					t.Errorf("%s %q: url %s, want %s", c.Path, c.Symbol, c.URL, want)
				}
				// Chunks at the new head were written by this run.
				if c.CommitSHA == head && !st.UpToDate && !c.IndexedAt.Equal(now) {
					t.Errorf("%s %q: indexed_at %v, want the run's %v", c.Path, c.Symbol, c.IndexedAt, now)
				}
				if step.want == nil {
					continue
				}
				want, ok := step.want.authors[c.Path+":"+c.Symbol]
				if !ok {
					want, ok = step.want.authors[c.Path]
				}
				if ok && c.Author != want {
					t.Errorf("%s %q: author %q, want %q", c.Path, c.Symbol, c.Author, want)
				}
			}
			// A reused vector is still the embedding of the chunk's text.
			gotVecs, err := store.Vectors(ctx, objectIDs(after))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(embeddings(t, rec.Embedder, after), gotVecs, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
				t.Errorf("stored vectors vs embeddings of the stored chunks (-want +got):\n%s", diff)
			}
		}) {
			break
		}
	}
}

// TestIndexGitBlame checks that a chunk is dated by the last commit that
// changed its own lines, in an incremental run and in a full one alike, and
// that a renamed file keeps its lines' history.
func TestIndexGitBlame(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, map[string]string{"shop/store.go": storeGo, "retry.py": retryPy})
	repo.commit(t, "first") // t0+1h by Ann
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	repo.author = "Dora Dev"
	repo.write(t, map[string]string{"shop/store.go": strings.Replace(storeGo, "s.orders[id] = n", "s.orders[id] += n", 1)})
	repo.commit(t, "put adds") // t0+2h by Dora
	repo.author = "Eve Editor"
	repo.git(t, "mv", "retry.py", "client.py")
	repo.write(t, map[string]string{"client.py": retryPy + "\n\ndef extra():\n    return 0\n"})
	repo.commit(t, "rename retry.py") // t0+3h by Eve

	type dated struct {
		Author string
		When   time.Time
	}
	want := map[string]dated{
		"shop/store.go:Store":     {authorName, t0.Add(1 * time.Hour)},
		"shop/store.go:Store.Get": {authorName, t0.Add(1 * time.Hour)},
		"shop/store.go:Store.Put": {"Dora Dev", t0.Add(2 * time.Hour)},
		"shop/store.go:helper":    {authorName, t0.Add(1 * time.Hour)},
		"client.py:backoff":       {authorName, t0.Add(1 * time.Hour)},
		"client.py:Client":        {authorName, t0.Add(1 * time.Hour)},
		"client.py:Client.get":    {authorName, t0.Add(1 * time.Hour)},
		"client.py:extra":         {"Eve Editor", t0.Add(3 * time.Hour)},
	}
	for _, tt := range []struct {
		name string
		full bool
	}{{"incremental", false}, {"full", true}} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := newIndexer(t, store, emb, t0.Add(101*time.Hour)).IndexGit(ctx, src, tt.full); err != nil {
				t.Fatal(err)
			}
			got := map[string]dated{}
			for _, c := range storedChunks(t, store, src.ID) {
				got[c.Path+":"+c.Symbol] = dated{c.Author, c.ModifiedAt}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("chunk author and modified_at (-want +got):\n%s", diff)
			}
		})
	}
}

// countingEmbedder embeds with Embedder and calls cancel once `after` texts
// (objects) have been embedded: a run killed half-way (a deploy, ^C, a
// timeout). onFirst, when set, runs before the first embedding;
// beforeCancel, when set, runs before cancel.
type countingEmbedder struct {
	retrieval.Embedder
	after        int64
	cancel       context.CancelFunc
	texts        atomic.Int64
	onFirst      func()
	first        atomic.Bool
	beforeCancel func()
}

func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.onFirst != nil && c.first.CompareAndSwap(false, true) {
		c.onFirst()
	}
	vecs, err := c.Embedder.Embed(ctx, texts)
	if n := c.texts.Add(int64(len(texts))); n >= c.after && n-int64(len(texts)) < c.after {
		if c.beforeCancel != nil {
			c.beforeCancel()
		}
		c.cancel()
	}
	return vecs, err
}

// TestIndexGitCrash interrupts an incremental run that modifies, deletes
// and renames many files after N objects were embedded, and checks that the
// state did not advance (it says a run did not finish while the run is
// under way), and that the next run reaches the chunk set of a fresh index.
func TestIndexGitCrash(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	files := map[string]string{}
	for i := range 120 {
		files[fmt.Sprintf("svc/f%03d.go", i)] = fmt.Sprintf("package svc\n\n// A%d is one.\nfunc A%d() int {\n\treturn %d\n}\n\n// B%d is two.\nfunc B%d() int {\n\treturn %d\n}\n", i, i, i, i, i, i)
	}
	repo.write(t, files)
	first := repo.commit(t, "many files")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo.dir, "moved"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 120 {
		p := fmt.Sprintf("svc/f%03d.go", i)
		switch {
		case i < 60: // modify B
			repo.write(t, map[string]string{p: strings.Replace(files[p], fmt.Sprintf("B%d() int {\n\treturn %d", i, i), fmt.Sprintf("B%d() int {\n\treturn -%d", i, i), 1)})
		case i < 80:
			repo.git(t, "rm", "-q", p)
		case i < 100:
			repo.git(t, "mv", p, fmt.Sprintf("moved/g%03d.go", i))
		}
	}
	for i := range 300 { // and new files
		repo.write(t, map[string]string{fmt.Sprintf("new/n%03d.go", i): fmt.Sprintf("package neu\n\n// N%d is new.\nfunc N%d() int { return %d }\n", i, i, i)})
	}
	second := repo.commit(t, "big change")

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var during retrieval.SourceState
	// Killed when the second batch is embedded (the run writes batches of
	// ingest.EmbedBatch chunks as it chunks them), once the first is stored.
	cut := &countingEmbedder{Embedder: emb, after: ingest.EmbedBatch + 1, cancel: cancel, onFirst: func() {
		during, _, _ = store.State(ctx, src.ID, "main")
	}, beforeCancel: func() {
		for range 200 {
			if m, err := store.ListStored(ctx, src.ID, "main"); err == nil && slices.ContainsFunc(slices.Collect(maps.Values(m)),
				func(c weaviate.Stored) bool { return c.CommitSHA == second }) {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}}
	st, err := newIndexer(t, store, cut, t0.Add(101*time.Hour)).IndexGit(runCtx, src, false)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted IndexGit: %+v, error %v; want one wrapping context.Canceled", st, err)
	}
	if st.Mode != ingest.ModeIncremental {
		t.Errorf("interrupted run: mode %q, want incremental", st.Mode)
	}
	if during.CommitSHA != first || !strings.Contains(during.LastError, "did not finish") {
		t.Errorf("state while the run was under way: commit %s, last error %q; want %s and a did-not-finish mark",
			during.CommitSHA, during.LastError, first[:7])
	}
	state, _, err := store.State(ctx, src.ID, "main")
	if err != nil || state.CommitSHA != first || state.LastError == "" {
		t.Errorf("state after the interrupted run: %+v, %v; want commit %s and an error", state, err, first[:7])
	}
	// The interruption left the store half-way: some chunks at the new
	// commit, chunks of deleted files not yet deleted, new ones missing.
	mid, err := store.ListStored(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	atSecond, ofDeleted := 0, 0
	for _, c := range mid {
		if c.CommitSHA == second {
			atSecond++
		}
		if c.Path == "svc/f070.go" {
			ofDeleted++
		}
	}
	t.Logf("interrupted after %d embedded objects: %d chunks stored, %d at the new commit, %d of a deleted file", cut.texts.Load(), len(mid), atSecond, ofDeleted)
	if atSecond == 0 || ofDeleted == 0 || len(mid) == 2*100+300 {
		t.Errorf("the interrupted run left %d chunks, %d at the new commit, %d of a deleted file: want a half-done index", len(mid), atSecond, ofDeleted)
	}

	st, err = newIndexer(t, store, emb, t0.Add(102*time.Hour)).IndexGit(ctx, src, false)
	if err != nil {
		t.Fatalf("IndexGit after the crash: %v", err)
	}
	if st.Mode != ingest.ModeFull || st.Commit != second {
		t.Errorf("run after the crash: mode %q at %s, want a full reconcile at %s", st.Mode, st.Commit, second[:7])
	}
	fresh := weaviatetest.NewStore(t, emb.Name())
	if _, err := newIndexer(t, fresh, emb, t0.Add(102*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	want, err := fresh.ListStored(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	got, err := store.ListStored(ctx, src.ID, "main")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks after crash + restart vs a fresh index (-fresh +got):\n%s", diff)
	}
	if len(got) != 2*100+300 {
		t.Errorf("%d chunks, want %d", len(got), 2*100+300)
	}
}

// TestIndexGitReusesVectorsAcrossBranches indexes main, then a release
// branch for the first time (a full run under other ids): only the chunks
// whose embedded text differs from main's are embedded, the others take
// main's stored vectors, found by content hash.
func TestIndexGitReusesVectorsAcrossBranches(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, shopFiles)
	repo.commit(t, "shop")
	repo.git(t, "checkout", "-q", "-b", "release-1.2")
	repo.write(t, map[string]string{"retry.py": strings.Replace(retryPy, "2 ** attempt", "3 ** attempt", 1)})
	repo.commit(t, "release: slower backoff")
	repo.git(t, "checkout", "-q", "main")
	rec := &recordingEmbedder{Embedder: embed.NewOffline()}
	store := weaviatetest.NewStore(t, rec.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir}
	if _, err := newIndexer(t, store, rec, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	rec.take()
	src.Branch = "release-1.2"
	st, err := newIndexer(t, store, rec, t0.Add(101*time.Hour)).IndexGit(ctx, src, false)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"retry.py:backoff"}, rec.take()); diff != "" {
		t.Errorf("embedded for the new branch (-want +got):\n%s", diff)
	}
	if st.Mode != ingest.ModeFull || st.Chunks != len(shopChunks) || st.Embedded != 1 || st.Reused != len(shopChunks)-1 {
		t.Errorf("release run: %+v; want a full run of %d chunks, 1 embedded, the rest reused", st, len(shopChunks))
	}
	stored := storedChunks(t, store, src.ID)
	gotVecs, err := store.Vectors(ctx, objectIDs(stored))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(embeddings(t, rec.Embedder, stored), gotVecs, cmpopts.EquateApprox(0, 1e-6)); diff != "" {
		t.Errorf("stored vectors vs embeddings of the stored chunks (-want +got):\n%s", diff)
	}
}
