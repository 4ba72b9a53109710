package ingest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// answerOf makes an answer of the stored chunks named "path:symbol", in order.
func answerOf(t *testing.T, store *weaviate.Store, source string, names ...string) retrieval.Answer {
	t.Helper()
	byName := map[string]retrieval.Chunk{}
	for _, c := range storedChunks(t, store, source) {
		byName[c.Path+":"+c.Symbol] = c.Chunk
	}
	ans := retrieval.Answer{Question: "where?", Coverage: retrieval.Covered}
	for _, n := range names {
		c, ok := byName[n]
		if !ok {
			t.Fatalf("no stored chunk %s", n)
		}
		ans.Snippets = append(ans.Snippets, retrieval.NewSnippet(c))
	}
	return ans
}

func TestStaleCodeGuard(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	repo.write(t, map[string]string{"shop/store.go": storeGo, "retry.py": retryPy, "README.md": readmeMd})
	indexed := repo.commit(t, "shop")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir, LinkTemplate: linkTemplate}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	repos := ingest.StaleRepos{Sources: map[string]ingest.GitSource{src.ID: src}}
	names := []string{"shop/store.go:Store.Get", "shop/store.go:Store.Put", "shop/store.go:helper", "retry.py:backoff", "README.md:Shop > Usage"}
	before := answerOf(t, store, src.ID, names...)

	// Not reindexed yet: Store.Get gets a longer body (Store.Put moves down
	// one line, unchanged), helper goes, retry.py is deleted.
	newGet := "// Get returns the order with id.\nfunc (s *Store) Get(id string) int {\n\tn := s.orders[id]\n\treturn n\n}"
	edited := strings.Replace(storeGo, "// Get returns the order with id.\nfunc (s *Store) Get(id string) int {\n\treturn s.orders[id]\n}", newGet, 1)
	edited = strings.Replace(edited, "\nfunc helper() int {\n\treturn 1\n}\n", "", 1)
	repo.author = "Dora Dev"
	repo.write(t, map[string]string{"shop/store.go": edited})
	repo.git(t, "rm", "-q", "retry.py")
	head := repo.commit(t, "get reads first; helper and retry.py go")

	ans := before
	ans.Snippets = append([]retrieval.Snippet(nil), before.Snippets...)
	if err := (ingest.StaleCode{Repos: repos}).Guard(ctx, retrieval.Request{}, &ans); err != nil {
		t.Fatalf("StaleCode.Guard: %v", err)
	}
	type shown struct {
		Path       string
		Start, End int
		Commit     string
		Author     string
		Text       string
		Stale      string // a substring of Snippet.Stale; "" for none
	}
	want := []shown{
		{"shop/store.go", 8, 12, head, "Dora Dev", newGet,
			fmt.Sprintf("changed since indexed at %s: showing the current lines at %s, not yet indexed", indexed[:7], head[:7])},
		{"shop/store.go", 13, 16, indexed, authorName, before.Snippets[1].Text, ""},
		{"shop/store.go", 18, 20, indexed, authorName, before.Snippets[2].Text,
			fmt.Sprintf("changed since indexed at %s: helper is no longer in shop/store.go at %s", indexed[:7], head[:7])},
		{"retry.py", 4, 6, indexed, authorName, before.Snippets[3].Text,
			"retry.py is no longer on main at " + head[:7] + " (deleted or renamed)"},
		{"README.md", 9, 11, indexed, authorName, before.Snippets[4].Text, ""},
	}
	var got []shown
	for i, s := range ans.Snippets {
		g := shown{s.Path, s.StartLine, s.EndLine, s.CommitSHA, s.Author, s.Text, ""}
		if w := want[i].Stale; w != "" && strings.Contains(s.Stale, w) {
			g.Stale = w
		} else {
			g.Stale = s.Stale
		}
		got = append(got, g)
		if wantURL := fmt.Sprintf("https://git.example.com/shop/blob/%s/%s#L%d-L%d", s.CommitSHA, s.Path, s.StartLine, s.EndLine); s.URL != wantURL {
			t.Errorf("%s: url %s, want %s", names[i], s.URL, wantURL)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("guarded snippets (-want +got):\n%s", diff)
	}

	// After the reindex nothing is stale.
	if _, err := newIndexer(t, store, emb, t0.Add(101*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	fresh := answerOf(t, store, src.ID, "shop/store.go:Store.Get", "shop/store.go:Store.Put", "README.md:Shop > Usage")
	if err := (ingest.StaleCode{Repos: repos}).Guard(ctx, retrieval.Request{}, &fresh); err != nil {
		t.Fatal(err)
	}
	for _, s := range fresh.Snippets {
		if s.Stale != "" {
			t.Errorf("%s %s after the reindex: stale %q, want none", s.Path, s.Symbol, s.Stale)
		}
	}
	if fresh.Snippets[0].Text != newGet {
		t.Errorf("Store.Get after the reindex: %q, want %q", fresh.Snippets[0].Text, newGet)
	}

	// A snippet that cannot be checked is not shown as fresh.
	odd := retrieval.Answer{Snippets: []retrieval.Snippet{
		{Citation: retrieval.Citation{Source: "repo:gone", Path: "a.go", CommitSHA: indexed, Branch: "main"}},
		{Citation: retrieval.Citation{Source: src.ID, Path: "shop/store.go", CommitSHA: indexed, Branch: "no-such-branch"}},
		{Citation: retrieval.Citation{Source: "docs:handbook", Path: "guide.md"}}, // not from git: not checked here
		// A markdown folder's file cited at its work tree's HEAD: a commit,
		// no branch; the folder is read from disk again, so not checked here.
		{Citation: retrieval.Citation{Source: "docs:handbook", Path: "docs/README.md", CommitSHA: indexed}},
	}}
	err := (ingest.StaleCode{Repos: repos}).Guard(ctx, retrieval.Request{}, &odd)
	if odd.Snippets[0].Stale == "" || odd.Snippets[1].Stale == "" || odd.Snippets[2].Stale != "" || odd.Snippets[3].Stale != "" {
		t.Errorf("stale marks %q, want the two git snippets marked and the docs left alone",
			[]string{odd.Snippets[0].Stale, odd.Snippets[1].Stale, odd.Snippets[2].Stale, odd.Snippets[3].Stale})
	}
	if err == nil || !strings.Contains(err.Error(), "no-such-branch") {
		t.Errorf("StaleCode.Guard error %v, want one naming the missing branch", err)
	}
}

// TestStaleCodeGuardFocused: a snippet focused on what the question matched
// (retrieval.FocusSnippet) is left alone when its symbol only moved, and
// when its lines changed shows the current lines focused the same way.
func TestStaleCodeGuardFocused(t *testing.T) {
	ctx := context.Background()
	var body strings.Builder
	body.WriteString("package shop\n\n// Settle settles the day.\nfunc Settle(day int) error {\n")
	for l := 5; l < 84; l++ {
		if l == 75 {
			body.WriteString("\treturn fmt.Errorf(\"ledger closed for %d\", day)\n")
			continue
		}
		fmt.Fprintf(&body, "\tstep%d(day)\n", l)
	}
	body.WriteString("}\n")
	settle := body.String()
	repo := newRepo(t)
	repo.write(t, map[string]string{"shop/settle.go": settle})
	repo.commit(t, "settle")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:shop", Dir: repo.dir, LinkTemplate: linkTemplate}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	const q = `where is "ledger closed" returned?`
	var chunk retrieval.Chunk
	for _, c := range storedChunks(t, store, src.ID) {
		if c.Symbol == "Settle" {
			chunk = c.Chunk
		}
	}
	focused := retrieval.FocusSnippet(chunk, retrieval.NewFocusTerms(q))
	if focused.ShownStart == 0 {
		t.Fatalf("Settle's snippet is not focused:\n%s", focused.Text)
	}
	repos := ingest.StaleRepos{Sources: map[string]ingest.GitSource{src.ID: src}}
	guard := func() retrieval.Snippet {
		t.Helper()
		ans := retrieval.Answer{Question: q, Coverage: retrieval.Covered, Snippets: []retrieval.Snippet{focused}}
		if err := (ingest.StaleCode{Repos: repos}).Guard(ctx, retrieval.Request{}, &ans); err != nil {
			t.Fatal(err)
		}
		return ans.Snippets[0]
	}

	// Moved down two lines, unchanged: left as it is.
	moved := strings.Replace(settle, "package shop\n", "package shop\n\n// Ledger code.\n", 1)
	repo.write(t, map[string]string{"shop/settle.go": moved})
	repo.commit(t, "comment")
	if got := guard(); got.Stale != "" || got.Text != focused.Text {
		t.Errorf("moved symbol: stale %q, text changed %v; want it left alone", got.Stale, got.Text != focused.Text)
	}

	// The matched line changes: the current lines, focused on it.
	changed := strings.Replace(moved, "ledger closed for %d", "ledger closed on day %d", 1)
	repo.write(t, map[string]string{"shop/settle.go": changed})
	repo.commit(t, "wording")
	got := guard()
	if got.Stale == "" || !strings.Contains(got.Text, "ledger closed on day") || got.ShownStart == 0 ||
		got.ShownStart > 77 || got.ShownEnd < 77 {
		t.Errorf("changed symbol: stale %q, shown %d-%d, text:\n%s\nwant the current line 77 in a focused window",
			got.Stale, got.ShownStart, got.ShownEnd, got.Text)
	}
}

// TestStaleCodeGuardUsageSites asks where a variable is read in a real
// Weaviate after the file changed and before it is reindexed: a site whose
// line only moved keeps its citation at the indexed commit, one whose line
// is gone keeps its one line and says so; neither becomes its symbol's
// whole chunk.
func TestStaleCodeGuardUsageSites(t *testing.T) {
	ctx := context.Background()
	repo := newRepo(t)
	const file = "package cfg\n\nimport \"os\"\n\nfunc load() (string, string) {\n\ta := os.Getenv(\"APP_MODE\")\n\tb := os.Getenv(\"APP_MODE\") + \"!\"\n\treturn a, b\n}\n"
	repo.write(t, map[string]string{"cfg/load.go": file})
	indexed := repo.commit(t, "cfg")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	src := ingest.GitSource{ID: "repo:cfg", Dir: repo.dir, LinkTemplate: linkTemplate}
	if _, err := newIndexer(t, store, emb, t0.Add(100*time.Hour)).IndexGit(ctx, src, false); err != nil {
		t.Fatal(err)
	}
	// Two lines above load, and the second read goes.
	edited := strings.Replace(strings.Replace(file, "import \"os\"\n", "import \"os\"\n\n// load reads the mode.\n", 1), "\tb := os.Getenv(\"APP_MODE\") + \"!\"\n", "\tb := a + \"!\"\n", 1)
	repo.write(t, map[string]string{"cfg/load.go": edited})
	head := repo.commit(t, "load reads once")
	asker := usageAsker(store, emb)
	asker.Guards = []retrieval.Guard{ingest.StaleCode{Repos: ingest.StaleRepos{Sources: map[string]ingest.GitSource{src.ID: src}}}}
	ans, err := asker.Ask(ctx, retrieval.Request{Question: "where is APP_MODE read?", Sources: []string{src.ID}})
	if err != nil {
		t.Fatal(err)
	}
	type site struct {
		Line, End int
		Commit    string
		Text      string
		Stale     string
	}
	var got []site
	for _, s := range ans.Snippets {
		got = append(got, site{s.StartLine, s.EndLine, s.CommitSHA, s.Text, s.Stale})
	}
	want := []site{
		{6, 6, indexed, `a := os.Getenv("APP_MODE")`, ""},
		{7, 7, indexed, `b := os.Getenv("APP_MODE") + "!"`,
			fmt.Sprintf("changed since indexed at %s: line 7 is no longer in cfg/load.go at %s; not yet reindexed", indexed[:7], head[:7])},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sites (-want +got):\n%s", diff)
	}
}
