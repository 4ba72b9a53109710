package ingest_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

const testToken = "ghp_T0kenThatMustNeverBeLogged1234567890" // gitleaks:allow (fake)

// gitServer serves the bare repositories under root over git's smart HTTP
// protocol (the real git-http-backend, as a CGI), accepting only requests
// with HTTP basic auth whose password is token. It records the
// Authorization headers it saw.
type gitServer struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
}

func newGitServer(t *testing.T, root, token string) *gitServer {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git-http-backend: %v", err)
		}
		t.Skipf("git-http-backend: %v", err)
	}
	cgiH := &cgi.Handler{Path: backend, Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1",
		"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}}
	s := &gitServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.mu.Unlock()
		user, pass, ok := r.BasicAuth()
		if !ok || pass != token || user == "" {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "bad credentials", http.StatusUnauthorized)
			return
		}
		cgiH.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *gitServer) seen() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

// newOrigin makes a bare repository "origin.git" under root and a work
// clone of it to commit and push from.
func newOrigin(t *testing.T, root string) (origin string, work *testRepo) {
	t.Helper()
	origin = filepath.Join(root, "origin.git")
	runGit(t, root, gitTestEnv(authorName, committerName, t0), "init", "-q", "--bare", "-b", "main", origin)
	work = newRepo(t)
	work.git(t, "remote", "add", "origin", origin)
	return origin, work
}

func TestRemoteSync(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	_, work := newOrigin(t, root)
	work.write(t, map[string]string{"shop/store.go": storeGo})
	first := work.commit(t, "first")
	work.git(t, "branch", "release-1.2")
	work.git(t, "push", "-q", "origin", "main", "release-1.2")
	srv := newGitServer(t, root, testToken)
	remote := ingest.Remote{URL: srv.URL + "/origin.git", Token: testToken}
	dir := ingest.CloneDir(t.TempDir(), "github.com/acme/shop@main")

	got, err := remote.Sync(ctx, dir, nil)
	if err != nil {
		t.Fatalf("Sync (default branch): %v", err)
	}
	if len(got) != 1 || got[0] != "main" {
		t.Errorf("Sync fetched %v, want the default branch [main]", got)
	}
	if sha, name, err := ingest.BranchHead(ctx, dir, ""); err != nil || sha != first || name != "main" {
		t.Errorf("clone HEAD: %s %s %v, want main at %s", sha, name, err, first[:7])
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+testToken))
	if auths := srv.seen(); len(auths) == 0 || auths[len(auths)-1] != want {
		t.Errorf("the server saw Authorization %q, want basic auth with the token", auths)
	}
	for _, f := range []string{"config", "FETCH_HEAD"} { // the token is in no file of the clone
		if b, err := os.ReadFile(filepath.Join(dir, f)); err == nil && bytes.Contains(b, []byte(testToken)) {
			t.Errorf("%s of the clone holds the token", f)
		}
	}

	// A force push on the remote: the clone follows it.
	work.git(t, "reset", "-q", "--hard", "HEAD")
	work.write(t, map[string]string{"shop/store.go": storeGo + "\nfunc Rewritten() {}\n"})
	work.git(t, "commit", "-q", "--amend", "-a", "-m", "rewritten")
	rewritten := work.head(t)
	work.git(t, "push", "-q", "--force", "origin", "main")
	if _, err := remote.Sync(ctx, dir, []string{"main", "release-1.2"}); err != nil {
		t.Fatalf("Sync after a force push: %v", err)
	}
	for branch, want := range map[string]string{"main": rewritten, "release-1.2": first} {
		if sha, _, err := ingest.BranchHead(ctx, dir, branch); err != nil || sha != want {
			t.Errorf("clone %s at %s (%v), want %s", branch, sha, err, want[:7])
		}
	}

	// A branch the remote does not have (deleted, never pushed) is not
	// fetched and not returned; the others are.
	got, err = remote.Sync(ctx, dir, []string{"no-such-branch", "main"})
	if err != nil || !slices.Equal(got, []string{"main"}) {
		t.Errorf("Sync of a missing branch and main = %v, %v; want [main] and no error", got, err)
	}
}

// TestRemoteTokenNeverLeaks fails a fetch with a wrong token and checks that
// the token, in clear or inside its basic-auth header, is in no error, no
// log line and no formatted value.
func TestRemoteTokenNeverLeaks(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	_, work := newOrigin(t, root)
	work.write(t, map[string]string{"a.go": "package a\n"})
	work.commit(t, "a")
	work.git(t, "push", "-q", "origin", "main")
	srv := newGitServer(t, root, "the-right-token")
	remote := ingest.Remote{URL: srv.URL + "/origin.git", Token: testToken, TokenUser: "oauth2"}
	header := base64.StdEncoding.EncodeToString([]byte("oauth2:" + testToken))

	var logs bytes.Buffer
	ix := &ingest.Indexer{Log: slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	repo := ingest.Repo{Name: "shop", Source: ingest.GitSource{ID: "repo:shop", Dir: filepath.Join(t.TempDir(), "shop.git")},
		Remote: &remote, WebhookSecret: "hook-secret-value"}
	_, err := ix.IndexRepo(ctx, repo, nil, false)
	if err == nil {
		t.Fatal("IndexRepo with a wrong token succeeded")
	}
	slog.New(slog.NewTextHandler(&logs, nil)).Info("repo", "remote", remote, "repo", repo, "secret", repo.WebhookSecret)
	shown := err.Error() + "\n" + logs.String() + fmt.Sprintf("%v %+v %#v %s", remote, repo, remote.Token, repo.WebhookSecret)
	for _, secret := range []string{testToken, header, "hook-secret-value"} {
		if strings.Contains(shown, secret) {
			t.Errorf("a secret leaked: %q in\n%s", secret, shown)
		}
	}
	if !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "repo:shop") {
		t.Errorf("error %q does not name the source and the URL", err)
	}
	if auths := srv.seen(); len(auths) == 0 || auths[0] != "Basic "+header {
		t.Errorf("the server saw Authorization %q, want the token as oauth2's password", auths)
	}
}

// TestIndexRepoRemote indexes a remote source through IndexRepo: clone,
// then, after a push, fetch and an incremental run.
func TestIndexRepoRemote(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	origin, work := newOrigin(t, root)
	work.write(t, shopFiles)
	work.commit(t, "shop")
	work.git(t, "push", "-q", "origin", "main")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	ix := newIndexer(t, store, emb, t0.Add(100*time.Hour))
	ix.LockDir = t.TempDir()
	repo := ingest.Repo{Name: "shop", Source: ingest.GitSource{ID: "repo:shop", Dir: ingest.CloneDir(t.TempDir(), "shop")},
		Remote: &ingest.Remote{URL: "file://" + origin}}
	stats, err := ix.IndexRepo(ctx, repo, nil, false)
	if err != nil || len(stats) != 1 || stats[0].Branch != "main" || stats[0].Chunks != len(shopChunks) {
		t.Fatalf("first IndexRepo: %+v, %v; want main with %d chunks", stats, err, len(shopChunks))
	}
	work.write(t, map[string]string{"shop/store.go": storeGo + "\n// Extra is new.\nfunc Extra() {}\n"})
	head := work.commit(t, "extra")
	work.git(t, "push", "-q", "origin", "main")
	stats, err = ix.IndexRepo(ctx, repo, []string{"main"}, false)
	if err != nil || len(stats) != 1 || stats[0].Mode != ingest.ModeIncremental || stats[0].Commit != head || stats[0].Embedded != 1 {
		t.Fatalf("IndexRepo after a push: %+v, %v; want an incremental run at %s embedding 1 chunk", stats, err, head[:7])
	}
	if _, err := ix.IndexRepo(ctx, ingest.Repo{Name: "shop", Source: repo.Source, Branches: []string{"main"}}, []string{"dev"}, false); err == nil {
		t.Error("IndexRepo of an untracked branch: no error")
	}
}

// TestIndexRepoMissingBranch tracks main and old-topic of a local
// repository after old-topic was deleted, and an empty remote repository:
// the missing branch and the empty repository are skipped (with a warning),
// not failed, and main is indexed.
func TestIndexRepoMissingBranch(t *testing.T) {
	ctx := context.Background()
	work := newRepo(t)
	work.write(t, shopFiles)
	head := work.commit(t, "shop")
	work.git(t, "branch", "old-topic")
	work.git(t, "branch", "-D", "old-topic")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	ix := newIndexer(t, store, emb, t0.Add(100*time.Hour))
	local := ingest.Repo{Name: "shop", Source: ingest.GitSource{ID: "repo:shop", Dir: work.dir}, Branches: []string{"main", "old-topic"}}
	stats, err := ix.IndexRepo(ctx, local, nil, false)
	if err != nil || len(stats) != 1 || stats[0].Branch != "main" || stats[0].Commit != head {
		t.Errorf("IndexRepo with old-topic gone: %+v, %v; want main at %s and no error", stats, err, head[:7])
	}

	origin := filepath.Join(t.TempDir(), "empty.git")
	runGit(t, filepath.Dir(origin), gitTestEnv(authorName, committerName, t0), "init", "-q", "--bare", "-b", "main", origin)
	for _, branches := range [][]string{nil, {"main"}} {
		empty := ingest.Repo{Name: "empty", Source: ingest.GitSource{ID: "repo:empty", Dir: ingest.CloneDir(t.TempDir(), "empty")},
			Branches: branches, Remote: &ingest.Remote{URL: "file://" + origin}}
		if stats, err := ix.IndexRepo(ctx, empty, nil, false); err != nil || len(stats) != 0 {
			t.Errorf("IndexRepo of an empty repository (branches %v): %+v, %v; want nothing and no error", branches, stats, err)
		}
	}
}

// TestIndexRepoDropsGoneBranches indexes main, old-topic and feature of a
// local repository, then deletes old-topic and stops tracking feature (as
// when serve was down during the delete push and the config changed): a run
// of every tracked branch removes both from the index, chunks and state,
// and keeps main.
func TestIndexRepoDropsGoneBranches(t *testing.T) {
	ctx := context.Background()
	work := newRepo(t)
	work.write(t, shopFiles)
	work.commit(t, "shop")
	work.git(t, "branch", "old-topic")
	work.git(t, "branch", "feature")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	ix := newIndexer(t, store, emb, t0.Add(100*time.Hour))
	repo := ingest.Repo{Name: "shop", Source: ingest.GitSource{ID: "repo:shop", Dir: work.dir}, Branches: []string{"main", "old-topic", "feature"}}
	first, err := ix.IndexRepo(ctx, repo, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	work.git(t, "branch", "-D", "old-topic")
	repo.Branches = []string{"main", "old-topic"}
	stats, err := ix.IndexRepo(ctx, repo, nil, false)
	if err != nil {
		t.Fatalf("IndexRepo: %v", err)
	}
	// The removed branches come back after main, with what they had.
	var got []string
	for _, st := range stats {
		got = append(got, fmt.Sprintf("%s %q %d", st.Branch, st.Removed, st.Deleted))
	}
	want := []string{"main \"\" 0", fmt.Sprintf("feature %q %d", ingest.BranchUntracked, first[2].Chunks),
		fmt.Sprintf("old-topic %q %d", ingest.BranchGone, first[1].Chunks)}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("IndexRepo stats:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for branch, want := range map[string]bool{"main": true, "old-topic": false, "feature": false} {
		stored, err := store.ListStored(ctx, "repo:shop", branch)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := store.State(ctx, "repo:shop", branch)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(stored) > 0; got != want || ok != want {
			t.Errorf("%s: chunks %v, state %v; want %v", branch, got, ok, want)
		}
	}
}

// TestIndexRepoLock runs two IndexRepo calls of one source with a LockDir
// (as serve and a `ragbot index` would): the second, started while the
// first embeds, waits for the lock until the first returns, so their
// embedding never overlaps.
func TestIndexRepoLock(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, map[string]string{"a.go": "package a\n\n// A is a.\nfunc A() {}\n"})
	repo.commit(t, "a")
	emb := embed.NewOffline()
	lockDir := t.TempDir()
	r := ingest.Repo{Name: "a", Source: ingest.GitSource{ID: "repo:a", Dir: repo.dir}}

	// The first run holds the lock inside its first Embed until release.
	embedding, release := make(chan struct{}), make(chan struct{})
	var firstIn, overlap atomic.Bool
	var once sync.Once
	first := &hookEmbedder{Embedder: emb, hook: func() {
		once.Do(func() {
			firstIn.Store(true)
			close(embedding)
			<-release
			firstIn.Store(false)
		})
	}}
	second := &hookEmbedder{Embedder: emb, hook: func() {
		if firstIn.Load() {
			overlap.Store(true)
		}
	}}
	// Two collections, so that both runs have everything to embed.
	ix1 := newIndexer(t, weaviatetest.NewStore(t, emb.Name()), first, t0.Add(100*time.Hour))
	ix2 := newIndexer(t, weaviatetest.NewStore(t, emb.Name()), second, t0.Add(100*time.Hour))
	ix1.LockDir, ix2.LockDir = lockDir, lockDir
	waiting := make(chan struct{}, 1) // the second run found the lock taken
	retry := make(chan time.Time)     // closed: it may try again
	ix2.After = func(time.Duration) <-chan time.Time {
		select {
		case waiting <- struct{}{}:
		default:
		}
		return retry
	}

	firstDone, secondDone := make(chan error, 1), make(chan error, 1)
	go func() { // exits when the run returns
		_, err := ix1.IndexRepo(ctx, r, nil, true)
		firstDone <- err
	}()
	select {
	case <-embedding:
	case err := <-firstDone:
		t.Fatalf("first run returned %v without embedding", err)
	}
	go func() { // exits when the run returns
		_, err := ix2.IndexRepo(ctx, r, nil, true)
		secondDone <- err
	}()
	select {
	case <-waiting:
	case err := <-secondDone:
		close(release)
		t.Fatalf("second run returned (%v) while the first held the lock", err)
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatal("second run neither waited for the lock nor returned within 5s")
	}
	close(release)
	err1 := <-firstDone
	close(retry)
	err2 := <-secondDone
	if err1 != nil || err2 != nil || overlap.Load() {
		t.Errorf("two locked runs: errors %v, %v, overlapping embeds %v; want no errors and no overlap", err1, err2, overlap.Load())
	}
}

// hookEmbedder calls hook before each Embed.
type hookEmbedder struct {
	retrieval.Embedder
	hook func()
}

func (h *hookEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	h.hook()
	return h.Embedder.Embed(ctx, texts)
}
