package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/retrieval"
)

// updateAsk rewrites testdata/ask/*.txt; its own name, as updateRank's.
var updateAsk = flag.Bool("update-ask", false, "rewrite testdata/ask/*.txt")

// TestRenderTextGolden prints answers as `ragbot ask` does and compares
// them with testdata/ask/<name>.txt: a focused snippet (a 120-line function
// whose match is at line 90) and a section of a markdown folder source in
// a git work tree, named by its source.
func TestRenderTextGolden(t *testing.T) {
	now := time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC)
	const sha = "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"
	lines := []string{"func Reconcile(ctx context.Context, state *State) error {"}
	for l := 2; l < 120; l++ {
		if l == 90 {
			lines = append(lines, "\treturn fmt.Errorf(\"lease expired for %s\", id)")
			continue
		}
		lines = append(lines, "\tstep"+strconv.Itoa(l)+" := state.next(ctx)")
	}
	lines = append(lines, "}")
	long := retrieval.Chunk{Source: "repo:svc", Kind: retrieval.KindCode, Path: "svc/reconcile.go", Symbol: "Reconcile",
		Language: "go", Signature: "func Reconcile(ctx context.Context, state *State) error",
		Content: strings.Join(lines, "\n"), StartLine: 1, EndLine: 120, CommitSHA: sha, Branch: "main", Author: "Ann Lee",
		URL: "https://git.example.com/svc/blob/3f1c2d4/svc/reconcile.go#L1-L120", IndexedAt: now.Add(-40 * time.Minute)}
	const q = `where do we return "lease expired"?`
	handbook := retrieval.Snippet{Citation: retrieval.Citation{Source: "docs:handbook", Path: "docs/README.md",
		StartLine: 10, EndLine: 24, Symbol: "Handbook > Retries", CommitSHA: sha, Author: "Ann Lee",
		URL: "https://git.example.com/handbook/blob/3f1c2d4/docs/README.md#L10-L24", IndexedAt: now.Add(-3 * time.Hour)},
		Language: "markdown", Kind: retrieval.KindDoc,
		Text: "## Retries\n\nRequests that fail with 503 are retried with exponential backoff."}
	plain := handbook
	plain.Path, plain.CommitSHA, plain.Author, plain.URL = "README.md", "", "", ""
	tests := []struct {
		name string
		topK int
		ans  retrieval.Answer
	}{
		{"citations", 3, retrieval.Answer{Question: q, Coverage: retrieval.Covered,
			Snippets: []retrieval.Snippet{retrieval.FocusSnippet(long, retrieval.NewFocusTerms(q)), handbook, plain}}},
		{"fewer-than-top-k", 5, retrieval.Answer{Question: q, Coverage: retrieval.Covered,
			Snippets: []retrieval.Snippet{handbook, plain}}},
		{"not-sure", 5, retrieval.Answer{Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure,
			Snippets: []retrieval.Snippet{retrieval.FocusSnippet(long, retrieval.NewFocusTerms(q)), handbook}}},
	}
	// A "not sure" answer holds retrieval.NotSureListed matches: the first
	// retrieval.NotSureMatches with code, the rest by their header lines.
	list := retrieval.Answer{Question: "where does it give up on a flaky server?", Coverage: retrieval.NotSure}
	for i := range retrieval.NotSureListed {
		s := handbook
		s.Path, s.Symbol, s.URL = fmt.Sprintf("docs/retry%d.md", i), fmt.Sprintf("Handbook > Retries %d", i), ""
		list.Snippets = append(list.Snippets, s)
	}
	tests = append(tests, struct {
		name string
		topK int
		ans  retrieval.Answer
	}{"not-sure-list", 5, list})
	// A name the sources lack, and the closest matches for the rest of the
	// question; a typo read as the term the sources hold.
	missing := retrieval.Answer{Question: "where do we send alerts to rabbitmq?", Coverage: retrieval.NoCoverage,
		Missing: "rabbitmq", ClosestFor: "send alerts", Snippets: list.Snippets}
	typo := retrieval.Answer{Question: "where is the retyr logic", Coverage: retrieval.NotSure, DidYouMean: "retry",
		Snippets: []retrieval.Snippet{handbook, plain}}
	tests = append(tests, []struct {
		name string
		topK int
		ans  retrieval.Answer
	}{{"missing-closest", 5, missing}, {"did-you-mean", 5, typo}}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got bytes.Buffer
			renderText(&got, tt.ans, tt.topK, now, false)
			path := filepath.Join("..", "..", "testdata", "ask", tt.name+".txt")
			if *updateAsk {
				if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/ragbot -run TestRenderTextGolden -update-ask)", err)
			}
			if diff := cmp.Diff(string(want), got.String()); diff != "" {
				t.Errorf("%s (-want +got):\n%s", path, diff)
			}
		})
	}
}

// TestAskWeaviateUnreachable: with weaviate.url pointing at a closed port,
// ask names the URL and how to start a server, not the client's internals.
func TestAskWeaviateUnreachable(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := "weaviate:\n  url: http://127.0.0.1:1\nsources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry?")
	want := "ragbot ask: cannot reach Weaviate at http://127.0.0.1:1: is it running? (`ragbot weaviate`)\n"
	if code != 1 || errOut != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and:\n%s", code, errOut, want)
	}
	// After --, a question may start with a dash; it gets as far as Weaviate.
	if code, _, errOut := ragbot(t, "ask", "--config", cfg, "--", "--cluster.settle-timeout"); code != 1 || errOut != want {
		t.Errorf("ask -- --cluster.settle-timeout: exit %d, stderr:\n%s", code, errOut)
	}
}

// TestAskUsageErrors: a question starting with a dash without -- and a
// mistyped --source are usage errors that say what to do, caught before
// Weaviate is contacted (the config's URL is a closed port).
func TestAskUsageErrors(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := "weaviate:\n  url: http://127.0.0.1:1\nsources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string // the last line of stderr
	}{
		{[]string{"--cluster.settle-timeout", "is what?"},
			`ragbot ask: usage: flag provided but not defined: -cluster.settle-timeout (a question that starts with a dash goes after --: ragbot ask -- "-x ...")`},
		{[]string{"where is the retry?", "--source", "htpx"},
			`ragbot ask: usage: --source "htpx" is not a configured source; did you mean "httpx"?`},
		{[]string{"--source", "payments", "where is the retry?"},
			`ragbot ask: usage: --source "payments" is not a configured source (configured: httpx)`},
		{[]string{"--source", "HTT", "where is the retry?"}, // the only name containing it
			`ragbot ask: usage: --source "HTT" is not a configured source; did you mean "httpx"?`},
	}
	for _, tt := range tests {
		code, _, errOut := ragbot(t, append([]string{"ask", "--config", cfg}, tt.args...)...)
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if code != 2 || lines[len(lines)-1] != tt.want {
			t.Errorf("ask %q: exit %d, stderr:\n%s\nwant exit 2, last line:\n%s", tt.args, code, errOut, tt.want)
		}
	}
}

// TestAskNotIndexed: before `ragbot index` the scope holds no chunks, and
// ask says so instead of "no coverage"; --json has "snippets": []. After
// indexing, --explain says why an unrelated question is refused.
func TestAskNotIndexed(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "README.md": readme})
	cfg := writeConfig(t, repo)
	t.Cleanup(func() { dropCollection(t, cfg) })

	code, out, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry for 503 errors decided?")
	want := "Not indexed yet: httpx. Run `ragbot index --config " + cfg + "` first.\n"
	if code != 0 || out != want {
		t.Errorf("ask before index: exit %d, stdout:\n%s\nwant:\n%s\nstderr:\n%s", code, out, want, errOut)
	}
	code, out, errOut = ragbot(t, "ask", "--config", cfg, "where is the retry?", "--json") // a flag after the question counts
	if code != 0 || !strings.Contains(out, `"snippets": []`) || !strings.Contains(out, "Not indexed yet") ||
		!strings.Contains(out, `"coverage": "not_indexed"`) {
		t.Errorf("ask --json before index: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}

	if code, _, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	code, out, errOut = ragbot(t, "ask", "--config", cfg, "--explain", "how do we rotate the kafka TLS certificates?")
	if code != 0 || !strings.HasPrefix(out, "No coverage") || !strings.Contains(out, "why refused: exact name match false") ||
		!strings.Contains(out, "similarity") || !strings.Contains(out, "(answer ") || !strings.Contains(out, "floor ") {
		t.Errorf("ask --explain of an unrelated question: exit %d, stdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestAskNoWeaviateBinary: with no URL, nothing on the port and
// weaviate.binary missing, ask points at scripts/install-weaviate.sh.
func TestAskNoWeaviateBinary(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := "weaviate:\n  port: 1\n  binary: /nonexistent/weaviate-server\n  data_dir: " + t.TempDir() +
		"\nsources:\n  - name: httpx\n    kind: git\n    path: " + t.TempDir() + "\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := ragbot(t, "ask", "--config", cfg, "where is the retry?")
	if code != 1 || !strings.Contains(errOut, "install it with: bash scripts/install-weaviate.sh") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1 and the install script", code, errOut)
	}
}

// TestRenderTextNoCoverageNamesMissing: a refusal for a name no chunk
// contains says which name, instead of advising to name one.
func TestRenderTextNoCoverageNamesMissing(t *testing.T) {
	var out bytes.Buffer
	renderText(&out, retrieval.Answer{Question: "where is KafkaConsumer.Poll?", Coverage: retrieval.NoCoverage, Missing: "KafkaConsumer.Poll"}, 5, time.Now(), false)
	if got := out.String(); !strings.Contains(got, `Nothing indexed mentions "KafkaConsumer.Poll"`) || strings.Contains(got, "Try naming") {
		t.Errorf("renderText:\n%s", got)
	}
}

// TestRenderTextNoCoverageShowsWarnings: a refusal while part of the index is
// unavailable says so, since the missing part may hold the answer.
func TestRenderTextNoCoverageShowsWarnings(t *testing.T) {
	var out bytes.Buffer
	warn := "Part of the index is unavailable (1 of 3 Weaviate nodes down); results may be incomplete."
	renderText(&out, retrieval.Answer{Question: "where is UploadInvoice?", Coverage: retrieval.NoCoverage, Missing: "UploadInvoice",
		Warnings: []string{warn}}, 5, time.Now(), false)
	if got := out.String(); !strings.HasPrefix(got, "warning: "+warn+"\n") || !strings.Contains(got, "No coverage") {
		t.Errorf("renderText:\n%s", got)
	}
}
