// Command loadtest measures `ragbot serve` under concurrent Slack questions,
// end to end through the real binary, on loopback only: it indexes two real
// Go repositories (this one, and github.com/slack-go/slack from the Go module
// cache, committed into a temporary git repository) into a real Weaviate,
// starts `ragbot serve` in Slack HTTP mode (one process, or --replicas of
// them on the same Weaviate) against a local fake Slack (bot/slack/slackfake),
// and runs --askers concurrent askers for --duration. Each asker posts a
// question in the fake workspace, delivers its app_mention event to serve
// signed with the app's signing secret as Slack does (Slack API docs,
// "Verifying requests from Slack": HMAC-SHA256 of "v0:timestamp:body"), waits
// for the bot's final reply in the question's thread, and asks the next one.
// --retry of the events are delivered again with the same event_id and
// X-Slack-Retry-Num: 1, as Slack retries (Slack API docs, "The Events API",
// retries); with --replicas 2 every event goes to one replica and, as that
// retry, to the other.
//
// It prints the events sent, the ack latencies, the answers, duplicates,
// missing answers, "temporarily unavailable" and busy replies, the answer
// latencies, the throughput and the Weaviate requests per question (from
// serve's /metrics), and exits 1 when an acceptance condition fails: a
// double answer, a missing answer, an "unavailable" reply, or an ack of 1 s
// or more. Run it through scripts/loadtest.sh, which builds the binary.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragbot/ragbot/bot/slack/slackfake"
)

type options struct {
	ragbot      string
	askers      int
	duration    time.Duration
	retry       float64
	replicas    int
	weaviateURL string
	wvPort      int
	servePort   int
	repos       []string
	drain       time.Duration
	serveKeys   string
	collection  string
	busyPause   time.Duration
	hostile     int
	commits     int
}

type repoList []string

func (r *repoList) String() string     { return strings.Join(*r, ",") }
func (r *repoList) Set(v string) error { *r = append(*r, v); return nil }

func main() {
	var o options
	var repos repoList
	flag.StringVar(&o.ragbot, "ragbot", "bin/ragbot", "the ragbot binary")
	flag.IntVar(&o.askers, "askers", 50, "concurrent askers")
	flag.DurationVar(&o.duration, "duration", 60*time.Second, "how long askers send questions")
	flag.Float64Var(&o.retry, "retry", 0.1, "share of events delivered twice (one replica), as Slack retries")
	flag.IntVar(&o.replicas, "replicas", 1, "ragbot serve processes; with 2 or more every event is also delivered, as a retry, to the next one")
	flag.StringVar(&o.weaviateURL, "weaviate-url", os.Getenv("RAGBOT_TEST_WEAVIATE_URL"), "a running Weaviate to use (a collection of its own, dropped at the end); empty starts one")
	flag.IntVar(&o.wvPort, "weaviate-port", 8590, "port of the Weaviate started when --weaviate-url is empty (it uses port..port+5)")
	flag.IntVar(&o.servePort, "serve-port", 8581, "port of the first ragbot serve (the next ones follow)")
	flag.Var(&repos, "repo", "a git repository to index (repeatable); default this repository and github.com/slack-go/slack from the module cache")
	flag.DurationVar(&o.drain, "drain", 45*time.Second, "how long to wait after --duration for the answers still due")
	flag.StringVar(&o.collection, "collection", "", "with --weaviate-url: index into (or re-use) this collection and keep it, so that later runs find it indexed; empty: a new one, dropped at the end")
	flag.DurationVar(&o.busyPause, "busy-pause", time.Second, "how long an asker waits after a busy reply before its next question")
	flag.IntVar(&o.commits, "commits", 3, "with 2 or more replicas: commits made while the askers run to a small repository that every replica polls every 10 s; each must be indexed by exactly one replica; 0 skips it")
	flag.IntVar(&o.hostile, "hostile", 40, "after the askers, this many concurrent 25 MB webhook POSTs with a wrong signature to the first serve, whose RSS must grow by less than 50 MB; 0 skips it")
	flag.StringVar(&o.serveKeys, "serve", "", `extra keys of the serve section, YAML flow style, e.g. "max_concurrent_answers: 8"`)
	flag.Parse()
	o.repos = repos
	if o.askers < 1 || o.duration <= 0 || o.retry < 0 || o.retry > 1 || o.replicas < 1 {
		fmt.Fprintln(os.Stderr, "loadtest: --askers and --replicas must be at least 1, --duration positive, --retry within 0..1")
		os.Exit(2)
	}
	ok, err := run(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadtest:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
	fmt.Println("PASS")
}

// questions are asked in turn; they name things of the two default
// repositories, or describe them, as users do.
var questions = []string{
	"where is Store.Upsert defined?",
	"where is the hybrid query built?",
	"where are Slack request signatures verified?",
	"PostMessageContext - where's that implemented",
	"where do we retry after HTTP 429 with Retry-After?",
	"where is Admission.Wrap?",
	"how does the bot dedupe retried Slack events?",
	"where is the socket mode connection opened?",
	"where is relativeScoreFusion configured?",
	"where is UpdateMessageContext defined?",
	"where are document frequencies counted?",
	"where is the git diff between two commits read?",
	"how are block kit buttons built?",
	"where is the config validated?",
	"where do tree-sitter chunks get their symbol names?",
	"where is NewSecretsVerifier?",
	"where does the indexer skip vendored files?",
	"where are the Prometheus metrics registered?",
	"where is the Teams token fetched?",
	"where is the answer timeout applied?",
}

// event is one question and what became of it.
type event struct {
	id, ts  string
	replica int
	sent    time.Time
	acks    []time.Duration
	final   time.Time // when the final reply was first seen; zero when none
	text    string
	done    chan struct{}
}

type harness struct {
	o       options
	work    string
	fake    *slackfake.Server
	serves  []*exec.Cmd
	urls    []string
	client  *http.Client
	channel string

	mu      sync.Mutex
	pending map[string]*event // by ts
	events  []*event
	seq     atomic.Int64
	polled  string // the polled repository (--commits), or ""
	run     string // prefix of this run's event ids: Slack's event_ids are unique across runs, and claims of a kept collection outlive a run
}

func run(o options) (bool, error) {
	work, err := os.MkdirTemp("", "ragbot-loadtest-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(work)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	h := &harness{o: o, work: work, channel: "C0LOAD", pending: map[string]*event{}, run: strings.ToUpper(strconv.FormatInt(time.Now().UnixNano()%(36*36*36*36*36*36), 36)),
		client: &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: o.askers * 2}}}
	if len(o.repos) == 0 {
		if o.repos, err = defaultRepos(work); err != nil {
			return false, err
		}
		h.o.repos = o.repos
	}
	os.Setenv("LOADTEST_WEBHOOK_SECRET", webhookSecret) // for index and serve
	h.fake = slackfake.Start()
	defer h.fake.Close()
	collection := ""
	if o.weaviateURL != "" {
		if collection = o.collection; collection == "" {
			collection = fmt.Sprintf("Load%d", os.Getpid())
			defer dropCollections(o.weaviateURL, collection)
		}
	}
	if o.replicas > 1 && o.commits > 0 {
		if h.polled, err = newPolledRepo(work); err != nil {
			return false, err
		}
	}
	cfg, err := h.writeConfig(collection)
	if err != nil {
		return false, err
	}
	if o.weaviateURL == "" { // the other commands use the Weaviate that runs on the config's port
		stopWV, err := startWeaviate(ctx, o, cfg, work)
		if err != nil {
			return false, err
		}
		defer stopWV()
	}
	start := time.Now()
	out, err := exec.CommandContext(ctx, o.ragbot, "index", "--config", cfg).CombinedOutput()
	if err != nil {
		return false, fmt.Errorf("ragbot index: %v\n%s", err, out)
	}
	chunks := 0
	for _, l := range strings.Split(string(out), "\n") {
		if i := strings.Index(l, " chunks ("); i > 0 {
			f := strings.Fields(l[:i])
			n, _ := strconv.Atoi(f[len(f)-1])
			chunks += n
		}
	}
	fmt.Printf("indexed %d repositories, %d chunks, in %s\n", len(o.repos), chunks, time.Since(start).Round(time.Second))
	for i := range o.replicas {
		if err := h.startServe(ctx, cfg, i); err != nil {
			return false, err
		}
	}
	defer h.stopServes()
	before, err := h.scrape()
	if err != nil {
		return false, err
	}
	fmt.Printf("load: %d askers for %s, %.0f%% retried deliveries, %d serve replica(s), %d CPUs\n",
		o.askers, o.duration, o.retry*100, o.replicas, runtime.NumCPU())
	go h.poll(ctx)
	began := time.Now()
	end := began.Add(o.duration)
	var wg sync.WaitGroup
	if h.polled != "" {
		wg.Go(func() { h.commitDuring(began, o.duration) })
	}
	for a := range o.askers {
		wg.Go(func() { h.ask(a, end) })
	}
	wg.Wait()
	elapsed := time.Since(began)
	time.Sleep(2 * time.Second) // let a late double answer land before counting
	after, err := h.scrape()
	if err != nil {
		return false, err
	}
	ok := h.report(elapsed, before, after)
	if h.polled != "" {
		ok = h.countPolledRuns(before) && ok
	}
	if o.hostile > 0 {
		ok = h.flood(o.hostile) && ok
	}
	return ok, nil
}

// polledEvery is the poll interval of the polled repository: config's
// minimum, so that the test is short.
const polledEvery = 10 * time.Second

// newPolledRepo creates a small git repository under work with one commit.
func newPolledRepo(work string) (string, error) {
	dir := filepath.Join(work, "polled")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := gitIn(dir, "init", "-q", "-b", "main"); err != nil {
		return "", err
	}
	return dir, commitFile(dir, 0)
}

// commitFile writes poll<k>.go with one function and commits it.
func commitFile(dir string, k int) error {
	src := fmt.Sprintf("package polled\n\n// Step%d returns %d.\nfunc Step%d() int { return %d }\n", k, k, k, k)
	if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("poll%d.go", k)), []byte(src), 0o644); err != nil {
		return err
	}
	if err := gitIn(dir, "add", "-A"); err != nil {
		return err
	}
	return gitIn(dir, "-c", "user.name=load", "-c", "user.email=load@example.com", "commit", "-q", "-m", fmt.Sprintf("step %d", k))
}

func gitIn(dir string, args ...string) error {
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// commitDuring makes --commits commits to the polled repository, spread over
// the askers' run and at least two poll intervals apart, so that each one is
// seen by its own poll.
func (h *harness) commitDuring(began time.Time, d time.Duration) {
	gap := max(d/time.Duration(h.o.commits+1), 2*polledEvery)
	for k := 1; k <= h.o.commits; k++ {
		time.Sleep(time.Until(began.Add(time.Duration(k) * gap)))
		if err := commitFile(h.polled, k); err != nil {
			fmt.Fprintln(os.Stderr, "loadtest:", err)
			return
		}
	}
}

// countPolledRuns waits until the replicas have indexed the polled
// repository's last commit (at most three poll intervals after it), then
// reports whether its index runs that wrote chunks (ragbot_index_runs_total
// with result "ok", summed over the replicas, since before) number exactly the
// commits made: none indexed twice, none missed.
func (h *harness) countPolledRuns(before []metrics) bool {
	sel := `ragbot_index_runs_total{result="ok",source="polled"}`
	count := func() ([]float64, float64, error) {
		now, err := h.scrape()
		if err != nil {
			return nil, 0, err
		}
		per := make([]float64, len(now))
		var total float64
		for i := range now {
			per[i] = now[i].sum(sel) - before[i].sum(sel)
			total += per[i]
		}
		return per, total, nil
	}
	deadline := time.Now().Add(3*polledEvery + 30*time.Second)
	per, total, err := count()
	for err == nil && int(total) < h.o.commits && time.Now().Before(deadline) {
		time.Sleep(time.Second)
		per, total, err = count()
	}
	if err != nil {
		fmt.Println("FAIL: polled repository:", err)
		return false
	}
	time.Sleep(polledEvery + 2*time.Second) // one more poll each: a second index of a commit would show
	if per, total, err = count(); err != nil {
		fmt.Println("FAIL: polled repository:", err)
		return false
	}
	fmt.Printf("polled repository: %d commits, %d index runs that wrote chunks (by replica: %v)\n", h.o.commits, int(total), per)
	if int(total) != h.o.commits {
		fmt.Printf("FAIL: %d commits indexed in %d runs, want one run each\n", h.o.commits, int(total))
		return false
	}
	return true
}

// webhookSecret is the first source's push webhook secret; the flood never
// signs with it.
const webhookSecret = "loadtest-webhook-secret"

// rssGrowthLimit is the bound on the growth of the first serve's resident
// set while the flood lasts, in bytes.
const rssGrowthLimit = 50 << 20

// flood sends n concurrent 25 MB push deliveries (GitHub's payload cap, GitHub
// docs "Webhook events and payloads") to the first serve's webhook of the
// first source, each with a well-formed but wrong signature (so that its
// body is read and hashed), samples that process's VmRSS (proc(5)) every
// 20 ms while they last, and reports whether every delivery was refused
// (401, 413 or 503, or the connection closed before the body was sent) and
// the peak stayed within rssGrowthLimit of the RSS before.
func (h *harness) flood(n int) bool {
	pid := h.serves[0].Process.Pid
	url := fmt.Sprintf("%s/webhooks/repo1-%s", h.urls[0], filepath.Base(h.o.repos[0]))
	body := bytes.Repeat([]byte("x"), 25<<20)
	base, _ := rss(pid)
	peak := base
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if v, err := rss(pid); err == nil && v > peak {
				peak = v
			}
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var mu sync.Mutex
	codes := map[string]int{}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("X-GitHub-Event", "push")
			req.Header.Set("X-GitHub-Delivery", fmt.Sprintf("flood-%d", i))
			req.Header.Set("X-Hub-Signature-256", "sha256="+strings.Repeat("0", 64))
			key := "closed"
			if resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req); err == nil {
				key = strconv.Itoa(resp.StatusCode)
				resp.Body.Close()
			}
			mu.Lock()
			codes[key]++
			mu.Unlock()
		})
	}
	wg.Wait()
	close(stop)
	<-sampled
	ok := peak-base < rssGrowthLimit
	for k := range codes {
		if k != "401" && k != "413" && k != "503" && k != "closed" {
			ok = false
		}
	}
	fmt.Printf("hostile webhooks: %d x 25 MB wrongly signed: %v; serve RSS %d MB before, peak %d MB (growth limit %d MB)\n",
		n, codes, base>>20, peak>>20, rssGrowthLimit>>20)
	if !ok {
		fmt.Println("FAIL: a hostile delivery was accepted or the RSS limit was passed")
	}
	return ok
}

// rss returns the resident set size of process pid in bytes, from VmRSS in
// /proc/<pid>/status (proc(5)); Linux only.
func rss(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(v)
			kb, err := strconv.ParseInt(f[0], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// defaultRepos returns this repository and a git copy of slack-go from the
// module cache.
func defaultRepos(work string) ([]string, error) {
	self, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return nil, fmt.Errorf("run from inside the ragbot repository: %w", err)
	}
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/slack-go/slack").Output()
	if err != nil || strings.TrimSpace(string(dir)) == "" {
		return nil, fmt.Errorf("github.com/slack-go/slack not in the module cache (go mod download): %v", err)
	}
	dst := filepath.Join(work, "slack-go")
	if out, err := exec.Command("cp", "-r", strings.TrimSpace(string(dir)), dst).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("copy slack-go: %v %s", err, out)
	}
	if out, err := exec.Command("chmod", "-R", "u+w", dst).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("chmod: %v %s", err, out)
	}
	git := func(args ...string) error {
		cmd := exec.Command("git", append([]string{"-C", dst, "-c", "user.name=loadtest", "-c", "user.email=loadtest@example.com"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %v %s", args, err, out)
		}
		return nil
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "slack-go"}} {
		if err := git(args...); err != nil {
			return nil, err
		}
	}
	return []string{strings.TrimSpace(string(self)), dst}, nil
}

func startWeaviate(ctx context.Context, o options, cfg, work string) (func(), error) {
	logf, err := os.Create(filepath.Join(work, "weaviate.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, o.ragbot, "weaviate", "--config", cfg)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 20 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() { _ = cmd.Process.Signal(os.Interrupt); <-exited; logf.Close() }
	url := fmt.Sprintf("http://127.0.0.1:%d/v1/.well-known/ready", o.wvPort)
	if err := waitHTTP(url, 120*time.Second, exited); err != nil {
		stop()
		out, _ := os.ReadFile(logf.Name())
		return nil, fmt.Errorf("weaviate not ready on port %d: %w\n%s", o.wvPort, err, out)
	}
	return stop, nil
}

// weaviateKeyEnv holds the API key of the Weaviate at --weaviate-url when
// it is locked (the same variable the tests read).
const weaviateKeyEnv = "RAGBOT_TEST_WEAVIATE_API_KEY"

// authorize adds the API key in weaviateKeyEnv to req, when there is one.
func authorize(req *http.Request) {
	if key := os.Getenv(weaviateKeyEnv); key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
}

// dropCollections deletes the collections named prefix* (the chunk
// collection and the state and feedback ones named after it).
func dropCollections(url, prefix string) {
	req, _ := http.NewRequest(http.MethodGet, url+"/v1/schema", nil)
	authorize(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	for _, f := range strings.Split(string(body), `"class":"`)[1:] {
		name, _, _ := strings.Cut(f, `"`)
		if strings.HasPrefix(name, prefix) {
			req, _ := http.NewRequest(http.MethodDelete, url+"/v1/schema/"+name, nil)
			authorize(req)
			if r, err := http.DefaultClient.Do(req); err == nil {
				r.Body.Close()
			}
		}
	}
}

func (h *harness) writeConfig(collection string) (string, error) {
	var b strings.Builder
	if h.o.weaviateURL == "" {
		fmt.Fprintf(&b, "weaviate:\n  port: %d\n  data_dir: %s\n", h.o.wvPort, filepath.Join(h.work, "wdata"))
	} else {
		fmt.Fprintf(&b, "weaviate:\n  url: %s\n", h.o.weaviateURL)
		if os.Getenv(weaviateKeyEnv) != "" { // a locked server, as .ci/run starts
			fmt.Fprintf(&b, "  api_key_env: %s\n", weaviateKeyEnv)
		}
	}
	if collection != "" {
		fmt.Fprintf(&b, "  collection: %s\n", collection)
	}
	b.WriteString("sources:\n")
	for i, r := range h.o.repos {
		fmt.Fprintf(&b, "  - name: repo%d-%s\n    kind: git\n    path: %s\n", i+1, filepath.Base(r), r)
		if i == 0 {
			b.WriteString("    webhook_secret_env: LOADTEST_WEBHOOK_SECRET\n")
		}
	}
	if h.polled != "" {
		fmt.Fprintf(&b, "  - name: polled\n    kind: git\n    path: %s\n    poll_interval: 10s\n", h.polled)
	}
	fmt.Fprintf(&b, "serve: {listen: 127.0.0.1:%d", h.o.servePort)
	if h.o.serveKeys != "" {
		fmt.Fprintf(&b, ", %s", h.o.serveKeys)
	}
	fmt.Fprintf(&b, "}\nslack: {mode: http, api_url: %s}\n", h.fake.APIURL())
	cfg := filepath.Join(h.work, "ragbot.yaml")
	return cfg, os.WriteFile(cfg, []byte(b.String()), 0o600)
}

func (h *harness) startServe(ctx context.Context, cfg string, i int) error {
	addr := fmt.Sprintf("127.0.0.1:%d", h.o.servePort+i)
	logf, err := os.Create(filepath.Join(h.work, fmt.Sprintf("serve%d.log", i)))
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, h.o.ragbot, "serve", "--config", cfg, "--listen", addr)
	cmd.Env = append(os.Environ(), "RAGBOT_SLACK_BOT_TOKEN="+slackfake.BotToken, "RAGBOT_SLACK_SIGNING_SECRET="+slackfake.SigningSecret)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 40 * time.Second
	if err := cmd.Start(); err != nil {
		return err
	}
	h.serves = append(h.serves, cmd)
	url := "http://" + addr
	h.urls = append(h.urls, url)
	if err := waitHTTP(url+"/readyz", 120*time.Second, nil); err != nil {
		return fmt.Errorf("ragbot serve %d not ready (log %s): %w", i, logf.Name(), err)
	}
	// serve indexes each git source at start: wait for those runs (up to
	// date here) so that their requests are not counted as the questions'.
	deadline := time.Now().Add(120 * time.Second)
	for time.Now().Before(deadline) {
		m, err := scrapeOne(url)
		if err == nil && m.sum("ragbot_index_runs_total") >= float64(len(h.o.repos)) {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("ragbot serve %d did not finish its start-up index runs", i)
}

func (h *harness) stopServes() {
	for _, c := range h.serves {
		_ = c.Process.Signal(os.Interrupt)
	}
	for _, c := range h.serves {
		_ = c.Wait()
	}
}

// waitHTTP polls url every 250 ms until it answers 200, for at most limit;
// it gives up early when exited (nil for none) is closed: the process that
// should answer has died.
func waitHTTP(url string, limit time.Duration, exited <-chan struct{}) error {
	deadline := time.Now().Add(limit)
	var last error
	for time.Now().Before(deadline) {
		select {
		case <-exited: // nil: never
			return errors.New("the process exited")
		default:
		}
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		last = err
		time.Sleep(250 * time.Millisecond)
	}
	return last
}

// ask sends questions until end, one at a time, each after the previous
// one's reply (or its drain deadline). After a busy reply it waits
// --busy-pause, as a person would not resend at once.
func (h *harness) ask(asker int, end time.Time) {
	for n := 0; time.Now().Before(end); n++ {
		q := questions[(asker*7+n)%len(questions)]
		e := h.send(asker, q)
		select {
		case <-e.done:
		case <-time.After(time.Until(end) + h.o.drain):
			return
		}
		if strings.Contains(e.text, "I'm busy") {
			time.Sleep(h.o.busyPause)
		}
	}
}

// send posts question as a user message, delivers its app_mention event
// (and the retry, when drawn) and returns the event.
func (h *harness) send(asker int, question string) *event {
	k := h.seq.Add(1)
	user := fmt.Sprintf("U%05d", asker+1)
	ts := h.fake.AddMessage(slackfake.Message{Channel: h.channel, User: user, Text: "<@" + slackfake.BotUserID + "> " + question})
	e := &event{id: fmt.Sprintf("Ev%s%08d", h.run, k), ts: ts, replica: int(k) % len(h.urls), done: make(chan struct{})}
	h.mu.Lock()
	h.pending[ts] = e
	h.events = append(h.events, e)
	h.mu.Unlock()
	body := slackfake.EventCallback(e.id, slackfake.Mention(h.channel, user, question, ts, ""))
	e.sent = time.Now()
	h.deliver(e, body, e.replica, 0)
	switch {
	case len(h.urls) > 1: // every event also reaches the next replica, as a retry
		h.deliver(e, body, (e.replica+1)%len(h.urls), 1)
	case h.o.retry > 0 && math.Mod(float64(k)*0.6180339887, 1) < h.o.retry: // a spread 10%, reproducible
		h.deliver(e, body, e.replica, 1)
	}
	return e
}

func (h *harness) deliver(e *event, body []byte, replica, retry int) {
	req := slackfake.SignedRequest(h.urls[replica]+"/slack/events", "application/json", slackfake.SigningSecret, time.Now(), body)
	if retry > 0 {
		req.Header.Set("X-Slack-Retry-Num", strconv.Itoa(retry))
		req.Header.Set("X-Slack-Retry-Reason", "http_timeout")
	}
	start := time.Now()
	resp, err := h.client.Do(req)
	d := time.Since(start)
	if err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			err = errors.New(resp.Status)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "event %s to replica %d: %v\n", e.id, replica, err)
		d = h.client.Timeout // counted as a failed ack
	}
	h.mu.Lock()
	e.acks = append(e.acks, d)
	h.mu.Unlock()
}

// poll reads the channel's messages every 50 ms and marks an event
// answered when a bot message in its thread has been updated (the
// "Searching…" reply replaced by the final one).
func (h *harness) poll(ctx context.Context) {
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		for _, m := range h.fake.Messages(h.channel) {
			if m.BotID == "" || m.Updates == 0 {
				continue
			}
			h.mu.Lock()
			if e, ok := h.pending[m.ThreadTS]; ok {
				delete(h.pending, m.ThreadTS)
				e.final, e.text = now, m.Text
				close(e.done)
			}
			h.mu.Unlock()
		}
	}
}

func (h *harness) report(elapsed time.Duration, before, after []metrics) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	replies := map[string][]slackfake.Message{}
	for _, m := range h.fake.Messages(h.channel) {
		if m.BotID != "" {
			replies[m.ThreadTS] = append(replies[m.ThreadTS], m)
		}
	}
	var acks, answerSecs []float64
	var answered, busy, unavailable, missing, duplicates, deliveries int
	for _, e := range h.events {
		for _, a := range e.acks {
			acks = append(acks, a.Seconds())
		}
		deliveries += len(e.acks)
		rs := replies[e.ts]
		if len(rs) > 1 || len(rs) == 1 && rs[0].Updates > 1 {
			duplicates++
		}
		if e.final.IsZero() {
			missing++
			continue
		}
		switch {
		case strings.Contains(e.text, "temporarily unavailable"):
			unavailable++
		case strings.Contains(e.text, "I'm busy"):
			busy++
		default:
			answered++
			answerSecs = append(answerSecs, e.final.Sub(e.sent).Seconds())
		}
	}
	slices.Sort(acks)
	slices.Sort(answerSecs)
	fmt.Printf("events sent: %d (%d deliveries with retries)\n", len(h.events), deliveries)
	fmt.Printf("acks: p50 %.3f s  p95 %.3f s  max %.3f s\n", pct(acks, 0.5), pct(acks, 0.95), pct(acks, 1))
	fmt.Printf("answers posted: %d  busy replies: %d  temporarily unavailable: %d  missing: %d  duplicates: %d\n",
		answered, busy, unavailable, missing, duplicates)
	fmt.Printf("answers: p50 %.1f s  p95 %.1f s  max %.1f s (from sending the event; polled every 50 ms)\n",
		pct(answerSecs, 0.5), pct(answerSecs, 0.95), pct(answerSecs, 1))
	fmt.Printf("throughput: %.2f answers/s over %s\n", float64(answered)/elapsed.Seconds(), elapsed.Round(time.Second))
	var searched float64
	byKind := map[string]float64{}
	for i := range after {
		searched += after[i].sum(`ragbot_questions_total{`) - before[i].sum(`ragbot_questions_total{`)
		searched -= after[i].sum(`outcome="busy"`) - before[i].sum(`outcome="busy"`)
		for _, k := range []string{"search", "aggregate", "objects", "batch", "schema", "other"} {
			sel := `ragbot_weaviate_request_duration_seconds_count{kind="` + k + `"}`
			byKind[k] += after[i].sum(sel) - before[i].sum(sel)
		}
	}
	var total float64
	var parts []string
	for _, k := range []string{"search", "aggregate", "objects", "batch", "schema", "other"} {
		total += byKind[k]
		if byKind[k] > 0 && searched > 0 {
			parts = append(parts, fmt.Sprintf("%s %.2f", k, byKind[k]/searched))
		}
	}
	if searched > 0 {
		fmt.Printf("Weaviate requests per searched question: %.2f (%s) over %.0f questions\n", total/searched, strings.Join(parts, ", "), searched)
	}
	ok := true
	fail := func(format string, args ...any) { ok = false; fmt.Printf("FAIL: "+format+"\n", args...) }
	if duplicates > 0 {
		fail("%d questions answered more than once", duplicates)
	}
	if missing > 0 {
		fail("%d questions never answered", missing)
	}
	if unavailable > 0 {
		fail("%d answers were \"temporarily unavailable\"", unavailable)
	}
	if len(acks) > 0 && acks[len(acks)-1] >= 1 {
		fail("an ack took %.3f s (>= 1 s)", acks[len(acks)-1])
	}
	return ok
}

// pct is the nearest-rank percentile p (0..1] of sorted xs; 0 when empty.
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return xs[max(0, int(math.Ceil(p*float64(len(xs))))-1)]
}

// metrics are the sample lines of one /metrics scrape.
type metrics []string

// sum adds the values of the samples whose line starts with or contains sel.
func (m metrics) sum(sel string) float64 {
	var s float64
	for _, l := range m {
		if strings.HasPrefix(l, "#") || !strings.Contains(l, sel) {
			continue
		}
		if i := strings.LastIndexByte(l, ' '); i > 0 {
			v, _ := strconv.ParseFloat(l[i+1:], 64)
			s += v
		}
	}
	return s
}

func (h *harness) scrape() ([]metrics, error) {
	var out []metrics
	for _, u := range h.urls {
		m, err := scrapeOne(u)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func scrapeOne(url string) (metrics, error) {
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var m metrics
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m = append(m, sc.Text())
	}
	return m, sc.Err()
}
