package embed_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/models"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
	"github.com/ragbot/ragbot/retrieval/embedtest"
)

func builtinCodeSearch(t testing.TB) *embed.CodeSearch {
	t.Helper()
	m, hash, err := codesearch.Load(models.CodeSearchV1)
	if err != nil {
		t.Fatalf("built-in codesearch model: %v", err)
	}
	return embed.NewCodeSearch(m, hash)
}

func TestCodeSearch(t *testing.T) {
	e := builtinCodeSearch(t)
	embedtest.TestEmbedder(t, e)
	if !strings.HasPrefix(e.Name(), "codesearch-v1-") || !strings.HasSuffix(e.Name(), "-128") || e.Dim() != 128 {
		t.Errorf("name %q dim %d, want codesearch-v1-<hash>-128 and 128", e.Name(), e.Dim())
	}
}

// TestCodeSearchParaphrase checks what the built-in model is for: a
// question in other words than the code's finds it. Each question shares
// no word piece with its own code, yet must rank it above the others.
func TestCodeSearchParaphrase(t *testing.T) {
	e := builtinCodeSearch(t)
	codes := []string{
		"checkLogin\nauth/login.go\nfunc checkLogin(user, pass string) bool\nfunc checkLogin(user, pass string) bool {\n\th := lookupHash(user)\n\treturn bcrypt.CompareHashAndPassword(h, []byte(pass)) == nil\n}",
		"trimLines\ntext/trim.go\nfunc trimLines(s string) string\nfunc trimLines(s string) string {\n\tvar b strings.Builder\n\tfor _, l := range strings.Split(s, \"\\n\") {\n\t\tb.WriteString(strings.TrimRight(l, \" \\t\"))\n\t}\n\treturn b.String()\n}",
		"gzipBody\nhttp/compress.go\nfunc gzipBody(w io.Writer, body []byte) error\nfunc gzipBody(w io.Writer, body []byte) error {\n\tz := gzip.NewWriter(w)\n\tif _, err := z.Write(body); err != nil {\n\t\treturn err\n\t}\n\treturn z.Close()\n}",
		"openDB\nstore/db.go\nfunc openDB(dsn string) (*sql.DB, error)\nfunc openDB(dsn string) (*sql.DB, error) {\n\tdb, err := sql.Open(\"postgres\", dsn)\n\tif err != nil {\n\t\treturn nil, err\n\t}\n\treturn db, db.Ping()\n}",
	}
	questions := []string{
		"where do we verify credentials?",
		"which function removes whitespace at the end of each row?",
		"how is the payload compressed?",
		"where is the connection to the database established?",
	}
	ctx := context.Background()
	cv, err := e.Embed(ctx, codes)
	if err != nil {
		t.Fatal(err)
	}
	qv, err := e.Embed(ctx, questions)
	if err != nil {
		t.Fatal(err)
	}
	for i, q := range qv {
		best, bestSim := -1, -2.0
		for j, c := range cv {
			var s float64
			for k := range q {
				s += float64(q[k]) * float64(c[k])
			}
			if s > bestSim {
				best, bestSim = j, s
			}
		}
		if best != i {
			t.Errorf("%q ranked %q first, want %q", questions[i], strings.SplitN(codes[best], "\n", 2)[0], strings.SplitN(codes[i], "\n", 2)[0])
		}
	}
}

// BenchmarkCodeSearchQuery measures the latency of embedding one question.
func BenchmarkCodeSearchQuery(b *testing.B) {
	e := builtinCodeSearch(b)
	ctx := context.Background()
	q := []string{"where is the retry for 503 errors when the upstream times out?"}
	for b.Loop() {
		if _, err := e.Embed(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCodeSearchChunk measures embedding one 40-line code chunk.
func BenchmarkCodeSearchChunk(b *testing.B) {
	e := builtinCodeSearch(b)
	ctx := context.Background()
	chunk := []string{strings.Repeat(embedtest.Texts[1]+"\n", 13)}
	for b.Loop() {
		if _, err := e.Embed(ctx, chunk); err != nil {
			b.Fatal(err)
		}
	}
}
