package ingest_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// BenchmarkIndexRedact indexes the public eval corpus (alertmanager
// v0.35.0, a git repository, and @octokit/openapi 23.0.2's
// api.github.com.json, as scripts/bench-eval.sh lays them out) into a fresh
// collection with redaction off and on, with the offline embedder,
// alternating within one loop (and their order from one iteration to the
// next) so that the load of a shared machine weighs on both alike. It
// reports the mean seconds of a whole first index of each (chunk, embed,
// write), their ratio, and the secrets found. Skipped unless
// RAGBOT_EVAL_CORPUS names the folder holding the corpus:
//
//	RAGBOT_EVAL_CORPUS=$PWD/.ragbot/eval-corpus RAGBOT_TEST_WEAVIATE_URL=... \
//	  go test ./ingest -run '^$' -bench IndexRedact -benchtime 2x
func BenchmarkIndexRedact(b *testing.B) {
	dir := os.Getenv("RAGBOT_EVAL_CORPUS")
	if dir == "" {
		b.Skip("RAGBOT_EVAL_CORPUS is not set")
	}
	ctx := context.Background()
	red, err := ingest.NewRedactor(ingest.RedactOptions{})
	if err != nil {
		b.Fatal(err)
	}
	git := ingest.GitSource{ID: "repo:alertmanager", Dir: filepath.Join(dir, "alertmanager@v0.35.0")}
	spec := ingest.SpecSource{ID: "openapi:github", File: filepath.Join(dir, "octokit-openapi@23.0.2", "package", "generated", "api.github.com.json")}
	emb := embed.NewOffline()
	// index returns the seconds of the git run and of the spec run, the
	// chunks and the secrets redacted.
	index := func(r *ingest.Redactor) (gitTime, apiTime time.Duration, chunks, found int) {
		store := weaviatetest.NewStore(b, emb.Name())
		ix := &ingest.Indexer{Store: store, Embedder: emb, Redact: r, Log: slog.New(slog.DiscardHandler)}
		start := time.Now()
		gs, err := ix.IndexGit(ctx, git, true)
		if err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		ss, err := ix.IndexSpec(ctx, spec, true)
		if err != nil {
			b.Fatal(err)
		}
		return mid.Sub(start), time.Since(mid), gs.Chunks + ss.Chunks, gs.Redacted.Total() + ss.Redacted.Total()
	}
	var gitOff, gitOn, apiOff, apiOn time.Duration
	var chunks, found, n int
	for b.Loop() {
		for i := range 2 { // off then on, then on then off: neither is favoured by going second
			if (n+i)%2 == 0 {
				g, a, _, _ := index(nil)
				gitOff, apiOff = gitOff+g, apiOff+a
			} else {
				var g, a time.Duration
				g, a, chunks, found = index(red)
				gitOn, apiOn = gitOn+g, apiOn+a
			}
		}
		n++
	}
	s := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	off, on := s(gitOff+apiOff), s(gitOn+apiOn)
	b.ReportMetric(off, "off-s")
	b.ReportMetric(on, "on-s")
	b.ReportMetric(on/off, "on/off")
	b.ReportMetric(s(gitOn)/s(gitOff), "git-on/off")
	b.ReportMetric(s(apiOn)/s(apiOff), "api-on/off")
	b.ReportMetric(float64(chunks), "chunks")
	b.ReportMetric(float64(found), "secrets")
	b.Logf("%d chunks, %d secrets redacted; git off %.2fs on %.2fs, api off %.2fs on %.2fs",
		chunks, found, s(gitOff), s(gitOn), s(apiOff), s(apiOn))
}
