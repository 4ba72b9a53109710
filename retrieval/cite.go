package retrieval

import (
	"strconv"
	"strings"
)

// SourceName is the configured name in the citation's source id
// ("docs:handbook" -> "handbook", "repo:payments" -> "payments").
func (c Citation) SourceName() string {
	if _, name, ok := strings.Cut(c.Source, ":"); ok {
		return name
	}
	return c.Source
}

// Where names the snippet's file as a citation heads it: the path, and for
// a doc snippet the source name before it ("handbook: docs/README.md"), so
// that a docs folder's README.md is not taken for the repository's.
func (s Snippet) Where() string {
	if s.Kind == KindDoc && s.Source != "" {
		return s.SourceName() + ": " + s.Path
	}
	return s.Path
}

// Lines is the snippet's line range as a citation gives it: "10-24" ("10"
// for one line, as a usage answer's sites are), or for
// a focused snippet (ShownStart set) the shown window within the chunk's
// range, "88-117 of 1-120".
func (s Snippet) Lines() string {
	r := strconv.Itoa(s.StartLine) + "-" + strconv.Itoa(s.EndLine)
	if s.StartLine == s.EndLine && s.ShownStart == 0 {
		return strconv.Itoa(s.StartLine)
	}
	if s.ShownStart > 0 {
		return strconv.Itoa(s.ShownStart) + "-" + strconv.Itoa(s.ShownEnd) + " of " + r
	}
	return r
}

// Label is Where and Lines, the plain text of a citation's head:
// "internal/retry.go:10-24", "handbook: docs/README.md:3-5",
// "svc/reconcile.go:62-90 of 1-120". Surfaces escape it.
func (s Snippet) Label() string { return s.Where() + ":" + s.Lines() }
