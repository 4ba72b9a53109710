package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/confluence/confluencetest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

const secretYML = "db_password: zebra-quokka-hunter2\napi_key: quokka-zebra-key\n" // gitleaks:allow (fake)

// chunkCounts counts the stored chunks by "branch path" (source id in
// front when all is set), walking the collection.
func chunkCounts(t *testing.T, a *app) map[string]int {
	t.Helper()
	refs, err := a.store.ChunkRefs(t.Context(), func(weaviate.ChunkRef) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, r := range refs {
		out[r.Source+" "+r.Branch+" "+r.Path]++
	}
	return out
}

// openTestApp opens the app of cfg and drops its chunk, state and
// feedback collections at the end of the test.
func openTestApp(t *testing.T, cfg string) (*app, *weaviate.FeedbackLog) {
	t.Helper()
	a, err := openApp(t.Context(), commonFlags{config: cfg}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	votes, err := a.store.OpenFeedback(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = votes.Drop(context.Background())
		_ = a.store.Drop(context.Background())
	})
	return a, votes
}

func putVote(t *testing.T, votes *weaviate.FeedbackLog, user, ts string, at time.Time, shown ...retrieval.ShownCitation) {
	t.Helper()
	f := retrieval.Feedback{Question: "where is " + ts, Shown: shown, Vote: retrieval.VoteUp, User: user, Channel: "C1", MessageTS: ts, Time: at}
	if err := votes.Put(t.Context(), f); err != nil {
		t.Fatal(err)
	}
}

func voteCount(t *testing.T, votes *weaviate.FeedbackLog) int {
	t.Helper()
	n, err := votes.Count(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestForgetPathAcrossBranches indexes a repository whose two tracked
// branches both hold config/secrets/prod.yml, forgets it by glob, and
// checks Weaviate's counts before and after: none of its chunks is left on
// either branch, the other files keep theirs, a search for its text finds
// nothing, the vote citing it is gone, a second run deletes nothing, and
// the next index run does not bring it back until the file changes.
func TestForgetPathAcrossBranches(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo, "config/secrets/prod.yml": secretYML, "README.md": readme})
	runGit(t, repo, "checkout", "-q", "-b", "release-1.2")
	if err := os.WriteFile(filepath.Join(repo, "httpx/retry.go"), []byte(strings.Replace(retryGo, " || status == 429", "", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, repo, "commit", "-q", "-am", "release: no 429")
	runGit(t, repo, "checkout", "-q", "main")
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: httpx, kind: git, path: %s, branches: [main, release-1.2], exclude: [testdata]}\n",
		weaviatetest.URL(t), weaviatetest.ClassName(), repo)
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	a, votes := openTestApp(t, cfg)
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	const secret = "config/secrets/prod.yml"
	before := chunkCounts(t, a)
	for _, b := range []string{"main", "release-1.2"} {
		if before["repo:httpx "+b+" "+secret] == 0 || before["repo:httpx "+b+" httpx/retry.go"] == 0 {
			t.Fatalf("before forget, branch %s lacks chunks: %v", b, before)
		}
	}
	const question = "zebra-quokka-hunter2 db_password api_key"
	if ans := askJSON(t, "--config", cfg, question); len(ans.Snippets) == 0 || ans.Snippets[0].Path != secret {
		t.Fatalf("before forget, ask %q does not find %s: %+v", question, secret, ans.Snippets)
	}
	putVote(t, votes, "U1", "1.1", time.Now(), retrieval.ShownCitation{Source: "repo:httpx", Path: secret, StartLine: 1, EndLine: 2})
	putVote(t, votes, "U1", "1.2", time.Now(), retrieval.ShownCitation{Source: "repo:httpx", Path: "httpx/retry.go", StartLine: 10, EndLine: 14})

	code, out, errOut := ragbot(t, "forget", "--config", cfg, "--path", "config/secrets/*.yml", "--dry-run")
	if code != 0 || !strings.Contains(out, "would forget") || !strings.Contains(out, "dry run: nothing was deleted") {
		t.Fatalf("forget --dry-run: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := chunkCounts(t, a); len(got) != len(before) || voteCount(t, votes) != 2 {
		t.Fatalf("--dry-run deleted something: %v, %d votes", got, voteCount(t, votes))
	}

	code, out, errOut = ragbot(t, "forget", "--config", cfg, "--path", "config/secrets/*.yml", "--exclude")
	n := before["repo:httpx main "+secret] + before["repo:httpx release-1.2 "+secret]
	for _, want := range []string{
		fmt.Sprintf("repo:httpx  %s: %d chunks (main %d, release-1.2 %d)", secret, n, before["repo:httpx main "+secret], before["repo:httpx release-1.2 "+secret]),
		fmt.Sprintf("forgot %d chunks in 1 path of 1 source; 1 vote citing them", n),
		`add to httpx: sources[0].exclude: ["testdata", "config/secrets/*.yml"]`,
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("forget --path: exit %d, want the line %q in\n%s%s", code, want, out, errOut)
		}
	}
	after := chunkCounts(t, a)
	for k, v := range before {
		want := v
		if strings.HasSuffix(k, " "+secret) {
			want = 0
		}
		if after[k] != want {
			t.Errorf("after forget: %s has %d chunks, want %d", k, after[k], want)
		}
	}
	if got := voteCount(t, votes); got != 1 {
		t.Errorf("after forget: %d votes, want 1 (the one citing retry.go)", got)
	}
	for _, branch := range []string{"main", "release-1.2"} {
		ans := askJSON(t, "--config", cfg, "--branch", branch, question)
		for _, s := range ans.Snippets {
			if s.Path == secret {
				t.Errorf("ask on %s after forget still shows %s", branch, secret)
			}
		}
	}

	code, out, _ = ragbot(t, "forget", "--config", cfg, "--path", "config/secrets/*.yml")
	if code != 0 || !strings.Contains(out, "forgot 0 chunks in 0 paths of 0 sources; 0 votes citing them") {
		t.Errorf("second forget: exit %d, want 0 deleted:\n%s", code, out)
	}

	// An index run of unchanged branches skips them: the file stays forgotten.
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("index after forget: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := chunkCounts(t, a)["repo:httpx main "+secret]; got != 0 {
		t.Errorf("an up-to-date index run brought back %d chunks of %s", got, secret)
	}
	// A commit that changes it brings it back on that branch (forget -h says so).
	if err := os.WriteFile(filepath.Join(repo, secret), []byte(secretYML+"region: eu\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runGit(t, repo, "commit", "-q", "-am", "change the secret")
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 || !strings.Contains(out, "incremental") {
		t.Fatalf("index after a change: exit %d\n%s\n%s", code, out, errOut)
	}
	got := chunkCounts(t, a)
	if got["repo:httpx main "+secret] == 0 || got["repo:httpx release-1.2 "+secret] != 0 {
		t.Errorf("after a commit changing it on main: main %d, release-1.2 %d chunks of %s; want it back on main only",
			got["repo:httpx main "+secret], got["repo:httpx release-1.2 "+secret], secret)
	}
	// The line --exclude printed keeps it out: the changed settings make a full run, which deletes it.
	if err := os.WriteFile(cfg, []byte(strings.Replace(body, "exclude: [testdata]", `exclude: ["testdata", "config/secrets/*.yml"]`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut := ragbot(t, "index", "--config", cfg, "--full"); code != 0 {
		t.Fatalf("index with the exclude line: exit %d\n%s\n%s", code, out, errOut)
	}
	got = chunkCounts(t, a)
	for k, v := range before {
		if strings.HasSuffix(k, " "+secret) {
			if got[k] != 0 {
				t.Errorf("with the exclude line: %s has %d chunks, want 0", k, got[k])
			}
		} else if got[k] != v {
			t.Errorf("with the exclude line: %s has %d chunks, want %d", k, got[k], v)
		}
	}
}

// TestForgetSourceUserAndPrune indexes a git and a markdown source, then:
// forgets a user's votes; takes the markdown source out of the config
// (index reports its chunks, ask no longer finds them, --prune deletes
// them and its state); forgets the git source. Each step checks Weaviate's
// counts, and each is run twice to show that the second deletes nothing.
func TestForgetSourceUserAndPrune(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"httpx/retry.go": retryGo})
	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "runbook.md"), []byte("# Runbook\n\n## Failover\n\nPromote the walrus replica with the flamingo lever.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "ragbot.yaml")
	head := fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: httpx, kind: git, path: %s}\n", weaviatetest.URL(t), weaviatetest.ClassName(), repo)
	write := func(body string) {
		if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(head + fmt.Sprintf("  - {name: runbooks, kind: markdown, path: %s}\n", docs))
	a, votes := openTestApp(t, cfg)
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 || strings.Contains(out, "not configured") {
		t.Fatalf("index: exit %d\n%s\n%s", code, out, errOut)
	}
	count := func(source string) int {
		t.Helper()
		n, err := a.store.Count(t.Context(), source)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	gitN, docN := count("repo:httpx"), count("docs:runbooks")
	if gitN == 0 || docN == 0 {
		t.Fatalf("indexed %d git and %d doc chunks", gitN, docN)
	}

	// --user
	now := time.Now()
	putVote(t, votes, "U1", "1.1", now)
	putVote(t, votes, "U1", "1.2", now)
	putVote(t, votes, "U2", "1.3", now)
	for i, want := range []string{"forgot 2 votes of user U1", "forgot 0 votes of user U1"} {
		code, out, errOut := ragbot(t, "forget", "--config", cfg, "--user", "U1")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("forget --user, run %d: exit %d, want %q in\n%s%s", i+1, code, want, out, errOut)
		}
		if got := voteCount(t, votes); got != 1 {
			t.Errorf("after forget --user, run %d: %d votes, want 1 (U2's)", i+1, got)
		}
	}
	// --user with a Teams user's from.aadObjectId: their questions
	// remembered in Teams channel threads go, another user's stay.
	turns, err := a.store.OpenTurns(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = turns.Drop(context.Background()) })
	const thread = "19:c@thread.tacv2;messageid=1"
	for i, users := range [][]string{{"29:ann", "aad-ann"}, {"29:ann", "aad-ann"}, {"29:bob", "aad-bob"}} {
		turn := retrieval.Turn{Thread: thread, MessageID: fmt.Sprint(i), Users: users, Asked: "where is the retry?", Time: now.Add(time.Duration(i) * time.Second)}
		if err := turns.Put(t.Context(), turn); err != nil {
			t.Fatal(err)
		}
	}
	for i, want := range []string{"forgot 2 remembered questions of user aad-ann in Teams threads", "forgot 0 remembered questions of user aad-ann"} {
		code, out, errOut := ragbot(t, "forget", "--config", cfg, "--user", "aad-ann")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("forget --user aad-ann, run %d: exit %d, want %q in\n%s%s", i+1, code, want, out, errOut)
		}
		if left, err := turns.Earlier(t.Context(), thread); err != nil || len(left) != 1 || left[0].MessageID != "2" {
			t.Errorf("after forget --user aad-ann, run %d: turns %+v (%v), want bob's alone", i+1, left, err)
		}
	}

	// A source taken out of the config: reported, not searched, pruned.
	write(head)
	code, out, errOut := ragbot(t, "index", "--config", cfg)
	want := fmt.Sprintf("source runbooks: %d chunks, not configured; `ragbot forget --source runbooks` or `ragbot index --prune` deletes them", docN)
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("index without the source: exit %d, want %q in\n%s%s", code, want, out, errOut)
	}
	if got := count("docs:runbooks"); got != docN {
		t.Errorf("index without --prune left %d of %d chunks", got, docN)
	}
	if ans := askJSON(t, "--config", cfg, "promote the walrus replica flamingo lever"); len(ans.Snippets) > 0 {
		for _, s := range ans.Snippets {
			if s.Source == "docs:runbooks" {
				t.Errorf("ask found %s of the unconfigured source", s.Path)
			}
		}
	}
	// With only a source never indexed configured, ask says so, though the index holds other sources.
	write(fmt.Sprintf("weaviate: {url: %s, collection: %s}\nsources:\n  - {name: fresh, kind: markdown, path: %s}\n",
		weaviatetest.URL(t), a.store.ChunkClass(), t.TempDir()))
	if ans := askJSON(t, "--config", cfg, "promote the walrus replica flamingo lever"); ans.Coverage != retrieval.NotIndexed {
		t.Errorf("ask with only an unindexed source configured: coverage %s, want %s", ans.Coverage, retrieval.NotIndexed)
	}
	write(head)
	code, out, errOut = ragbot(t, "index", "--config", cfg, "--prune")
	if want := fmt.Sprintf("source runbooks: pruned %d chunks and its index state", docN); code != 0 || !strings.Contains(out, want) {
		t.Errorf("index --prune: exit %d, want %q in\n%s%s", code, want, out, errOut)
	}
	if st, ok, err := a.store.State(t.Context(), "docs:runbooks", ""); err != nil || ok {
		t.Errorf("after --prune the state is still there: %+v %v %v", st, ok, err)
	}
	if got, gotGit := count("docs:runbooks"), count("repo:httpx"); got != 0 || gotGit != gitN {
		t.Errorf("after --prune: %d doc chunks (want 0), %d git chunks (want %d)", got, gotGit, gitN)
	}
	if code, out, _ := ragbot(t, "index", "--config", cfg, "--prune"); code != 0 || strings.Contains(out, "runbooks") {
		t.Errorf("second index --prune: exit %d, want no line about runbooks:\n%s", code, out)
	}

	// --source of a configured source.
	for i, want := range []string{fmt.Sprintf("forgot %d chunks of 1 source", gitN), "forgot 0 chunks of 1 source"} {
		code, out, errOut := ragbot(t, "forget", "--config", cfg, "--source", "httpx")
		if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "still in sources[0]") {
			t.Errorf("forget --source, run %d: exit %d, want %q in\n%s%s", i+1, code, want, out, errOut)
		}
		if got := count("repo:httpx"); got != 0 {
			t.Errorf("after forget --source, run %d: %d chunks left", i+1, got)
		}
		if st, ok, err := a.store.State(t.Context(), "repo:httpx", "main"); err != nil || ok {
			t.Errorf("after forget --source the state is still there: %+v %v %v", st, ok, err)
		}
	}
}

// TestForgetHelp: forget -h explains what comes back and prints the flags.
func TestForgetHelp(t *testing.T) {
	code, out, errOut := ragbot(t, "forget", "-h")
	for _, want := range []string{"ragbot forget deletes chunks", "comes back", "-path glob", "-dry-run", "-user id"} {
		if code != 0 || !strings.Contains(out+errOut, want) {
			t.Errorf("forget -h: exit %d, lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
	if code, out, _ := ragbot(t, "help"); code != 0 || !strings.Contains(out, "forget ") {
		t.Errorf("ragbot help does not list forget:\n%s", out)
	}
}

// TestForgetUsage: the usage errors are caught before Weaviate is contacted.
func TestForgetUsage(t *testing.T) {
	cfg := writeConfig(t, t.TempDir())
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, "forget needs --source, --path, --page or --user"},
		{[]string{"--branch", "main", "--path", "a"}, "--branch needs --source"},
		{[]string{"--path", "a/[b"}, `--path "a/[b" is not a valid glob`},
		{[]string{"--user", "U1", "--exclude"}, "--exclude prints the exclude line of --path globs"},
		{[]string{"secrets.yml"}, "forget takes no arguments"},
	} {
		code, _, errOut := ragbot(t, append([]string{"forget", "--config", cfg}, tt.args...)...)
		if code != 2 || !strings.Contains(errOut, tt.want) {
			t.Errorf("forget %q: exit %d, want 2 and %q:\n%s", tt.args, code, tt.want, errOut)
		}
	}
}

// TestForgetConfluencePage indexes a Data Center space from the local fake
// Confluence (its links name titles, not page ids) and forgets one page by
// id, then another by path: only their chunks go, the vote citing the first
// goes with it, and a repeat deletes nothing.
func TestForgetConfluencePage(t *testing.T) {
	srv := confluencetest.New(t, confluencetest.DataCenter, confluencetest.Space{ID: "98306", Key: "OPS", Name: "Operations"})
	pages, err := confluencetest.LoadPages("../../testdata/confluence")
	if err != nil {
		t.Fatal(err)
	}
	srv.Put(pages...)
	t.Setenv("RAGBOT_CONFLUENCE_TOKEN", confluencetest.Token)
	cfg := writeConfluenceConfig(t, srv.BaseURL())
	a, votes := openTestApp(t, cfg)
	if code, out, errOut := ragbot(t, "index", "--config", cfg); code != 0 {
		t.Fatalf("index: exit %d\n%s%s", code, out, errOut)
	}
	before := chunkCounts(t, a)
	const failover, deploy = "confluence:ops-runbooks  OPS/Database failover", "confluence:ops-runbooks  OPS/Deploy runbook"
	if before[failover] == 0 || before[deploy] == 0 { // chunkCounts keys are "source branch path", branch ""
		t.Fatalf("indexed %v", before)
	}
	putVote(t, votes, "U1", "1.1", time.Now(), retrieval.ShownCitation{Source: "confluence:ops-runbooks", Path: "OPS/Database failover", StartLine: 1, EndLine: 9})

	for i, want := range []string{fmt.Sprintf("forgot %d chunks in 1 path of 1 source; 1 vote citing them", before[failover]), "forgot 0 chunks in 0 paths"} {
		code, out, errOut := ragbot(t, "forget", "--config", cfg, "--page", "98392")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("forget --page 98392, run %d: exit %d, want %q in\n%s%s", i+1, code, want, out, errOut)
		}
	}
	if code, out, errOut := ragbot(t, "forget", "--config", cfg, "--page", "OPS/Deploy runbook"); code != 0 || !strings.Contains(out, fmt.Sprintf("forgot %d chunks in 1 path", before[deploy])) {
		t.Errorf("forget --page by path: exit %d\n%s%s", code, out, errOut)
	}
	after := chunkCounts(t, a)
	for k, v := range before {
		want := v
		if k == failover || k == deploy {
			want = 0
		}
		if after[k] != want {
			t.Errorf("after forget --page: %s has %d chunks, want %d", k, after[k], want)
		}
	}
	if got := voteCount(t, votes); got != 0 {
		t.Errorf("after forget --page: %d votes, want 0", got)
	}
}
