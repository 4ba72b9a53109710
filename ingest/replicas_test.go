package ingest_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// runLog records the "index run" lines of Indexers (one per run that
// indexes a commit; an up-to-date run logs none), by commit.
type runLog struct {
	mu    sync.Mutex
	runs  map[string][]string // short commit -> replicas that indexed it
	first map[string]time.Time
}

func (l *runLog) add(commit, replica string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.runs[commit] = append(l.runs[commit], replica)
	if _, ok := l.first[replica]; !ok {
		l.first[replica] = time.Now()
	}
}

func (l *runLog) get(commit string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.runs[commit]...)
}

// runHandler is a slog.Handler that tells runLog about "index run" lines.
type runHandler struct {
	log     *runLog
	replica string
	attrs   []slog.Attr
}

func (h *runHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *runHandler) WithGroup(string) slog.Handler            { return h }
func (h *runHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return &runHandler{log: h.log, replica: h.replica, attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}
func (h *runHandler) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "index run" {
		return nil
	}
	for _, a := range h.attrs {
		if a.Key == "commit" {
			h.log.add(a.Value.String(), h.replica)
		}
	}
	return nil
}

// replicaService is the git indexing of one serve replica: its own clone,
// lock dir and lease holder, on the shared store.
type replicaService struct {
	svc     *ingest.GitService
	hooks   *httptest.Server
	skipped chan string
	stop    func()
}

func startReplica(t *testing.T, name, origin string, store *weaviate.Store, leaser ingest.Leaser, runs *runLog, poll, ttl time.Duration) *replicaService {
	t.Helper()
	emb := embed.NewOffline()
	ix := &ingest.Indexer{Store: store, Embedder: emb, LockDir: t.TempDir(),
		Log: slog.New(&runHandler{log: runs, replica: name})}
	repo := ingest.Repo{
		Name: "shop", Source: ingest.GitSource{ID: "repo:shop", Dir: ingest.CloneDir(t.TempDir(), "shop"), LinkTemplate: linkTemplate},
		Remote: &ingest.Remote{URL: "file://" + origin}, WebhookSecret: ghSecret, Poll: poll,
	}
	r := &replicaService{skipped: make(chan string, 1000)}
	var err error
	r.svc, err = ingest.NewGitService(ix, []ingest.Repo{repo}, ingest.GitServiceOptions{Log: quietLog(t),
		Queue: ingest.QueueOptions{Settle: -1},
		Lease: ingest.Leased{Leaser: leaser, TTL: ttl}, OnLeaseSkip: func(s string) { r.skipped <- s }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { // exits when stop or the test's cleanup cancels ctx
		defer close(stopped)
		_ = r.svc.Run(ctx)
	}()
	r.stop = func() { cancel(); <-stopped }
	t.Cleanup(r.stop)
	mux := http.NewServeMux()
	mux.Handle("/webhooks/", r.svc.Webhooks())
	r.hooks = httptest.NewServer(mux)
	t.Cleanup(r.hooks.Close)
	return r
}

func (r *replicaService) postPush(t *testing.T) {
	t.Helper()
	push := fixture(t, "github-push-main.json")
	req, err := http.NewRequest(http.MethodPost, r.hooks.URL+"/webhooks/shop", bytes.NewReader(push))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = githubRequest("/", "push", push, githubSignature(ghSecret, push)).Header
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("webhook: status %d, want 202", resp.StatusCode)
	}
}

// waitStoreState waits until main's state records commit.
func waitStoreState(t *testing.T, store *weaviate.Store, commit string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		st, ok, err := store.State(context.Background(), "repo:shop", "main")
		if err == nil && ok && st.CommitSHA == commit && st.LastError == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("main not indexed at %s within %s: state %+v, %v", commit[:7], limit, st, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func openLeasers(t *testing.T, store *weaviate.Store, n int) []*weaviate.Claims {
	t.Helper()
	var out []*weaviate.Claims
	for i := range n {
		c, err := store.OpenClaims(context.Background(), weaviate.ClaimsOptions{Holder: fmt.Sprintf("replica-%d", i)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	t.Cleanup(func() { _ = out[0].Drop(context.Background()) })
	return out
}

// TestReplicasIndexEachCommitOnce: two replicas poll the same repository
// (on two machines: separate clones and lock dirs) and get its push
// webhooks in turn; each of the commits pushed one after the other is
// indexed by exactly one of them, and the last one is indexed (no push is
// lost to a replica that skipped it while the other ran).
func TestReplicasIndexEachCommitOnce(t *testing.T) {
	origin, work := newPushedOrigin(t, func(r *testRepo) {
		r.write(t, shopFiles)
		r.commit(t, "shop")
	})
	store := weaviatetest.NewStore(t, embed.OfflineName)
	leasers := openLeasers(t, store, 2)
	runs := &runLog{runs: map[string][]string{}, first: map[string]time.Time{}}
	var rs []*replicaService
	for i, l := range leasers {
		rs = append(rs, startReplica(t, fmt.Sprintf("replica-%d", i), origin, store, l, runs, 150*time.Millisecond, 10*time.Second))
	}
	commits := []string{work.head(t)}
	waitStoreState(t, store, commits[0], time.Minute)
	const pushes = 6
	for i := range pushes {
		work.write(t, map[string]string{"shop/store.go": storeGo + fmt.Sprintf("\n// Version%d is step %d.\nfunc Version%d() int { return %d }\n", i, i, i, i)})
		head := work.commit(t, fmt.Sprintf("step %d", i))
		work.git(t, "push", "-q", "origin", "main")
		commits = append(commits, head)
		if i%2 == 1 { // every other push also comes as a webhook, to either replica
			rs[i/2%2].postPush(t)
		}
		waitStoreState(t, store, head, time.Minute)
	}
	time.Sleep(time.Second) // let polls and deferred pushes run: any second index of a commit would show
	for _, r := range rs {
		r.stop()
	}
	for i, c := range commits {
		if got := runs.get(c[:7]); len(got) != 1 {
			t.Errorf("commit %d (%s) indexed by %v, want exactly one replica", i, c[:7], got)
		}
	}
	st, _, err := store.State(context.Background(), "repo:shop", "main")
	if err != nil || st.CommitSHA != work.head(t) {
		t.Errorf("final state %+v (%v), want main at the last push %s", st, err, work.head(t)[:7])
	}
	t.Logf("runs skipped for the lease: %d and %d", len(rs[0].skipped), len(rs[1].skipped))
}

// deadHolder is a replica that takes a lease and dies: it never renews or
// releases it.
type deadHolder struct {
	ingest.Leaser
	took chan time.Time
}

func (d *deadHolder) AcquireLease(ctx context.Context, key string, ttl time.Duration) (renew, release func(context.Context) error, err error) {
	before := time.Now() // the lease expires ttl after a time later than this
	_, _, err = d.Leaser.AcquireLease(ctx, key, ttl)
	if err == nil {
		d.took <- before
	}
	nop := func(context.Context) error { return nil }
	return nop, nop, err
}

// TestReplicasLeaseTakeover: a replica dies mid-run holding the lease (its
// context cancelled, the lease neither renewed nor released); the other
// replica skips its polls until the lease expires, then takes over and
// indexes the head.
func TestReplicasLeaseTakeover(t *testing.T) {
	origin, work := newPushedOrigin(t, func(r *testRepo) {
		r.write(t, shopFiles)
		r.commit(t, "shop")
	})
	store := weaviatetest.NewStore(t, embed.OfflineName)
	leasers := openLeasers(t, store, 2)
	runs := &runLog{runs: map[string][]string{}, first: map[string]time.Time{}}
	const ttl = 3 * time.Second
	dead := &deadHolder{Leaser: leasers[0], took: make(chan time.Time, 1)}
	a := startReplica(t, "replica-0", origin, store, dead, runs, 0, ttl)
	var took time.Time
	select {
	case took = <-dead.took:
	case <-time.After(time.Minute):
		t.Fatal("replica-0 never took the lease")
	}
	a.stop() // killed mid-run
	b := startReplica(t, "replica-1", origin, store, leasers[1], runs, 100*time.Millisecond, ttl)
	waitStoreState(t, store, work.head(t), time.Minute)
	if got := runs.get(work.head(t)[:7]); len(got) != 1 || got[0] != "replica-1" {
		t.Errorf("head indexed by %v, want replica-1 alone", got)
	}
	started := runs.first["replica-1"]
	if started.Before(took.Add(ttl)) {
		t.Errorf("replica-1 indexed %s after replica-0 took the lease, before its %s lease expired", started.Sub(took), ttl)
	}
	if len(b.skipped) == 0 {
		t.Error("replica-1 skipped no poll while replica-0 held the lease")
	}
}

// TestReplicasPushWaitsForHolder: a push webhook reaches a replica while
// another one holds the source's lease; the run is deferred, not dropped,
// and happens once the holder releases the lease.
func TestReplicasPushWaitsForHolder(t *testing.T) {
	origin, work := newPushedOrigin(t, func(r *testRepo) {
		r.write(t, shopFiles)
		r.commit(t, "shop")
	})
	store := weaviatetest.NewStore(t, embed.OfflineName)
	leasers := openLeasers(t, store, 2)
	runs := &runLog{runs: map[string][]string{}, first: map[string]time.Time{}}
	// Long enough for the checks below on a loaded machine; the deferred
	// run retries within ttl/4 of the release.
	const ttl = 10 * time.Second
	b := startReplica(t, "replica-1", origin, store, leasers[1], runs, 0, ttl) // webhooks only
	waitStoreState(t, store, work.head(t), time.Minute)

	// replica-0 holds the lease (a long run under way). replica-1 writes
	// the index state before it releases the lease of its first run, so the
	// lease may still be its own for a moment: wait for it.
	ctx := context.Background()
	var renew, release func(context.Context) error
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var err error
		renew, release, err = leasers[0].AcquireLease(ctx, "git:shop", ttl)
		var held *weaviate.LeaseHeldError
		if err == nil {
			break
		}
		if !errors.As(err, &held) || time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	work.write(t, map[string]string{"shop/store.go": storeGo + "\n// Pushed while held.\nfunc PushedWhileHeld() {}\n"})
	head := work.commit(t, "pushed while held")
	work.git(t, "push", "-q", "origin", "main")
	b.postPush(t)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		st := b.svc.Status("shop")
		if _, ok := st.LastErr.(*ingest.RetryLater); ok && len(st.Pending) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("push not deferred: queue status %+v", st)
		}
	}
	if err := renew(ctx); err != nil { // still held: the deferred run must not have happened
		t.Fatal(err)
	}
	if got := runs.get(head[:7]); len(got) != 0 {
		t.Fatalf("head indexed by %v while replica-0 held the lease", got)
	}
	if err := release(ctx); err != nil {
		t.Fatal(err)
	}
	waitStoreState(t, store, head, time.Minute)
	if got := runs.get(head[:7]); len(got) != 1 || got[0] != "replica-1" {
		t.Errorf("head indexed by %v, want replica-1 once", got)
	}
}
