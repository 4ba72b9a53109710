package expand_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/expand"
	"github.com/ragbot/ragbot/retrieval/weaviate"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

func TestMain(m *testing.M) { weaviatetest.Main(m) }

// TestWordListsLoad parses the built-in lists and checks entries that
// PROVENANCE.md's sources give: WordNet's first senses of "ballot" and
// GloVe's nearest words to it, closest first.
func TestWordListsLoad(t *testing.T) {
	wn, err := expand.WordNet()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"vote", "voting", "balloting"}, wn["ballot"]); diff != "" {
		t.Errorf(`WordNet()["ballot"] (-want +got):\n%s`, diff)
	}
	g, err := expand.GloVe()
	if err != nil {
		t.Fatal(err)
	}
	if len(g) != 20000 {
		t.Errorf("GloVe() has %d words, want 20000", len(g))
	}
	ns := g["ballot"]
	if len(ns) != 10 || ns[0] != (expand.Neighbour{Word: "ballots", Cosine: 0.84}) {
		t.Errorf(`GloVe()["ballot"] = %v, want 10 neighbours starting with ballots:0.84`, ns)
	}
	for i := 1; i < len(ns); i++ {
		if ns[i].Cosine > ns[i-1].Cosine {
			t.Errorf(`GloVe()["ballot"] = %v, not closest first`, ns)
		}
	}
	// Parsed once: the same map every call.
	again, _ := expand.GloVe()
	if &again["ballot"][0] != &ns[0] {
		t.Error("GloVe() parsed the list again")
	}
}

// TestConfigKindsAreRetrievalKinds keeps config's list of valid
// retrieval.expansion entries equal to what retrieval runs.
func TestConfigKindsAreRetrievalKinds(t *testing.T) {
	if diff := cmp.Diff(retrieval.ExpansionKinds, config.ExpansionKinds); diff != "" {
		t.Errorf("config.ExpansionKinds (-retrieval +config):\n%s", diff)
	}
}

func TestNewExpanderRefusesUnknownKinds(t *testing.T) {
	if _, err := retrieval.NewExpander([]string{"prf", "word2vec"}); err == nil ||
		err.Error() != `query expansion "word2vec", want among prf, glove, wordnet` {
		t.Errorf("NewExpander(word2vec) error = %v", err)
	}
	if e, err := retrieval.NewExpander(nil); e != nil || err != nil {
		t.Errorf("NewExpander(nil) = %v, %v; want nil, nil", e, err)
	}
}

func chunk(path, symbol, content string) retrieval.Chunk {
	c := retrieval.Chunk{
		Source: "repo:raft", Kind: retrieval.KindCode, Path: path, Symbol: symbol, SymbolKind: "function",
		Language: "go", Content: content, StartLine: 1, EndLine: strings.Count(content, "\n") + 1,
		CommitSHA: strings.Repeat("a", 40), Branch: "main", IndexedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC),
	}
	c.ContentHash = retrieval.HashContent(c.Content)
	c.SearchText = retrieval.SearchText(c)
	return c
}

var corpus = []retrieval.Chunk{
	chunk("raft.go", "Raft.electSelf", "// electSelf starts an election: the candidate votes for itself and asks every peer for a vote.\n"+
		"func (r *Raft) electSelf() {\n\tr.setState(Candidate)\n\tr.persistVote(r.id)\n\tfor _, p := range r.peers {\n\t\tr.requestVote(p)\n\t}\n}"),
	chunk("raft.go", "Raft.runFollower", "// runFollower waits for heartbeats from the leader; on a timeout it becomes a candidate.\n"+
		"func (r *Raft) runFollower() {\n\tselect {\n\tcase <-r.heartbeatTimer:\n\t\tr.setState(Candidate)\n\t}\n}"),
	chunk("snapshot.go", "Raft.takeSnapshot", "// takeSnapshot saves a compact copy of the state machine.\n"+
		"func (r *Raft) takeSnapshot() error {\n\treturn r.fsm.Snapshot()\n}"),
	chunk("util.go", "backoff", "// backoff doubles the wait after each failed attempt, up to a limit.\n"+
		"func backoff(base time.Duration, round int) time.Duration {\n\treturn base << round\n}"),
	chunk("config.go", "ValidateConfig", "// ValidateConfig checks the settings: a timeout too small is an error.\n"+
		"func ValidateConfig(c *Config) error {\n\tif c.HeartbeatTimeout < 5*time.Millisecond {\n\t\treturn errors.New(\"heartbeat timeout is too low\")\n\t}\n\treturn nil\n}"),
}

// newAsker indexes corpus into a fresh collection and returns an asker
// with the given expansions.
func newAsker(t testing.TB, kinds ...string) (*retrieval.Asker, *weaviate.Store) {
	t.Helper()
	ctx := context.Background()
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	texts := make([]string, len(corpus))
	for i, c := range corpus {
		texts[i] = c.Symbol + "\n" + c.Path + "\n" + c.Content
	}
	vecs, err := emb.Embed(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Upsert(ctx, corpus, vecs); err != nil {
		t.Fatal(err)
	}
	e, err := retrieval.NewExpander(kinds)
	if err != nil {
		t.Fatal(err)
	}
	return &retrieval.Asker{Store: store, Embedder: emb, Alpha: 0.5, TopK: 5, Candidates: 20,
		Thresholds: retrieval.DefaultThresholds(), Expand: e}, store
}

// TestExpansionTermsOnIndexedCorpus checks which terms each kind adds to
// questions about a small indexed corpus.
func TestExpansionTermsOnIndexedCorpus(t *testing.T) {
	ctx := context.Background()
	req := func(q string) retrieval.Request {
		return retrieval.Request{Question: q, Sources: []string{"repo:raft"}}
	}
	t.Run("wordnet adds synonyms the corpus has", func(t *testing.T) {
		a, _ := newAsker(t, retrieval.ExpandWordNet)
		got, err := a.ExpansionTerms(ctx, req("where is the ballot opened?"))
		if err != nil {
			t.Fatal(err)
		}
		// ballot -> vote, voting, balloting (TestWordListsLoad): only
		// "vote" is in a chunk (electSelf).
		if !slices.Contains(got, "vote(wordnet:ballot)") || slices.ContainsFunc(got, func(s string) bool {
			return strings.HasPrefix(s, "voting(") || strings.HasPrefix(s, "balloting(")
		}) {
			t.Errorf("terms %v, want vote(wordnet:ballot) and neither voting nor balloting", got)
		}
	})
	t.Run("glove adds the nearest neighbours the corpus has", func(t *testing.T) {
		a, _ := newAsker(t, retrieval.ExpandGloVe)
		got, err := a.ExpansionTerms(ctx, req("where is the ballot?"))
		if err != nil {
			t.Fatal(err)
		}
		// GloVe's nearest to ballot: ballots 0.84, voting 0.83, vote 0.80,
		// votes 0.80, ...: the first two in the corpus, at most
		// wordsPerTerm = 2, are vote and votes.
		if diff := cmp.Diff([]string{"vote(glove:ballot)", "votes(glove:ballot)"}, got); diff != "" {
			t.Errorf("terms (-want +got):\n%s", diff)
		}
	})
	t.Run("prf adds the top hits' rare terms", func(t *testing.T) {
		a, _ := newAsker(t, retrieval.ExpandPRF)
		got, err := a.ExpansionTerms(ctx, req("where does the candidate ask every peer?"))
		if err != nil {
			t.Fatal(err)
		}
		// electSelf ranks first and says vote three times; "func" and
		// "raft" are in most chunks (low idf), "r" is too short, and the
		// question's own words are never added.
		if !slices.Contains(got, "vote(prf)") {
			t.Errorf("terms %v, want vote(prf)", got)
		}
		for _, s := range got {
			term, _, _ := strings.Cut(s, "(")
			if slices.Contains([]string{"func", "candidate", "peer", "ask", "every", "r"}, term) {
				t.Errorf("terms %v hold %q", got, term)
			}
		}
	})
	t.Run("off adds nothing", func(t *testing.T) {
		a, _ := newAsker(t)
		if got, err := a.ExpansionTerms(ctx, req("where is the ballot?")); got != nil || err != nil {
			t.Errorf("ExpansionTerms without Expand = %v, %v; want nil, nil", got, err)
		}
	})
}

// TestRetrieveWithExpansion checks that the expanded query's hits reach the
// ranking: a question in other words than the code's ranks the chunk its
// synonym names higher, and a question naming a symbol still finds that
// symbol first.
func TestRetrieveWithExpansion(t *testing.T) {
	ctx := context.Background()
	plain, _ := newAsker(t)
	e, err := retrieval.NewExpander([]string{retrieval.ExpandWordNet})
	if err != nil {
		t.Fatal(err)
	}
	expanded := *plain
	expanded.Expand = e
	rank := func(a *retrieval.Asker, question, symbol string) (int, []string) {
		t.Helper()
		hits, err := a.Retrieve(ctx, retrieval.Request{Question: question, Sources: []string{"repo:raft"}}, 5)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		at := 0
		for i, h := range hits {
			got = append(got, h.Chunk.Symbol+" "+h.Debug)
			if h.Chunk.Symbol == symbol && at == 0 {
				at = i + 1
			}
		}
		return at, got
	}
	// No chunk says "ballot" or "opened": without expansion the vector side
	// alone orders the hits, electSelf last (score 0). WordNet adds "vote",
	// which only electSelf holds, so only electSelf gains a BM25 score in
	// the expanded query: half of it (expandFuse) lifts it to third.
	before, hitsBefore := rank(plain, "where is the ballot opened?", "Raft.electSelf")
	after, hitsAfter := rank(&expanded, "where is the ballot opened?", "Raft.electSelf")
	if after == 0 || before != 0 && after >= before {
		t.Errorf("electSelf at %d with wordnet, %d without; want higher with it\nwith: %q\nwithout: %q", after, before, hitsAfter, hitsBefore)
	}
	if at, hits := rank(&expanded, "where is ValidateConfig?", "ValidateConfig"); at != 1 {
		t.Errorf("Retrieve(where is ValidateConfig?) = %q, want ValidateConfig first", hits)
	}
}

// BenchmarkRetrieve times Asker.Retrieve on the small corpus with each
// expansion kind, against none: the difference is the kind's cost per
// question. "cold" starts every question with an empty document frequency
// cache (a new Expander), "warm" reuses one.
func BenchmarkRetrieve(b *testing.B) {
	ctx := context.Background()
	a, _ := newAsker(b)
	r := retrieval.Request{Question: "where does a machine ask the others for their ballot before an election?", Sources: []string{"repo:raft"}}
	for _, kinds := range [][]string{nil, {retrieval.ExpandPRF}, {retrieval.ExpandGloVe}, {retrieval.ExpandWordNet}} {
		for _, cache := range []string{"warm", "cold"} {
			name := strings.Join(kinds, ",")
			if name == "" {
				if cache == "cold" {
					continue
				}
				name = "none"
			}
			b.Run(name+"/"+cache, func(b *testing.B) {
				asker := *a
				for i := 0; i < b.N; i++ {
					if i == 0 || cache == "cold" {
						e, err := retrieval.NewExpander(kinds)
						if err != nil {
							b.Fatal(err)
						}
						asker.Expand = e
					}
					if _, err := asker.Retrieve(ctx, r, 5); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
