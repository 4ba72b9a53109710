package weaviate_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragbot/ragbot/models"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/wordvec"
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
// query with the lexical vector alone and with both named vectors, on the
// same collection, with in-process embedders (offline hashing as lexical,
// the built-in static model as semantic). The difference of the two is
// what a semantic vector adds to a question.
//
//	RAGBOT_TEST_WEAVIATE_URL=... go test ./retrieval/weaviate -run '^$' -bench QuerySemanticCost
func BenchmarkQuerySemanticCost(b *testing.B) {
	ctx := context.Background()
	m, _, err := wordvec.Load(bytes.NewReader(models.StaticV1))
	if err != nil {
		b.Fatal(err)
	}
	p := retrieval.Pair{Lexical: embed.NewOffline(), Semantic: embed.NewStatic(m, "builtin")}
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
	for _, mode := range []string{"lexical", "lexical+semantic"} {
		b.Run(fmt.Sprintf("%s/%d_chunks", mode, len(cs)), func(b *testing.B) {
			var emb retrieval.Embedder = p.Lexical
			if mode != "lexical" {
				emb = p
			}
			i := 0
			for b.Loop() {
				q := questions[i%len(questions)]
				i++
				vs, err := emb.Embed(ctx, []string{q})
				if err != nil {
					b.Fatal(err)
				}
				lex, semv := vs[0], []float32(nil)
				if mode != "lexical" {
					lex, semv = p.Split(vs[0])
				}
				if _, err := store.Search(ctx, retrieval.Query{Text: retrieval.SearchQuery(q), Vector: lex, Semantic: semv, Alpha: 0.5, Limit: 40}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
