package ingest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/ragbot/ragbot/internal/humanize"
)

// Summary is the one-line summary `ragbot index` prints for the run of
// source name (its configured name): "name@branch (abc1234) incremental:
// N files, N chunks (... embedded, ... reused, ... unchanged, ... deleted),
// skipped ..., line windows ...", with ", N secrets redacted" when the run
// redacted any (RedactedNote), ", N without semantic vectors (next run)"
// when its semantic embedder failed (Stats.Pending), or ", N semantic
// vectors to fill" when they were deferred (Stats.Deferred), the Go type
// resolution's cost (Stats.Types: ", types 7.2s rss 390 MB, 1 modules, 24053 calls"), and the duration in seconds; shorter for an
// up-to-date source or a removed branch. Commit, when set, is a full SHA.
func (s Stats) Summary(name string) string {
	where := name
	if s.Branch != "" {
		where += "@" + s.Branch
	}
	if s.Removed != "" { // BranchUntracked, BranchGone
		return fmt.Sprintf("%s: %s: %s deleted", where, s.Removed, humanize.Plural(s.Deleted, "chunk"))
	}
	if s.Commit != "" {
		where += " (" + s.Commit[:7] + ")"
	}
	if s.UpToDate {
		return fmt.Sprintf("%s: up to date, %d files, %d chunks (%.1fs)", where, s.Files, s.Chunks, s.Duration.Seconds())
	}
	if s.Mode == ModeIncremental {
		where += " incremental"
	}
	red := RedactedNote(s.Redacted.Total()) // "" without secrets: the line's shape stays
	switch {
	case s.Pending > 0 && s.Deferred:
		red += fmt.Sprintf(", %d semantic vectors to fill", s.Pending)
	case s.Pending > 0:
		red += fmt.Sprintf(", %d without semantic vectors (next run)", s.Pending)
	}
	if s.Types != "" {
		red += ", " + s.Types
	}
	return fmt.Sprintf("%s: %d files, %d chunks (%d embedded, %d reused, %d unchanged, %d deleted), skipped %s, line windows %s%s, %.1fs",
		where, s.Files, s.Chunks, s.Embedded, s.Reused, s.Kept, s.Deleted, counts(s.Skipped), counts(s.Fallback), red, s.Duration.Round(100*time.Millisecond).Seconds())
}

// counts renders {"binary":2,"vendored":1} as "3 (binary 2, vendored 1)",
// and an empty or all-zero map as "0".
func counts(m map[string]int) string {
	total := 0
	var parts []string
	for k, v := range m {
		total += v
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	if total == 0 {
		return "0"
	}
	sort.Strings(parts)
	return fmt.Sprintf("%d (%s)", total, strings.Join(parts, ", "))
}
