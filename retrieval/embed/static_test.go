package embed_test

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embedtest"
	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// tinyTopics are the topics of the test corpus: words of one topic co-occur,
// words of different topics never do.
var tinyTopics = [][]string{
	{"peer", "reconnect", "rejoin", "cluster", "gossip", "member", "node"},
	{"silence", "mute", "suppress", "expire", "matcher", "quiet"},
	{"email", "smtp", "mail", "send", "message", "inbox"},
}

// tinyCorpus is a deterministic synthetic corpus of 3,000 sentences; a few
// carry the identifiers maxReconnects and find_by_email, so the model
// learns their joined forms.
func tinyCorpus(yield func([]string) bool) error {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 3000 {
		topic := tinyTopics[i%len(tinyTopics)]
		var b strings.Builder
		for range 10 {
			b.WriteString(topic[r.IntN(len(topic))])
			b.WriteByte(' ')
		}
		switch i % 30 {
		case 0:
			b.WriteString("maxReconnects")
		case 2:
			b.WriteString("find_by_email")
		}
		if !yield(embed.StaticTokens(b.String())) {
			return nil
		}
	}
	return nil
}

var tiny = sync.OnceValues(func() (*embed.Static, error) {
	p := wordvec.DefaultParams()
	p.Dim, p.MinCount, p.Epochs, p.Subsample = 24, 2, 4, 0
	m, _, err := wordvec.Train(context.Background(), tinyCorpus, p, nil)
	if err != nil {
		return nil, err
	}
	q := m.Quantized() // too few words for Postprocess: its top directions would be the 3 topics
	q.Common = embed.NewStatic(q, "fit").FitCommon([]string{"peer reconnect", "silence mute", "email smtp", "cluster node mail"})
	hash, err := q.Hash(nil, true)
	if err != nil {
		return nil, err
	}
	return embed.NewStatic(q, hash), nil
})

func tinyStatic(t testing.TB) *embed.Static {
	t.Helper()
	s, err := tiny()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestStaticEmbedder(t *testing.T) {
	e := tinyStatic(t)
	if !regexp.MustCompile(`^static-v1-[0-9a-f]{12}-408$`).MatchString(e.Name()) {
		t.Errorf("Name() = %q, want static-v1-<12 hex>-408", e.Name())
	}
	if got, want := e.Dim(), embed.OfflineDim+24; got != want {
		t.Errorf("Dim() = %d, want %d", got, want)
	}
	embedtest.TestEmbedder(t, e)
}

// embedAll embeds texts with e, failing the test on error.
func embedTexts(t *testing.T, e retrieval.Embedder, texts ...string) [][]float32 {
	t.Helper()
	v, err := e.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func cos(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return d / math.Sqrt(na*nb)
}

// semCos is the cosine of the semantic parts of two Static vectors: the
// vector is sqrt(.7)*lexical ++ sqrt(.3)*semantic, both unit.
func semCos(a, b []float32) float64 {
	return cos(a[embed.OfflineDim:], b[embed.OfflineDim:])
}

func TestStaticSemanticNeighbours(t *testing.T) {
	e := tinyStatic(t)
	v := embedTexts(t, e, "how does a node rejoin", "reconnect to a peer", "mute alerts quietly", "send an email")
	// The first two share no word piece but a topic; the others share neither.
	if near, far := semCos(v[0], v[1]), max(semCos(v[0], v[2]), semCos(v[0], v[3])); near <= far+0.2 {
		t.Errorf("semantic cosine rejoin~reconnect %.3f, rejoin~other topics %.3f; want a margin of 0.2", near, far)
	}
	// Combined cosine: 0.7 lexical + 0.3 semantic.
	lex := embedTexts(t, embed.NewOffline(), "how does a node rejoin", "reconnect to a peer")
	if got, want := cos(v[0], v[1]), 0.7*cos(lex[0], lex[1])+0.3*semCos(v[0], v[1]); math.Abs(got-want) > 1e-4 {
		t.Errorf("cosine %.5f, want 0.7*lexical + 0.3*semantic = %.5f", got, want)
	}
}

func TestStaticIdentifierSplitting(t *testing.T) {
	e := tinyStatic(t)
	v := embedTexts(t, e, "findByEmail", "find_by_email", "FindByEmail", "find by email")
	// The three spellings of one identifier have the same pieces and the
	// same joined form: the same vector.
	for i, name := range []string{"find_by_email", "FindByEmail"} {
		if c := cos(v[0], v[i+1]); c < 0.9999 {
			t.Errorf("findByEmail vs %s: cosine %.5f, want 1", name, c)
		}
	}
	// "find by email" is three words: the same pieces without the joined
	// form the model learnt, so close but not equal.
	if c := semCos(v[0], v[3]); c < 0.5 || c > 0.9999 {
		t.Errorf("findByEmail vs \"find by email\": semantic cosine %.4f, want in [0.5, 1)", c)
	}
	if got := embed.StaticTokens("maxReconnects HTTPServer"); strings.Join(got, " ") != "max reconnects maxreconnects http server httpserver" {
		t.Errorf("StaticTokens = %q", got)
	}
}

func TestStaticOutOfVocabulary(t *testing.T) {
	e := tinyStatic(t)
	if _, ok := e.Model().ID("rejoining"); ok {
		t.Fatal("test corpus must not contain rejoining")
	}
	v := embedTexts(t, e, "rejoining", "rejoin cluster", "mute silence", "qzxv", "")
	// An unknown piece falls back to its character n-grams: rejoining
	// shares <re, rej, ejo, ... with rejoin.
	if near, far := semCos(v[0], v[1]), semCos(v[0], v[2]); near <= far+0.2 {
		t.Errorf("rejoining: semantic cosine to its topic %.3f, to another %.3f; want a margin of 0.2", near, far)
	}
	// Without any known n-gram there is no semantic half: the vector is
	// the lexical one (scaled to unit length).
	lex := embedTexts(t, embed.NewOffline(), "qzxv", "")
	for i, text := range []string{"qzxv", ""} {
		got := v[3+i]
		if n := l2(got[embed.OfflineDim:]); n != 0 {
			t.Errorf("%q: semantic half has norm %v, want 0", text, n)
		}
		if c := cos(got[:embed.OfflineDim], lex[i]); c < 0.9999 {
			t.Errorf("%q: lexical half cosine %.5f to the Offline vector, want 1", text, c)
		}
	}
}

func l2(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return math.Sqrt(s)
}

func TestStaticDeterministicAcrossTrainings(t *testing.T) {
	a := tinyStatic(t)
	p := a.Model().Params
	m, _, err := wordvec.Train(context.Background(), tinyCorpus, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := m.Quantized()
	q.Common, q.Mean, q.Top = a.Model().Common, a.Model().Mean, a.Model().Top
	hash, err := q.Hash(nil, true)
	if err != nil {
		t.Fatal(err)
	}
	b := embed.NewStatic(q, hash)
	if a.Name() != b.Name() {
		t.Errorf("retraining gave embedder %q, first training %q: same input must give the same model", b.Name(), a.Name())
	}
	va := embedTexts(t, a, embedtest.Texts...)
	vb := embedTexts(t, b, embedtest.Texts...)
	for i := range va {
		for j := range va[i] {
			if va[i][j] != vb[i][j] {
				t.Fatalf("text %d: element %d differs between two trainings (%v vs %v)", i, j, va[i][j], vb[i][j])
			}
		}
	}
	// The common component is removed: semantic halves are orthogonal to it.
	c := a.Model().Common
	for i, v := range va {
		if p := math.Abs(cos(v[embed.OfflineDim:], c)); l2(v[embed.OfflineDim:]) > 0 && p > 1e-3 {
			t.Errorf("text %d: |cosine| with the common component %.4f, want 0", i, p)
		}
	}
}

// benchModel loads the committed model, skipping when it is absent.
func benchModel(b *testing.B) *embed.Static {
	b.Helper()
	path := filepath.Join("..", "models", "static-v1", "model.bin")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no model at %s: run `ragbot embeddings train`", path)
	}
	s, err := embed.LoadStatic(path)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkStaticEmbedChunks measures indexing throughput: the chunks/s
// metric is 40-line chunks (benchChunks, as BenchmarkOfflineEmbed uses)
// embedded per second on one goroutine.
func BenchmarkStaticEmbedChunks(b *testing.B) {
	s := benchModel(b)
	chunks := benchChunks(256)
	ctx := context.Background()
	s.Embed(ctx, []string{"zqxjkvw"}) // an unknown word: builds the n-gram table outside the timing
	b.ResetTimer()
	n := 0
	for b.Loop() {
		if _, err := s.Embed(ctx, chunks); err != nil {
			b.Fatal(err)
		}
		n += len(chunks)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "chunks/s")
}

// BenchmarkStaticEmbedQuery measures the latency of embedding one question.
func BenchmarkStaticEmbedQuery(b *testing.B) {
	s := benchModel(b)
	ctx := context.Background()
	q := []string{"how does a node try to rejoin peers that dropped out of the cluster"}
	s.Embed(ctx, []string{"zqxjkvw"}) // an unknown word: builds the n-gram table outside the timing
	for b.Loop() {
		if _, err := s.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStaticLoad measures loading the model file and building the
// embedder (done once per process).
func BenchmarkStaticLoad(b *testing.B) {
	benchModel(b)
	for b.Loop() {
		if _, err := embed.LoadStatic(filepath.Join("..", "models", "static-v1", "model.bin")); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPostprocess(t *testing.T) {
	m := *tinyStatic(t).Model()
	embed.Postprocess(&m)
	mean, top := m.Mean, m.Top
	if len(mean) != m.Params.Dim || len(top) != 3 {
		t.Fatalf("Postprocess: mean of %d, %d directions; want %d and 3", len(mean), len(top), m.Params.Dim)
	}
	embed.Postprocess(&m)
	for i := range top {
		if c := cos(top[i], m.Top[i]); c < 0.99999 {
			t.Errorf("direction %d differs between two runs (cosine %.6f)", i, c)
		}
	}
	// Post-processed word vectors have no component along the directions.
	m.Common = nil
	s := embed.NewStatic(&m, "test")
	v := embedTexts(t, s, "peer", "silence", "smtp")
	for _, x := range v {
		for i, pc := range top {
			if p := math.Abs(cos(x[embed.OfflineDim:], pc)); p > 0.05 {
				t.Errorf("direction %d: |cosine| %.3f with a one-word vector, want ~0", i, p)
			}
		}
	}
}
