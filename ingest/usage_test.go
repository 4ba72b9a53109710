package ingest_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// The files of the usage test repository. Line numbers in the wants below
// are counted in these texts.
const (
	usageStore = "package svc\n\n// Store holds orders.\ntype Store struct{}\n\n// newStore makes a Store.\nfunc newStore() *Store {\n\treturn &Store{}\n}\n"
	// open calls newStore on line 5; token reads RAGBOT_TOKEN on line 10.
	usageOpen = "package svc\n\nimport \"os\"\n\nfunc open() *Store { return newStore() }\n\n// token is the API token; newStore does not need it.\nfunc token() string {\n\t// RAGBOT_TOKEN is set by scripts/dev.sh.\n\treturn os.Getenv(\"RAGBOT_TOKEN\")\n}\n"
	// After the edit open no longer calls newStore; reopen (line 3 of
	// reopen.go) and a test (line 6 of open_test.go) do.
	usageOpenEdited = "package svc\n\nimport \"os\"\n\nfunc open() *Store { return &Store{} }\n\n// token is the API token; newStore does not need it.\nfunc token() string {\n\t// RAGBOT_TOKEN is set by scripts/dev.sh.\n\treturn os.Getenv(\"RAGBOT_TOKEN\")\n}\n"
	usageReopen     = "package svc\n\nfunc reopen() *Store { return newStore() }\n"
	usageTest       = "package svc\n\nimport \"testing\"\n\nfunc TestStore(t *testing.T) {\n\tif newStore() == nil {\n\t\tt.Fatal(\"nil\")\n\t}\n}\n"
	// A script that only sets the variable, with more mentions of it than
	// the code that reads it.
	usageScript = "#!/bin/sh\nexport RAGBOT_TOKEN=dev\necho \"RAGBOT_TOKEN=$RAGBOT_TOKEN\"\nRAGBOT_TOKEN=dev go run .\n"
)

// TestUsageAnswerFollowsPush indexes a git repository in a real Weaviate,
// asks who calls a function (as typed, and in lower case) and where an
// environment variable is read, then edits the callers, commits, runs the
// incremental index and checks that the usage answer follows.
func TestUsageAnswerFollowsPush(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir, LinkTemplate: linkTemplate}
	asker := usageAsker(store, emb)
	index := func(run int, want string) {
		t.Helper()
		st, err := newIndexer(t, store, emb, t0.Add(time.Duration(100+run)*time.Hour)).IndexGit(ctx, src, false)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode != want {
			t.Fatalf("index run %d: mode %q, want %q", run, st.Mode, want)
		}
	}
	check := func(q string, wantDefs, wantUses []string) {
		t.Helper()
		_, defs, uses := askUsage(t, asker, q)
		if diff := cmp.Diff(wantDefs, defs); diff != "" {
			t.Errorf("%q: definitions (-want +got):\n%s", q, diff)
		}
		if diff := cmp.Diff(wantUses, uses); diff != "" {
			t.Errorf("%q: uses (-want +got):\n%s", q, diff)
		}
	}

	repo.write(t, map[string]string{"svc/store.go": usageStore, "svc/open.go": usageOpen, "scripts/dev.sh": usageScript})
	repo.commit(t, "add svc")
	index(1, ingest.ModeFull)
	// newStore is declared on line 7 under its doc comment (line 6); the
	// comment in open.go that names it is no use.
	def := []string{"svc/store.go:6 newStore"}
	check("who calls newStore?", def, []string{"svc/open.go:5 open"})
	check("who calls newstore", def, []string{"svc/open.go:5 open"})
	// The reading line first, then the script's two assignments (lines 2
	// and 4: a shell script sets it), then its mention (line 3); the
	// comment on line 9 of open.go is no read.
	check("where is RAGBOT_TOKEN read?", nil, []string{"svc/open.go:10 token",
		"scripts/dev.sh:2 ", "scripts/dev.sh:4 ", "scripts/dev.sh:3 "})

	repo.write(t, map[string]string{"svc/open.go": usageOpenEdited, "svc/reopen.go": usageReopen, "svc/open_test.go": usageTest})
	repo.commit(t, "move the newStore call")
	index(2, ingest.ModeIncremental)
	// Code before tests.
	check("where is newStore used", def, []string{"svc/reopen.go:3 reopen", "svc/open_test.go:6 TestStore"})
}

// askUsage asks q in repo:svc and returns the usage answer with its
// definitions' and its sites' "path:line symbol".
func askUsage(t *testing.T, asker *retrieval.Asker, q string) (ans retrieval.Answer, defs, uses []string) {
	t.Helper()
	ans, err := asker.Ask(context.Background(), retrieval.Request{Question: q, Sources: []string{"repo:svc"}})
	if err != nil {
		t.Fatal(err)
	}
	if ans.Usage == nil {
		t.Fatalf("%q: not answered as a usage question: %+v", q, ans)
	}
	for i, s := range ans.Snippets {
		row := fmt.Sprintf("%s:%d %s", s.Path, s.StartLine, s.Symbol)
		if i < ans.Usage.Definitions {
			defs = append(defs, row)
		} else {
			uses = append(uses, row)
		}
	}
	return ans, defs, uses
}

// TestUsageCase indexes a git repository defining NewStore and newStore
// (two functions) and only OpenDB, in a real Weaviate, and checks that a
// name typed with capitals answers for the definition of its case, or says
// which case it shows when none has it; that one typed in lower case
// answers for every case; and that a name nothing indexed holds gets the
// absence check's answer naming it.
func TestUsageCase(t *testing.T) {
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir, LinkTemplate: linkTemplate}
	asker := usageAsker(store, emb)
	asker.Vocabularies = retrieval.OnlySourcesVocabulary(store, []string{"repo:svc"})
	repo.write(t, map[string]string{
		"svc/store.go":   "package svc\n\ntype Store struct{}\n\nfunc NewStore() *Store { return &Store{} }\n\nfunc OpenDB() *Store { return NewStore() }\n",
		"cache/cache.go": "package cache\n\ntype store struct{}\n\nfunc newStore() *store { return &store{} }\n\nfunc warm() *store { return newStore() }\n",
		"cmd/main.go":    "package main\n\nimport \"example.com/svc\"\n\nfunc main() { _ = svc.OpenDB(); _ = svc.NewStore() }\n",
	})
	repo.commit(t, "add svc and cache")
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(context.Background(), src, false); err != nil {
		t.Fatal(err)
	}
	check := func(q, wantTitle string, wantDefs, wantUses []string) {
		t.Helper()
		ans, defs, uses := askUsage(t, asker, q)
		if got := ans.Usage.Title(); got != wantTitle {
			t.Errorf("%q: title %q, want %q", q, got, wantTitle)
		}
		sort.Strings(defs)
		sort.Strings(uses)
		if diff := cmp.Diff(wantDefs, defs); diff != "" {
			t.Errorf("%q: definitions (-want +got):\n%s", q, diff)
		}
		if diff := cmp.Diff(wantUses, uses); diff != "" {
			t.Errorf("%q: uses (-want +got):\n%s", q, diff)
		}
	}
	check("who calls NewStore?", "NewStore is used in 2 places in 2 files",
		[]string{"svc/store.go:5 NewStore"}, []string{"cmd/main.go:5 main", "svc/store.go:7 OpenDB"})
	check("who calls newStore", "newStore is used in 1 place",
		[]string{"cache/cache.go:5 newStore"}, []string{"cache/cache.go:7 warm"})
	check("who calls newstore", "newstore is used in 3 places in 3 files; 2 definitions: uses are grouped under the definition in the same file or folder, the others last",
		[]string{"cache/cache.go:5 newStore", "svc/store.go:5 NewStore"}, []string{"cache/cache.go:7 warm", "cmd/main.go:5 main", "svc/store.go:7 OpenDB"})
	check("callers of openDB", "no openDB; showing OpenDB: OpenDB is used in 1 place",
		[]string{"svc/store.go:7 OpenDB"}, []string{"cmd/main.go:5 main"})
	check("callers of opendb?", "opendb is used in 1 place",
		[]string{"svc/store.go:7 OpenDB"}, []string{"cmd/main.go:5 main"})

	for _, q := range []string{"who calls Zorblax", "who calls zorblax?", "callers of zorblax"} {
		ans, err := asker.Ask(context.Background(), retrieval.Request{Question: q, Sources: []string{"repo:svc"}})
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.Fields(strings.TrimRight(q, "?"))[2]; ans.Coverage != retrieval.NoCoverage || ans.Missing != want {
			t.Errorf("%q: coverage %v, missing %q; want no coverage, missing %q", q, ans.Coverage, ans.Missing, want)
		}
	}
}

// TestUsageMethod: a method asked about with its type is listed where it
// is called through a selector, not where its bare name is another type,
// a parameter's type or a string; in any case.
func TestUsageMethod(t *testing.T) {
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:svc", Dir: repo.dir, LinkTemplate: linkTemplate}
	asker := usageAsker(store, emb)
	repo.write(t, map[string]string{
		"svc/redact.go": "package svc\n\n// Chunk is a piece of a file.\ntype Chunk struct{ Text string }\n\n// Redactor hides secrets.\ntype Redactor struct{}\n\n" +
			"func (r *Redactor) Chunk(c *Chunk) int { return len(c.Text) }\n\nconst collection = \"Chunk\"\n",
		"svc/index.go": "package svc\n\nfunc index(r *Redactor, cs []Chunk) (n int) {\n\tfor i := range cs {\n\t\tn += r.Chunk(&cs[i])\n\t}\n\treturn n\n}\n",
	})
	repo.commit(t, "add svc")
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(context.Background(), src, false); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"who calls Redactor.Chunk", "callers of redactor.chunk", "who calls (*Redactor).Chunk?"} {
		_, defs, uses := askUsage(t, asker, q)
		if diff := cmp.Diff([]string{"svc/redact.go:9 Redactor.Chunk"}, defs); diff != "" {
			t.Errorf("%q: definitions (-want +got):\n%s", q, diff)
		}
		if diff := cmp.Diff([]string{"svc/index.go:5 index"}, uses); diff != "" {
			t.Errorf("%q: uses (-want +got):\n%s", q, diff)
		}
	}
}

// TestUsageSplitSymbolLines indexes testdata/code/envconfig.go, whose Load
// reads 40 environment variables over four 60-line windows, two of which
// start or end with a blank line, in a real Weaviate, and asks where each
// variable is read, as typed and in lower case: every answer cites the
// line of Load that reads it and the line after it that stores the value
// under the name, if any (found in the file by the test, not by ragbot),
// and the first one's code is the reading line.
func TestUsageSplitSymbolLines(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "testdata", "code", "envconfig.go"))
	if err != nil {
		t.Fatal(err)
	}
	repo := newRepo(t)
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	asker := usageAsker(store, emb)
	repo.write(t, map[string]string{"svc/envconfig.go": string(src)})
	repo.commit(t, "add config")
	gitSrc := ingest.GitSource{ID: "repo:svc", Dir: repo.dir, LinkTemplate: linkTemplate}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(context.Background(), gitSrc, false); err != nil {
		t.Fatal(err)
	}
	read := regexp.MustCompile(`os\.(?:Getenv|LookupEnv)\("([A-Z0-9_]+)"\)`)
	lines := strings.Split(string(src), "\n")
	reads := 0
	for i, l := range lines {
		m := read.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		reads++
		var want []string // the reading line, and the one that stores what LookupEnv read under the name
		for k := i; k < len(lines) && strings.Contains(lines[k], `"`+m[1]+`"`); k++ {
			want = append(want, fmt.Sprintf("svc/envconfig.go:%d Load", k+1))
		}
		for _, q := range []string{"where is " + m[1] + " read?", "where is " + strings.ToLower(m[1]) + " read"} {
			ans, defs, uses := askUsage(t, asker, q)
			if len(defs) != 0 {
				t.Errorf("%q: definitions %v, want none", q, defs)
			}
			if diff := cmp.Diff(want, uses); diff != "" {
				t.Errorf("%q: sites (-want +got):\n%s", q, diff)
				continue
			}
			if got := ans.Snippets[0].Text; got != strings.TrimSpace(l) {
				t.Errorf("%q: the site at line %d shows %q, want %q", q, i+1, got, strings.TrimSpace(l))
			}
		}
	}
	if reads != 40 {
		t.Fatalf("envconfig.go reads %d variables, want 40", reads)
	}
}

// readersFirstFiles are the repositories of TestUsageReadersBeforeSetters,
// one per language: each names one environment variable, and each line
// that reads it ends in the comment R, each one that sets it or passes it
// to another process in S (marks written by hand from the languages' docs,
// see retrieval's siteClass). The setters' paths sort before the readers'
// (bench/ before internal/ and src/), as a benchmark script did in the
// field.
var readersFirstFiles = map[string]struct {
	name  string
	files map[string]string
}{
	"go": {"APP_TOKEN", map[string]string{
		"bench/main.go": "package main\n\nimport (\n\t\"os\"\n\t\"os/exec\"\n)\n\nfunc run() error {\n\tos.Setenv(\"APP_TOKEN\", \"bench\") //S\n" +
			"\tcmd := exec.Command(\"svc\")\n\tcmd.Env = append(os.Environ(), \"APP_TOKEN=bench\", \"APP_TOKEN_FILE=\") //S\n\treturn cmd.Run()\n}\n",
		"internal/auth/token.go": "package auth\n\nimport \"os\"\n\n// Token is the API token.\nfunc Token() (string, bool) {\n\tif t := os.Getenv(\"APP_TOKEN\"); t != \"\" { //R\n" +
			"\t\treturn t, true\n\t}\n\treturn os.LookupEnv(\"APP_TOKEN\") //R\n}\n",
		"internal/auth/token_test.go": "package auth\n\nimport \"testing\"\n\nfunc TestToken(t *testing.T) {\n\tt.Setenv(\"APP_TOKEN\", \"x\") //S\n" +
			"\tif got, _ := Token(); got != \"x\" {\n\t\tt.Fatal(got)\n\t}\n}\n",
		"docker-compose.yml": "services:\n  svc:\n    environment:\n      APP_TOKEN: dev\n",
		"docs/setup.md":      "# Setup\n\nSet APP_TOKEN before you start the service.\n",
	}},
	"python": {"APP_URL", map[string]string{
		"bench/run.py": "import os\nimport subprocess\n\n\ndef run(cmd):\n    subprocess.run(cmd, env={\"APP_URL\": \"http://bench\", \"HOME\": \"/tmp\"})  #S\n" +
			"    os.environ[\"APP_URL\"] = \"http://other\"  #S\n    env = dict(os.environ, APP_URL=\"http://third\")  #S\n    return env\n",
		"src/app/settings.py": "import os\n\n\ndef url():\n    \"\"\"The service URL.\"\"\"\n    if \"APP_URL\" in os.environ:  #R\n        return os.environ[\"APP_URL\"]  #R\n" +
			"    return os.environ.get(\"APP_URL\", os.getenv(\"APP_URL_DEFAULT\", \"\"))  #R\n\n\ndef fallback():\n    return os.getenv(\"APP_URL\")  #R\n",
		"scripts/dev.sh": "#!/bin/sh\nexport APP_URL=http://localhost:8080\necho \"using $APP_URL\"\n",
	}},
	"javascript": {"APP_PORT", map[string]string{
		"bench/run.js": "const { spawn } = require(\"child_process\");\n\nfunction run() {\n  process.env.APP_PORT = \"9000\"; //S\n" +
			"  return spawn(\"node\", [\"src/server.js\"], { env: { ...process.env, APP_PORT: \"9001\" } }); //S\n}\n\nmodule.exports = { run };\n",
		"src/server.js": "function port() {\n  const { APP_PORT } = process.env; //R\n  return Number(APP_PORT || process.env[\"APP_PORT\"] || 3000); //R\n}\n\n" +
			"function listen(app) {\n  return app.listen(process.env.APP_PORT); //R\n}\n\nmodule.exports = { port, listen };\n",
		"README.md": "# svc\n\nListens on APP_PORT (3000 when unset).\n",
	}},
}

// TestUsageReadersBeforeSetters indexes one repository per language in a
// real Weaviate and asks where its variable is read, as typed and in lower
// case, and where it is used, in lower case: every marked line is a site,
// no setter comes before a reader, the first site is a reader in code, the
// files that only mention it come last, the title counts the setters and
// mentions, and the lower-case questions get the same answer and title.
func TestUsageReadersBeforeSetters(t *testing.T) {
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	asker := usageAsker(store, emb)
	for lang, fx := range readersFirstFiles {
		t.Run(lang, func(t *testing.T) {
			repo := newRepo(t)
			repo.write(t, fx.files)
			repo.commit(t, "add "+lang)
			source := "repo:" + lang
			if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(context.Background(), ingest.GitSource{ID: source, Dir: repo.dir}, false); err != nil {
				t.Fatal(err)
			}
			marks := map[string]string{} // "path:line" -> "R" or "S"
			mentionFiles := map[string]bool{}
			for p, body := range fx.files {
				if strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".yml") {
					mentionFiles[p] = true
				}
				for i, l := range strings.Split(body, "\n") {
					if m := regexp.MustCompile(`(?://|#)([RS])$`).FindStringSubmatch(l); m != nil {
						marks[fmt.Sprintf("%s:%d", p, i+1)] = m[1]
					}
				}
			}
			var first []string
			for _, q := range []string{"where is " + fx.name + " read?", "where is " + strings.ToLower(fx.name) + " read", "where is " + strings.ToLower(fx.name) + " used"} {
				ans, err := asker.Ask(context.Background(), retrieval.Request{Question: q, Sources: []string{source}})
				if err != nil {
					t.Fatal(err)
				}
				if ans.Usage == nil {
					t.Fatalf("%q: not answered as a usage question", q)
				}
				var order []string
				seen := map[string]bool{}
				lastRead, firstSet, firstMention, sets, mentions := -1, -1, -1, 0, 0
				for i, s := range ans.Snippets[ans.Usage.Definitions:] {
					at := fmt.Sprintf("%s:%d", s.Path, s.StartLine)
					order = append(order, at+" "+s.Text)
					seen[at] = true
					switch {
					case marks[at] == "R":
						lastRead = i
					case marks[at] == "S":
						sets++
						if firstSet < 0 {
							firstSet = i
						}
					case mentionFiles[s.Path]:
						mentions++
						if firstMention < 0 {
							firstMention = i
						}
					}
				}
				t.Logf("%q: %s\n%s", q, ans.Usage.Title(), strings.Join(order, "\n"))
				for at := range marks {
					if !seen[at] {
						t.Errorf("%q: %s (%s) is not listed:\n%s", q, at, marks[at], strings.Join(order, "\n"))
					}
				}
				if at := strings.Fields(order[0])[0]; marks[at] != "R" || strings.Contains(at, "_test.") {
					t.Errorf("%q: the first site is %s, want a reader in code:\n%s", q, order[0], strings.Join(order, "\n"))
				}
				if firstSet >= 0 && firstSet < lastRead {
					t.Errorf("%q: a setter (site %d) comes before a reader (site %d):\n%s", q, firstSet+1, lastRead+1, strings.Join(order, "\n"))
				}
				if firstMention >= 0 && (firstMention < lastRead || firstMention < firstSet+sets-1) {
					t.Errorf("%q: a mention (site %d) comes before code that reads or sets it:\n%s", q, firstMention+1, strings.Join(order, "\n"))
				}
				if ans.Usage.Sets < sets || ans.Usage.Mentions < mentions {
					t.Errorf("%q: usage counts %d sets, %d mentions; the marked lines and mention files alone are %d and %d", q, ans.Usage.Sets, ans.Usage.Mentions, sets, mentions)
				}
				if title := ans.Usage.Title(); !strings.Contains(title, fmt.Sprintf("; code that reads it first, then %d places that set it", ans.Usage.Sets)) {
					t.Errorf("%q: title %q does not say readers come first, then %d setters", q, title, ans.Usage.Sets)
				}
				if order = append([]string{ans.Usage.Title()}, order...); first == nil {
					first = order
				} else if diff := cmp.Diff(first, order); diff != "" {
					t.Errorf("%q: sites differ from the question as typed (-typed +lower case):\n%s", q, diff)
				}
			}
		})
	}
}

// usageAsker is the asker the usage tests share: hybrid at alpha 0.5, 5
// snippets from 30 candidates, the default thresholds.
func usageAsker(store retrieval.Searcher, emb retrieval.Embedder) *retrieval.Asker {
	return &retrieval.Asker{Store: store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 30, Thresholds: retrieval.DefaultThresholds()}
}
