package weaviate_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragbot/ragbot/models"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
)

// benchChunks cuts this repository's Go files into 40-line windows: a
// corpus of a real code base's size and vocabulary (about 2,000 chunks).
func benchChunks(b *testing.B) []retrieval.Chunk {
	b.Helper()
	var cs []retrieval.Chunk
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(data), "\n")
		for start := 0; start < len(lines); start += 40 {
			end := min(start+40, len(lines))
			if strings.TrimSpace(strings.Join(lines[start:end], "")) == "" {
				continue
			}
			rel, _ := filepath.Rel("../..", path)
			cs = append(cs, codeChunk("repo:ragbot", filepath.ToSlash(rel), fmt.Sprintf("L%d", start+1),
				strings.Join(lines[start:end], "\n"), start+1, end))
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return cs
}

// BenchmarkQuerySemanticCost measures one question's embedding and hybrid
// query (40 hits, as retrieval's candidates) with the lexical vector alone
// and with both named vectors, on the same collection, with the default
// in-process embedders (offline hashing as lexical, the built-in
// codesearch-v1 encoder as semantic). extra-ms/q is what a semantic vector
// adds to a question.
//
//	RAGBOT_TEST_WEAVIATE_URL=... go test ./retrieval/weaviate -run '^$' -bench QuerySemanticCost
func BenchmarkQuerySemanticCost(b *testing.B) {
	ctx := context.Background()
	m, hash, err := codesearch.Load(models.CodeSearchV1)
	if err != nil {
		b.Fatal(err)
	}
	p := retrieval.Pair{Lexical: embed.NewOffline(), Semantic: embed.NewCodeSearch(m, hash)}
	store, _ := newNamed(b, p)
	cs := benchChunks(b)
	for start := 0; start < len(cs); start += 500 {
		part := cs[start:min(start+500, len(cs))]
		if err := store.Upsert(ctx, part, embedAll(b, p, part)); err != nil {
			b.Fatal(err)
		}
	}
	questions := []string{
		"where is the retry for 503 errors?", "how are chunks upserted in batches",
		"which function checks the webhook signature", "where do we parse the config file",
		"how does the bot answer in a thread",
	}
	// The two modes alternate within one loop, so that the load of a shared
	// machine weighs on both alike; each reports its mean time per question
	// and the difference.
	run := func(q string, both bool) time.Duration {
		t0 := time.Now()
		var emb retrieval.Embedder = p.Lexical
		if both {
			emb = p
		}
		vs, err := emb.Embed(ctx, []string{q})
		if err != nil {
			b.Fatal(err)
		}
		lex, semv := vs[0], []float32(nil)
		if both {
			lex, semv = p.Split(vs[0])
		}
		if _, err := store.Search(ctx, retrieval.Query{Text: retrieval.SearchQuery(q), Vector: lex, Semantic: semv, Alpha: 0.5, Limit: 40}); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	b.Run(fmt.Sprintf("%d_chunks", len(cs)), func(b *testing.B) {
		var lexT, bothT time.Duration
		n := 0
		for b.Loop() {
			q := questions[n%len(questions)]
			lexT += run(q, false)
			bothT += run(q, true)
			n++
		}
		ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(n) }
		b.ReportMetric(ms(lexT), "lexical-ms/q")
		b.ReportMetric(ms(bothT), "both-ms/q")
		b.ReportMetric(ms(bothT-lexT), "extra-ms/q")
	})
}
