package ingest

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest/code"
)

// BenchmarkChunkRedact chunks every file of the alertmanager eval corpus's
// work tree as an index run does (chunkFile, one goroutine) with redaction
// off and on, alternating within one loop, and reports the mean seconds of
// each pass over the corpus and their ratio: the CPU cost of the scan alone,
// without embedding and writing (BenchmarkIndexRedact measures whole runs).
// Skipped unless RAGBOT_EVAL_CORPUS names the folder holding the corpus:
//
//	RAGBOT_EVAL_CORPUS=$PWD/.ragbot/eval-corpus go test ./ingest -run '^$' -bench ChunkRedact -benchtime 3x
func BenchmarkChunkRedact(b *testing.B) {
	dir := os.Getenv("RAGBOT_EVAL_CORPUS")
	if dir == "" {
		b.Skip("RAGBOT_EVAL_CORPUS is not set")
	}
	root := filepath.Join(dir, "alertmanager@v0.35.0")
	var files []fileInput
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.Name() == ".git" {
				return filepath.SkipDir
			}
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if r := pathSkipReason(filepath.ToSlash(rel), int64(len(data))); r == "" {
			files = append(files, fileInput{path: filepath.ToSlash(rel), data: data})
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	red, err := NewRedactor(RedactOptions{})
	if err != nil {
		b.Fatal(err)
	}
	opt := code.Options{MaxLines: 150, WindowLines: 60}
	pass := func(r *Redactor) (time.Duration, int) {
		start, found := time.Now(), 0
		for _, f := range files {
			_, _, _, _, rs := chunkFile(f, opt, r)
			found += len(rs)
		}
		return time.Since(start), found
	}
	var off, on time.Duration
	var n, found int
	for b.Loop() {
		d, _ := pass(nil)
		off += d
		d, found = pass(red)
		on += d
		n++
	}
	s := func(d time.Duration) float64 { return d.Seconds() / float64(n) }
	b.ReportMetric(float64(len(files)), "files")
	b.ReportMetric(s(off), "off-s")
	b.ReportMetric(s(on), "on-s")
	b.ReportMetric(s(on)/s(off), "on/off")
	b.ReportMetric(float64(found), "secrets")
}
