package ingest_test

import (
	"testing"
	"time"

	"github.com/ragbot/ragbot/ingest"
)

// TestStatsSummary: the line `ragbot index` prints for a removed branch, an
// up-to-date source, an incremental run with skipped files and secrets,
// a markdown folder, and a run whose semantic embedder failed.
func TestStatsSummary(t *testing.T) {
	const sha = "3f1c2d4e5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"
	for _, tt := range []struct {
		st   ingest.Stats
		want string
	}{
		{ingest.Stats{Branch: "old", Removed: ingest.BranchUntracked, Deleted: 1},
			"httpx@old: " + ingest.BranchUntracked + ": 1 chunk deleted"},
		{ingest.Stats{Branch: "main", Commit: sha, UpToDate: true, Files: 3, Chunks: 9, Duration: 1234 * time.Millisecond},
			"httpx@main (3f1c2d4): up to date, 3 files, 9 chunks (1.2s)"},
		{ingest.Stats{Branch: "main", Commit: sha, Mode: ingest.ModeIncremental, Files: 3, Chunks: 9, Embedded: 2, Reused: 1, Kept: 6, Deleted: 1,
			Skipped: map[string]int{"vendored": 1, "binary": 2}, Redacted: ingest.RedactCounts{"generic-api-key": 2}, Duration: 2260 * time.Millisecond},
			"httpx@main (3f1c2d4) incremental: 3 files, 9 chunks (2 embedded, 1 reused, 6 unchanged, 1 deleted), skipped 3 (binary 2, vendored 1), line windows 0, 2 secrets redacted, 2.3s"},
		{ingest.Stats{Files: 1, Chunks: 2, Embedded: 2, Fallback: map[string]int{"no grammar": 1}},
			"httpx: 1 files, 2 chunks (2 embedded, 0 reused, 0 unchanged, 0 deleted), skipped 0, line windows 1 (no grammar 1), 0.0s"},
		{ingest.Stats{Files: 1, Chunks: 2, Embedded: 2, Pending: 2},
			"httpx: 1 files, 2 chunks (2 embedded, 0 reused, 0 unchanged, 0 deleted), skipped 0, line windows 0, 2 without semantic vectors (next run), 0.0s"},
		{ingest.Stats{Files: 1, Chunks: 2, Embedded: 2, Pending: 2, Deferred: true},
			"httpx: 1 files, 2 chunks (2 embedded, 0 reused, 0 unchanged, 0 deleted), skipped 0, line windows 0, 2 semantic vectors to fill, 0.0s"},
	} {
		if got := tt.st.Summary("httpx"); got != tt.want {
			t.Errorf("Summary:\n got %s\nwant %s", got, tt.want)
		}
	}
}
