package ingest

import (
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
)

// RedactCounts counts the secrets an index run redacted, by gitleaks rule
// id ("generic-api-key": 39). It covers the files and pages the run read
// (an incremental run reads only the changed ones), not the whole index;
// nil when the run redacted nothing.
type RedactCounts map[string]int

// Total is the number of secrets redacted, over all rules.
func (c RedactCounts) Total() int {
	n := 0
	for _, v := range c {
		n += v
	}
	return n
}

// String says how many secrets were redacted and by which rules, most
// found first (ties by rule id): "122 secrets redacted: private-key 69,
// generic-api-key 39, jwt 14"; "" for none.
func (c RedactCounts) String() string {
	total := c.Total()
	if total == 0 {
		return ""
	}
	ids := slices.SortedFunc(maps.Keys(c), func(a, b string) int {
		if c[a] != c[b] {
			return c[b] - c[a]
		}
		return strings.Compare(a, b)
	})
	parts := make([]string, 0, len(ids))
	for _, id := range ids {
		if c[id] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", id, c[id]))
		}
	}
	noun := "secrets"
	if total == 1 {
		noun = "secret"
	}
	return fmt.Sprintf("%d %s redacted: %s", total, noun, strings.Join(parts, ", "))
}

// add counts rs.
func (c *RedactCounts) add(rs []Redaction) {
	if len(rs) == 0 {
		return
	}
	if *c == nil {
		*c = RedactCounts{}
	}
	for _, r := range rs {
		(*c)[r.Rule]++
	}
}

// redactListHint is what the summary line of a run's redactions says
// lists them one by one: debug level, and --full to read again the files
// and pages that an incremental run would skip as unchanged.
const redactListHint = "ragbot index -v --full lists them"

// logRedactions logs each redaction at debug level: path, line and rule,
// never the secret. logRedacted says the total once per run.
func logRedactions(log *slog.Logger, rs []Redaction) {
	for _, r := range rs {
		log.Debug("secret redacted", "path", r.Path, "line", r.Line, "rule", r.Rule)
	}
}

// logRedacted logs the one line of a run about the secrets it redacted
// (none when it redacted none), at warn level: a secret committed to a
// repository or written on a page is someone's to rotate, and its snippets
// show a marker instead. The line names no path; logRedactions' debug lines do.
func logRedacted(log *slog.Logger, c RedactCounts) {
	if c.Total() > 0 {
		log.Warn(c.String() + "; " + redactListHint)
	}
}

// RedactedNote is what an index run's summary line says of the secrets it
// redacted: "" for none, else ", 1 secret redacted" or ", N secrets
// redacted".
func RedactedNote(n int) string {
	switch n {
	case 0:
		return ""
	case 1:
		return ", 1 secret redacted"
	}
	return fmt.Sprintf(", %d secrets redacted", n)
}
