package ingest_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// serviceWorld is a remote repository ("origin", pushed to from a work
// clone), a GitService that tracks its main branch, the service's webhook
// endpoint, and an Asker over the same store with the stale-code guard.
type serviceWorld struct {
	work  *testRepo
	ix    *ingest.Indexer
	repo  ingest.Repo
	store *weaviate.Store
	svc   *ingest.GitService
	hooks *httptest.Server
	asker *retrieval.Asker
	push  []byte        // a GitHub push delivery for main
	ran   chan struct{} // buffered 1: a queue run finished
}

// newPushedOrigin makes a bare repository and a work clone whose commits, made
// by fill, are pushed to it; it returns the origin's path and the clone.
func newPushedOrigin(t testing.TB, fill func(*testRepo)) (string, *testRepo) {
	t.Helper()
	root := t.TempDir()
	origin := filepath.Join(root, "origin.git")
	runGit(t, root, gitTestEnv(authorName, committerName, t0), "init", "-q", "--bare", "-b", "main", origin)
	work := newRepo(t)
	work.git(t, "remote", "add", "origin", origin)
	fill(work)
	work.git(t, "push", "-q", "origin", "main")
	return origin, work
}

// newServiceWorld pushes the work clone's commits (made by fill) to the
// origin and starts the service, with settle as its Queue.Settle (0 for
// the default, negative for none). It returns once the startup run has
// indexed main.
func newServiceWorld(t testing.TB, settle time.Duration, fill func(*testRepo)) *serviceWorld {
	t.Helper()
	origin, work := newPushedOrigin(t, fill)
	w := startService(t, settle, origin, work, "main")
	w.waitIndexed(t, w.work.head(t), 10*time.Minute)
	return w
}

// startService starts the service on origin, tracking branches, and
// returns at once; work is the clone that pushes to origin.
func startService(t testing.TB, settle time.Duration, origin string, work *testRepo, branches ...string) *serviceWorld {
	t.Helper()
	w := &serviceWorld{work: work, ran: make(chan struct{}, 1)}
	emb := embed.NewOffline()
	w.store = weaviatetest.NewStore(t, emb.Name())
	ix := &ingest.Indexer{Store: w.store, Embedder: emb, Log: quietLog(t), LockDir: t.TempDir()}
	w.ix = ix
	repo := ingest.Repo{
		Name: "shop", Source: ingest.GitSource{ID: "repo:shop", Dir: ingest.CloneDir(t.TempDir(), "shop"), LinkTemplate: linkTemplate},
		Branches: branches, Remote: &ingest.Remote{URL: "file://" + origin}, WebhookSecret: ghSecret,
	}
	w.repo = repo
	var err error
	w.svc, err = ingest.NewGitService(ix, []ingest.Repo{repo}, ingest.GitServiceOptions{Log: quietLog(t),
		Queue: ingest.QueueOptions{Settle: settle, OnDone: func(string, []string, error) {
			select {
			case w.ran <- struct{}{}:
			default: // a signal is pending already
			}
		}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { // exits when the test's cleanup cancels ctx
		defer close(stopped)
		_ = w.svc.Run(ctx)
	}()
	t.Cleanup(func() { cancel(); <-stopped })
	mux := http.NewServeMux()
	mux.Handle("/webhooks/", w.svc.Webhooks())
	w.hooks = httptest.NewServer(mux)
	t.Cleanup(w.hooks.Close)
	w.asker = &retrieval.Asker{Store: w.store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 40,
		Thresholds: retrieval.DefaultThresholds(),
		Guards:     []retrieval.Guard{ingest.StaleCode{Repos: ingest.StaleRepos{Sources: map[string]ingest.GitSource{repo.Source.ID: repo.Source}}}}}
	w.push = fixture(t, "github-push-main.json")
	return w
}

// waitIndexed waits until the state of main records commit, checking it
// after each run of the service's queue, and fails after limit.
func (w *serviceWorld) waitIndexed(t testing.TB, commit string, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	for {
		st, ok, err := w.store.State(context.Background(), "repo:shop", "main")
		if err == nil && ok && st.CommitSHA == commit && st.LastError == "" {
			return
		}
		select {
		case <-w.ran:
		case <-deadline:
			t.Fatalf("main not indexed at %s within %s: state %+v, %v", commit[:7], limit, st, err)
		}
	}
}

// postPush delivers a signed GitHub push for main to the service.
func (w *serviceWorld) postPush(t testing.TB) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.hooks.URL+"/webhooks/shop", bytes.NewReader(w.push))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = githubRequest("/", "push", w.push, githubSignature(ghSecret, w.push)).Header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("webhook: status %d, want 202", resp.StatusCode)
	}
}

// askFinds reports whether asking for symbol returns a snippet of it.
func (w *serviceWorld) askFinds(t testing.TB, symbol string) bool {
	t.Helper()
	ans, err := w.asker.Ask(context.Background(), retrieval.Request{Question: "where is " + symbol + " defined?",
		Sources: []string{"repo:shop"}, Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ans.Snippets {
		if strings.HasSuffix(s.Symbol, symbol) {
			return true
		}
	}
	return false
}

// TestGitServiceWebhookToAsk pushes a new function to the remote, delivers
// the signed webhook, and waits for ask to return the function, checking
// that the answer passes the stale guard without a warning.
func TestGitServiceWebhookToAsk(t *testing.T) {
	w := newServiceWorld(t, 50*time.Millisecond, func(r *testRepo) {
		r.write(t, shopFiles)
		r.commit(t, "shop")
	})
	if w.askFinds(t, "RefundWithRetry") {
		t.Fatal("RefundWithRetry found before it was written")
	}
	w.work.write(t, map[string]string{"shop/store.go": storeGo + "\n// RefundWithRetry refunds an order, retrying on 503.\nfunc (s *Store) RefundWithRetry(id string) error {\n\treturn nil\n}\n"})
	head := w.work.commit(t, "refund")
	w.work.git(t, "push", "-q", "origin", "main")
	start := time.Now()
	w.postPush(t)
	w.waitIndexed(t, head, 30*time.Second)
	t.Logf("push webhook to indexed: %v", time.Since(start))
	if !w.askFinds(t, "RefundWithRetry") {
		t.Fatal("RefundWithRetry not found after the webhook's run")
	}
	ans, err := w.asker.Ask(context.Background(), retrieval.Request{Question: "RefundWithRetry", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ans.Snippets { // the asker's StaleCode guard checked each
		if s.Stale != "" {
			t.Errorf("%s %s: stale %q right after the reindex", s.Path, s.Symbol, s.Stale)
		}
	}
	if st := w.svc.Status("shop"); st.Runs != 2 || st.Failures != 0 {
		t.Errorf("queue status %+v, want 2 runs (startup, webhook) and no failures", st)
	}
}

// TestGitServiceFirstPushToEmptyRepository starts the service on an empty
// repository, then pushes its first commit: the push is indexed at once,
// not after the 30 s backoff of a failed startup run.
func TestGitServiceFirstPushToEmptyRepository(t *testing.T) {
	root := t.TempDir()
	origin := filepath.Join(root, "origin.git")
	runGit(t, root, gitTestEnv(authorName, committerName, t0), "init", "-q", "--bare", "-b", "main", origin)
	work := newRepo(t)
	work.git(t, "remote", "add", "origin", origin)
	w := startService(t, 50*time.Millisecond, origin, work, "main")
	select {
	case <-w.ran: // the startup run
	case <-time.After(time.Minute):
		t.Fatal("no startup run within a minute")
	}
	w.work.write(t, shopFiles)
	head := w.work.commit(t, "shop")
	w.work.git(t, "push", "-q", "origin", "main")
	start := time.Now()
	w.postPush(t)
	w.waitIndexed(t, head, 10*time.Second)
	t.Logf("first push to indexed: %v", time.Since(start))
	if !w.askFinds(t, "Put") {
		t.Error("Store.Put not found after the first push")
	}
}

// TestGitServiceBranchDeleted tracks main and old-topic, deletes old-topic
// on the remote and delivers GitHub's push with "deleted": true: the
// branch's chunks and state go, main's stay. A later run of every tracked
// branch (as after a restart) skips the missing branch with a warning and
// indexes main.
func TestGitServiceBranchDeleted(t *testing.T) {
	origin, work := newPushedOrigin(t, func(r *testRepo) {
		r.write(t, shopFiles)
		r.commit(t, "shop")
	})
	work.git(t, "checkout", "-q", "-b", "old-topic")
	work.write(t, map[string]string{"topic.go": "package shop\n\n// TopicOnly exists on old-topic.\nfunc TopicOnly() int {\n\treturn 1\n}\n"})
	topicHead := work.commit(t, "topic")
	work.git(t, "push", "-q", "origin", "old-topic")
	work.git(t, "checkout", "-q", "main")
	w := startService(t, 50*time.Millisecond, origin, work, "main", "old-topic")
	w.waitIndexed(t, work.head(t), time.Minute)
	waitState(t, w, "old-topic", topicHead)
	if n := len(storedBranch(t, w.store, "old-topic")); n == 0 {
		t.Fatal("old-topic has no chunks before the delete")
	}
	mainChunks := len(storedBranch(t, w.store, "main"))

	work.git(t, "push", "-q", "origin", "--delete", "old-topic")
	del := []byte(`{"ref":"refs/heads/old-topic","before":"` + topicHead + `","after":"0000000000000000000000000000000000000000","deleted":true,` +
		`"repository":{"full_name":"acme/shop","default_branch":"main"}}`)
	req, err := http.NewRequest(http.MethodPost, w.hooks.URL+"/webhooks/shop", bytes.NewReader(del))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = githubRequest("/", "push", del, githubSignature(ghSecret, del)).Header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Errorf("delete push: status %d, want 202", resp.StatusCode)
	}
	deadline := time.After(30 * time.Second)
	for len(storedBranch(t, w.store, "old-topic")) > 0 {
		select {
		case <-w.ran:
		case <-deadline:
			t.Fatalf("old-topic still has %d chunks 30s after the delete push", len(storedBranch(t, w.store, "old-topic")))
		}
	}
	if _, ok, err := w.store.State(context.Background(), "repo:shop", "old-topic"); err != nil || ok {
		t.Errorf("state of old-topic after the delete: found %v, err %v; want none", ok, err)
	}
	if n := len(storedBranch(t, w.store, "main")); n != mainChunks {
		t.Errorf("main has %d chunks after old-topic's delete, want %d", n, mainChunks)
	}

	// As after a restart: a run of every tracked branch, old-topic included.
	work.write(t, map[string]string{"later.go": "package shop\n\nfunc Later() {}\n"})
	head := work.commit(t, "later")
	work.git(t, "push", "-q", "origin", "main")
	stats, err := w.ix.IndexRepo(context.Background(), w.repo, nil, false)
	if err != nil {
		t.Fatalf("IndexRepo with old-topic gone: %v", err)
	}
	if len(stats) != 1 || stats[0].Branch != "main" || stats[0].Commit != head {
		t.Errorf("IndexRepo stats %+v, want main at %s only", stats, head[:7])
	}
}

// waitState waits up to a minute for branch's state to record commit.
func waitState(t *testing.T, w *serviceWorld, branch, commit string) {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		st, ok, err := w.store.State(context.Background(), "repo:shop", branch)
		if err == nil && ok && st.CommitSHA == commit && st.LastError == "" {
			return
		}
		select {
		case <-w.ran:
		case <-time.After(time.Second):
		case <-deadline:
			t.Fatalf("%s not indexed at %s: %+v, %v", branch, commit[:7], st, err)
		}
	}
}

// storedBranch returns the stored chunks of repo:shop's branch, by id.
func storedBranch(t *testing.T, store *weaviate.Store, branch string) map[string]weaviate.Stored {
	t.Helper()
	m, err := store.ListStored(context.Background(), "repo:shop", branch)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// genRepo writes files Go files of three functions each into r, in
// folders of 100, and commits them.
func genRepo(t testing.TB, r *testRepo, files int) {
	t.Helper()
	batch := map[string]string{}
	for i := range files {
		var b strings.Builder
		fmt.Fprintf(&b, "package pkg%03d\n\nimport \"errors\"\n", i/100)
		for f := range 3 {
			fmt.Fprintf(&b, "\n// Handle%dStep%d validates step %d of order flow %d and returns why it fails.\nfunc Handle%dStep%d(orderID string, amount int) error {\n\tif orderID == \"\" {\n\t\treturn errors.New(\"order %d: empty id\")\n\t}\n\tif amount <= %d {\n\t\treturn errors.New(\"order %d: amount too small\")\n\t}\n\treturn nil\n}\n",
				i, f, f, i, i, f, i, f, i)
		}
		batch[fmt.Sprintf("svc/pkg%03d/flow%04d.go", i/100, i)] = b.String()
		if len(batch) == 500 || i == files-1 {
			r.write(t, batch)
			batch = map[string]string{}
		}
	}
	r.commit(t, fmt.Sprintf("%d generated files", files))
}

// BenchmarkGitIndex measures, on a generated repository of 5,000 Go files
// (15,000 functions) pushed to a local remote:
//   - full-index: the first index run (clone, chunk, blame, embed, store),
//     reported as files/s and chunks/s;
//   - webhook-to-ask: the time from a signed GitHub push webhook for a
//     one-file change to `ask` returning the changed symbol, with the
//     default settle time (500 ms) and with none, reported in ms/op.
//
// Run it with: go test ./ingest/ -run '^$' -bench BenchmarkGitIndex -benchtime 10x
func BenchmarkGitIndex(b *testing.B) {
	const files = 5000
	b.Run("full-index", func(b *testing.B) {
		b.StopTimer()
		ctx := context.Background()
		origin, _ := newPushedOrigin(b, func(r *testRepo) { genRepo(b, r, files) })
		emb := embed.NewOffline()
		var indexed, chunks int
		var elapsed time.Duration
		for range b.N {
			store := weaviatetest.NewStore(b, emb.Name())
			ix := &ingest.Indexer{Store: store, Embedder: emb, Log: quietLog(b)}
			repo := ingest.Repo{Name: "shop", Source: ingest.GitSource{ID: "repo:shop", Dir: ingest.CloneDir(b.TempDir(), "shop")},
				Remote: &ingest.Remote{URL: "file://" + origin}}
			b.StartTimer()
			start := time.Now()
			stats, err := ix.IndexRepo(ctx, repo, nil, false)
			elapsed += time.Since(start)
			b.StopTimer()
			if err != nil || len(stats) != 1 || stats[0].Files != files {
				b.Fatalf("IndexRepo: %+v, %v; want %d files", stats, err, files)
			}
			indexed += stats[0].Files
			chunks += stats[0].Chunks
		}
		b.ReportMetric(float64(indexed)/elapsed.Seconds(), "files/s")
		b.ReportMetric(float64(chunks)/elapsed.Seconds(), "chunks/s")
	})
	for _, tc := range []struct {
		name   string
		settle time.Duration
	}{{"webhook-to-ask/settle=500ms", 0}, {"webhook-to-ask/settle=0", -1}} {
		b.Run(tc.name, func(b *testing.B) {
			b.StopTimer()
			w := newServiceWorld(b, tc.settle, func(r *testRepo) { genRepo(b, r, files) })
			var total time.Duration
			for i := range b.N {
				symbol := fmt.Sprintf("RefundWithRetry%d", i)
				p := fmt.Sprintf("svc/pkg%03d/flow%04d.go", (i*37)%50, (i*37)%50*100+i%100)
				data := runGit(b, w.work.dir, nil, "show", "HEAD:"+p)
				w.work.write(b, map[string]string{p: data + fmt.Sprintf("\n// %s refunds an order, retrying on 503.\nfunc %s(orderID string) error {\n\treturn nil\n}\n", symbol, symbol)})
				w.work.commit(b, symbol)
				w.work.git(b, "push", "-q", "origin", "main")
				b.StartTimer()
				start := time.Now()
				w.postPush(b)
				limit := time.After(time.Minute)
				for !w.askFinds(b, symbol) { // ask again after each run
					select {
					case <-w.ran:
					case <-limit:
						b.Fatalf("%s not returned within a minute", symbol)
					}
				}
				total += time.Since(start)
				b.StopTimer()
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/push")
		})
	}
}
