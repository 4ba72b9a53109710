package ingest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/weaviatetest"
)

// funcsPerFile is how many functions, so chunks, each generated file holds.
const funcsPerFile = 10

// generatedFiles returns n Go files of funcsPerFile functions each, every
// one with its own names and body, so that no two chunks share a vector.
func generatedFiles(n int) map[string]string {
	files := make(map[string]string, n)
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i)
		for j := range funcsPerFile {
			fmt.Fprintf(&b, "// Handle%dx%d settles order %d of batch %d.\nfunc Handle%dx%d(n int) int {\n\tif n > %d {\n\t\treturn n * %d\n\t}\n\treturn n + %d\n}\n\n",
				i, j, j, i, i, j, i+j, j+1, i)
		}
		files[fmt.Sprintf("pkg%03d/f%d.go", i/50, i)] = b.String()
	}
	return files
}

// TestIndexGitHoldsBatchesNotTheSource indexes a repository of 3,000
// chunks and checks that the run never held more chunks at once than its
// batches in flight and the files being chunked (ingest.stream), a bound
// that does not depend on the source's size, and that every chunk is
// stored, then that a second full run over an edited tree deletes what went.
func TestIndexGitHoldsBatchesNotTheSource(t *testing.T) {
	ctx := context.Background()
	const files = 300
	repo := newRepo(t)
	repo.write(t, generatedFiles(files))
	repo.commit(t, "generated")
	emb := embed.NewOffline()
	store := weaviatetest.NewStore(t, emb.Name())
	var mu sync.Mutex
	var most int64
	ingest.OnStreamHeld(func(n int64) { mu.Lock(); most = max(most, n); mu.Unlock() })
	t.Cleanup(func() { ingest.OnStreamHeld(nil) })
	ix := newIndexer(t, store, emb, t0.Add(100*time.Hour))
	ix.Workers = 2
	src := ingest.GitSource{ID: "repo:gen", Dir: repo.dir}
	st, err := ix.IndexGit(ctx, src, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := files * funcsPerFile; st.Chunks != want || st.Embedded != want {
		t.Fatalf("chunks %d, embedded %d; want %d each", st.Chunks, st.Embedded, want)
	}
	if n, err := store.Count(ctx, src.ID); err != nil || n != files*funcsPerFile {
		t.Fatalf("stored %d chunks (%v), want %d", n, err, files*funcsPerFile)
	}
	// Held at most: the batches being written and the one being filled
	// (each under EmbedBatch plus one file), and a file at each worker, in
	// the channels and waiting for its turn (ahead: 3 per worker).
	bound := int64((ingest.MaxWriting+1)*(ingest.EmbedBatch+funcsPerFile) + 3*ix.Workers*funcsPerFile)
	if most > bound || most == 0 {
		t.Errorf("the run held up to %d chunks at once, want 1..%d (the source has %d)", most, bound, files*funcsPerFile)
	}

	// Files gone from the tree lose their chunks; a changed file keeps only
	// its new ones.
	repo.git(t, "rm", "-q", "-r", "pkg000")
	repo.write(t, map[string]string{"pkg001/f50.go": "package p50\n\nfunc Only() int { return 1 }\n"})
	repo.commit(t, "drop pkg000, shrink f50")
	st, err = ix.IndexGit(ctx, src, true)
	if err != nil {
		t.Fatal(err)
	}
	want := (files-50-1)*funcsPerFile + 1
	if n, err := store.Count(ctx, src.ID); err != nil || n != want || st.Chunks != want {
		t.Errorf("after the edit: stored %d (%v), Stats.Chunks %d; want %d", n, err, st.Chunks, want)
	}
	if wantDel := 50*funcsPerFile + funcsPerFile; st.Deleted != wantDel {
		t.Errorf("deleted %d, want %d", st.Deleted, wantDel)
	}
}

// BenchmarkIndexGitPeakHeap indexes (full, into an empty collection) a
// repository of N and of 4N files and reports the peak of the Go heap in
// use during the run (runtime.MemStats.HeapInuse, sampled every 5 ms), in
// MB: with the stream it stays about the same for both sizes.
//
//	go test ./ingest -run '^$' -bench IndexGitPeakHeap -benchtime 1x
func BenchmarkIndexGitPeakHeap(b *testing.B) {
	for _, n := range []int{150, 600} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			repo := newRepo(b)
			repo.write(b, generatedFiles(n))
			repo.commit(b, "generated")
			emb := embed.NewOffline()
			for i := range b.N {
				store := weaviatetest.NewStore(b, emb.Name())
				ix := newIndexer(b, store, emb, t0.Add(100*time.Hour))
				runtime.GC()
				peak, stop := sampleHeap()
				if _, err := ix.IndexGit(context.Background(), ingest.GitSource{ID: fmt.Sprintf("repo:gen%d", i), Dir: repo.dir}, true); err != nil {
					b.Fatal(err)
				}
				stop()
				b.ReportMetric(float64(*peak)/(1<<20), "peak-heap-MB")
				b.ReportMetric(float64(n*funcsPerFile), "chunks")
			}
		})
	}
}

// sampleHeap samples HeapInuse every 5 ms into *peak until stop.
func sampleHeap() (peak *uint64, stop func()) {
	peak = new(uint64)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			*peak = max(*peak, ms.HeapInuse)
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return peak, func() { close(done); wg.Wait() }
}
