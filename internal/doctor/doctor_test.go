package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/bot/slack/slackfake"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/config/configtest"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/scipcalls"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// TestMain gives the tests a real Weaviate (weaviatetest).
func TestMain(m *testing.M) { weaviatetest.Main(m) }

// loadConfig loads a config of one markdown source against the Weaviate at
// url, with extra appended (YAML at the top level).
func loadConfig(t *testing.T, url, extra string) *config.Config {
	t.Helper()
	body := fmt.Sprintf("weaviate: {url: %s, collection: Unused}\nsources:\n  - {name: notes, kind: markdown, path: %s}\n%s", url, t.TempDir(), extra)
	return configtest.Load(t, "", body)
}

// wantLines checks that out has a line starting with each of want.
func wantLines(t *testing.T, out string, want ...string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for _, w := range want {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, w) }) {
			t.Errorf("no line starting with %q in:\n%s", w, out)
		}
	}
}

// setShard sets the status of every shard of class over Weaviate's REST API
// (PUT /v1/schema/{class}/shards/{shard}) and returns the shard names.
func setShard(t *testing.T, base, class, status string) []string {
	t.Helper()
	resp, err := http.Get(base + "/v1/schema/" + class + "/shards")
	if err != nil {
		t.Fatal(err)
	}
	var shards []struct{ Name string }
	err = json.NewDecoder(resp.Body).Decode(&shards)
	resp.Body.Close()
	if err != nil || len(shards) == 0 {
		t.Fatalf("shards of %s: %v %v", class, shards, err)
	}
	var names []string
	for _, s := range shards {
		req, _ := http.NewRequest(http.MethodPut, base+"/v1/schema/"+class+"/shards/"+s.Name, strings.NewReader(`{"status":"`+status+`"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("PUT shard %s status %s: %v %v", s.Name, status, resp, err)
		}
		resp.Body.Close()
		names = append(names, s.Name)
	}
	return names
}

// TestCheckConfig: a config that does not load is one failed check naming
// the file; one that loads is ok with its number of sources.
func TestCheckConfig(t *testing.T) {
	var out bytes.Buffer
	d := New(&out, time.Second)
	if d.CheckConfig("ragbot.yaml", nil, errors.New(`sources[0].kind: unknown kind "svn"`)) {
		t.Error("CheckConfig of a config that failed to load reports it loaded")
	}
	if err := d.Err(); err == nil || err.Error() != "1 check failed" {
		t.Errorf("Err() = %v, want 1 check failed", err)
	}
	cfg := loadConfig(t, "http://127.0.0.1:1", "")
	if !New(&out, time.Second).CheckConfig("ragbot.yaml", cfg, nil) {
		t.Error("CheckConfig of a loaded config reports it did not load")
	}
	want := "FAIL config: sources[0].kind: unknown kind \"svn\"; fix: edit ragbot.yaml (`ragbot validate` lists every problem)\n" +
		"ok   config: ragbot.yaml valid, 1 sources\n"
	if got := out.String(); got != want {
		t.Errorf("lines:\n%s\nwant:\n%s", got, want)
	}
}

// TestWeaviateDown: with Weaviate unreachable, doctor fails that one check
// with the fix, skips those that need it, and runs the others.
func TestWeaviateDown(t *testing.T) {
	t.Setenv("RAGBOT_TEST_DOCTOR_HOOK", "s3cret")
	cfg := loadConfig(t, "http://127.0.0.1:1", "slack:\n  bot_token_env: RAGBOT_TEST_DOCTOR_NO_SUCH_TOKEN\n")
	cfg.Sources[0].WebhookSecretEnv = "RAGBOT_TEST_DOCTOR_HOOK"
	var out bytes.Buffer
	d := New(&out, 5*time.Second)
	d.CheckAll(context.Background(), Deployment{Config: cfg, Embedder: embed.NewOffline(), Family: embed.OfflineName})
	if err := d.Err(); err == nil || err.Error() != "1 check failed" {
		t.Errorf("Err() = %v, want 1 check failed\n%s", err, out.String())
	}
	wantLines(t, out.String(), "FAIL weaviate: cannot reach http://127.0.0.1:1: ",
		"skip index: shards, embedder and git index state need Weaviate", "ok   webhook notes: secret set (RAGBOT_TEST_DOCTOR_HOOK)",
		"skip slack: RAGBOT_TEST_DOCTOR_NO_SUCH_TOKEN not set here")
	if !strings.Contains(out.String(), "fix: start it (`systemctl start weaviate`, or `ragbot weaviate` for the local one) or correct weaviate.url") {
		t.Errorf("no fix for Weaviate down:\n%s", out.String())
	}
}

// TestReadonlyShard: every shard READY is ok; a READONLY one fails with
// the command that makes it writable again.
func TestReadonlyShard(t *testing.T) {
	store := weaviatetest.NewStore(t, embed.OfflineName)
	base, class := weaviatetest.URL(t), store.ChunkClass()
	var out bytes.Buffer
	d := New(&out, 10*time.Second)
	d.base = base
	d.checkShards(context.Background(), class)
	wantLines(t, out.String(), "ok   collection "+class+": ")

	shards := setShard(t, base, class, "READONLY")
	defer setShard(t, base, class, "READY")
	out.Reset()
	d.checkShards(context.Background(), class)
	wantLines(t, out.String(), fmt.Sprintf(`FAIL shard %s/%s: READONLY: index runs and votes cannot write (Weaviate sets this when the disk is nearly full); fix: free disk space on Weaviate's data dir, then curl -X PUT %s/v1/schema/%s/shards/%s -H 'Content-Type: application/json' -d '{"status":"READY"}'`,
		class, shards[0], base, class, shards[0]))
	if err := d.Err(); err == nil || err.Error() != "1 check failed" {
		t.Errorf("Err() = %v, want 1 check failed", err)
	}
}

// TestVectorIndexWarning: a flat chunk collection past the limit gets a
// warning naming weaviate.vector_index; at or under it, or on HNSW, none.
func TestVectorIndexWarning(t *testing.T) {
	ctx := context.Background()
	emb := embed.NewOffline()
	for _, typ := range []string{"flat", "hnsw"} {
		store, err := weaviate.OpenStore(ctx, weaviate.StoreConfig{URL: weaviatetest.URL(t), ChunkClass: weaviatetest.ClassName(), VectorIndex: typ}, emb.Name())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = store.Drop(context.Background()) })
		chunks := []retrieval.Chunk{
			{Source: "repo:a", Kind: retrieval.KindCode, Path: "a.go", Symbol: "A", Content: "func A() {}", StartLine: 1, EndLine: 1, IndexedAt: time.Now()},
			{Source: "repo:a", Kind: retrieval.KindCode, Path: "b.go", Symbol: "B", Content: "func B() {}", StartLine: 1, EndLine: 1, IndexedAt: time.Now()},
			{Source: "repo:a", Kind: retrieval.KindCode, Path: "c.go", Symbol: "C", Content: "func C() {}", StartLine: 1, EndLine: 1, IndexedAt: time.Now()},
		}
		vecs, err := emb.Embed(ctx, []string{"A", "B", "C"})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Upsert(ctx, chunks, vecs); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		d := New(&out, 10*time.Second)
		d.base = weaviatetest.URL(t)
		_, d.apiKey = weaviatetest.Direct(t)
		d.checkVectorIndex(ctx, store.ChunkClass(), 3)
		if out.Len() != 0 {
			t.Errorf("%s, 3 chunks, limit 3: %q, want nothing", typ, out.String())
		}
		d.checkVectorIndex(ctx, store.ChunkClass(), 2)
		switch typ {
		case "flat":
			wantLines(t, out.String(), fmt.Sprintf("warn vector index: collection %s holds 3 chunks on flat vector indexes", store.ChunkClass()))
			if !strings.Contains(out.String(), "set weaviate.vector_index: hnsw") {
				t.Errorf("flat: the fix does not name weaviate.vector_index: %q", out.String())
			}
		default:
			if out.Len() != 0 {
				t.Errorf("hnsw, 3 chunks, limit 2: %q, want nothing", out.String())
			}
		}
	}
}

// TestThresholds: an entry for the embedder's name or family is ok; none
// warns for an offline embedder and fails for an API one.
func TestThresholds(t *testing.T) {
	emb := embed.NewOffline()
	for _, tt := range []struct {
		name, extra, kind, want string
	}{
		{"by name", fmt.Sprintf("retrieval:\n  thresholds:\n    %q:\n      min_similarity: 0.3\n", emb.Name()), "", "ok   thresholds: retrieval.thresholds has an entry for " + emb.Name()},
		{"by family", "retrieval:\n  thresholds:\n    fam:\n      min_similarity: 0.3\n", "", "ok   thresholds: retrieval.thresholds has an entry for the family fam"},
		{"offline", "", "", "warn thresholds: no retrieval.thresholds entry for " + emb.Name() + ": using built-in defaults; fix: run `ragbot eval`"},
		{"api", "", "openai", "FAIL thresholds: no retrieval.thresholds entry for the API embedder " + emb.Name() + ": the built-in defaults are not on its scale"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := loadConfig(t, "http://127.0.0.1:1", tt.extra)
			if tt.kind != "" {
				cfg.Embedder.Kind = tt.kind
			}
			var out bytes.Buffer
			New(&out, time.Second).checkThresholds(cfg, emb, "fam")
			wantLines(t, out.String(), tt.want)
		})
	}
}

// TestRedaction: redaction is on by default, a warning when
// indexing.redact is false, a failure when its detector cannot be built.
func TestRedaction(t *testing.T) {
	for _, tt := range []struct {
		name, extra string
		err         error
		want        string
	}{
		{"default", "", nil, "ok   redaction: secrets replaced at index time (0 rules off, 0 paths allowed)"},
		{"off", "indexing:\n  redact: false\n", nil, "warn redaction: indexing.redact is false: secrets committed in the sources are stored and posted to chat as they are; fix: "},
		{"unknown rule", "indexing:\n  redact_disable_rules: [no-such-rule]\n", errors.New(`indexing.redact_disable_rules: "no-such-rule" is not a rule id of gitleaks`),
			`FAIL redaction: indexing.redact_disable_rules: "no-such-rule" is not a rule id of gitleaks; fix: fix the indexing section of the config`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			New(&out, time.Second).checkRedaction(loadConfig(t, "http://127.0.0.1:1", tt.extra), tt.err)
			wantLines(t, out.String(), tt.want)
		})
	}
}

// TestSlackAuth: auth.test against the fake Slack Web API passes with the
// bot token and fails with a revoked one, naming the variable to fix.
func TestSlackAuth(t *testing.T) {
	fake := slackfake.New(t)
	t.Setenv("RAGBOT_TEST_DOCTOR_SIGNING", slackfake.SigningSecret)
	t.Setenv("RAGBOT_TEST_DOCTOR_TOKEN", slackfake.BotToken)
	cfg := loadConfig(t, "http://127.0.0.1:1", fmt.Sprintf("slack:\n  bot_token_env: RAGBOT_TEST_DOCTOR_TOKEN\n  api_url: %s\n  mode: http\n  signing_secret_env: RAGBOT_TEST_DOCTOR_SIGNING\n", fake.APIURL()))
	var out bytes.Buffer
	New(&out, 5*time.Second).checkSlack(context.Background(), cfg, fake.APIURL())
	wantLines(t, out.String(), "ok   slack: auth.test: bot ")
	t.Setenv("RAGBOT_TEST_DOCTOR_TOKEN", "xoxb-revoked")
	out.Reset()
	d := New(&out, 5*time.Second)
	d.checkSlack(context.Background(), cfg, fake.APIURL())
	wantLines(t, out.String(), "FAIL slack: auth.test: invalid_auth; fix: reinstall the app and export its Bot User OAuth Token (xoxb-) in RAGBOT_TEST_DOCTOR_TOKEN")
	if d.Err() == nil {
		t.Error("a revoked token is no failed check")
	}
}

// TestCheckSCIP: with a git source whose commit holds Python or
// JavaScript and resolves calls with SCIP, doctor warns while the indexers
// are missing (naming scripts/install-scip.sh and what is matched by name
// meanwhile) and says ok once they are installed; it says nothing for a
// source with scip: false or with no such file.
func TestCheckSCIP(t *testing.T) {
	ctx := context.Background()
	pyRepo, goRepo := t.TempDir(), t.TempDir()
	for dir, file := range map[string]string{pyRepo: "shop/app.py", goRepo: "main.go"} {
		if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(file)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, file), []byte("x = 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@x", "commit", "-qm", "c"}} {
			if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
	}
	off := false
	for _, tt := range []struct {
		name string
		repo string
		dir  string
		scip *bool
		want string
	}{
		{"missing", pyRepo, t.TempDir(), nil, "warn scip indexers: "},
		{"scip false", pyRepo, t.TempDir(), &off, ""},
		{"no python or javascript", goRepo, t.TempDir(), nil, ""},
		{"installed", pyRepo, "", nil, "ok   scip indexers: scip-python and scip-typescript installed in "},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.dir == "" {
				if err := scipcalls.Installed(scipcalls.Dir()); err != nil {
					if os.Getenv("RAGBOT_REQUIRE_MODEL") == "1" {
						t.Fatalf("RAGBOT_REQUIRE_MODEL=1 and %v", err)
					}
					t.Skipf("%v (RAGBOT_REQUIRE_MODEL=1 makes this a failure)", err)
				}
			}
			var out strings.Builder
			d := New(&out, time.Second)
			cfg := &config.Config{Sources: []config.Source{{Name: "app", Kind: config.KindGit, Path: tt.repo, Git: config.Git{SCIP: tt.scip}}}}
			d.checkSCIP(scipSources(ctx, cfg, repoSources{}), tt.dir)
			got := out.String()
			if tt.want == "" && got != "" || !strings.HasPrefix(got, tt.want) {
				t.Errorf("doctor printed %q, want a line starting %q", got, tt.want)
			}
			if strings.HasPrefix(got, "warn") && (!strings.Contains(got, "scripts/install-scip.sh") || !strings.Contains(got, "JavaScript of app is matched by name")) {
				t.Errorf("warning %q: want the install command and what is matched by name meanwhile", got)
			}
			if d.Err() != nil {
				t.Errorf("a missing indexer failed doctor (%v); it is a warning", d.Err())
			}
		})
	}
}

// repoSources is a Sources whose git sources are the local repositories at
// their path.
type repoSources struct{ Sources }

func (repoSources) Repo(s config.Source) ingest.Repo {
	return ingest.Repo{Name: s.Name, Source: ingest.GitSource{ID: s.SourceID(), Dir: s.Path}}
}
