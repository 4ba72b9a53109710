package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

// Feedback is the "feedback" section: how long the votes cast under answers
// (the Weaviate collection Feedback: question, user id, channel, vote, time)
// are kept.
//
//	feedback:
//	  retention: 180d
type Feedback struct {
	// Retention is how long a vote is kept after it was cast: `ragbot serve`
	// deletes older ones at start and then daily. A Go duration or whole
	// days or weeks ("4320h", "180d", "26w"); default DefaultFeedbackRetention.
	Retention string `yaml:"retention"`
	// RetentionDuration is Retention parsed by Load.
	RetentionDuration time.Duration `yaml:"-"`
}

// DefaultFeedbackRetention is feedback.retention when unset: 180 days, long
// enough to turn a half-year of votes into eval questions
// (`ragbot feedback export`), short enough not to keep what people asked
// for ever.
const DefaultFeedbackRetention = "180d"

// MinFeedbackRetention is the shortest feedback.retention: a day, the
// period of the retention job.
const MinFeedbackRetention = 24 * time.Hour

// feedback checks feedback.retention and fills RetentionDuration.
func (v *validator) feedback() {
	d, err := ParseTTL(v.c.Feedback.Retention)
	switch {
	case err != nil:
		v.bad("feedback.retention", "%v", err)
	case d < MinFeedbackRetention:
		v.bad("feedback.retention", "must be at least 24h (the retention job runs daily), got %q", v.c.Feedback.Retention)
	default:
		v.c.Feedback.RetentionDuration = d
	}
}

// IsGlob reports whether an include or exclude entry is a glob pattern
// (holds one of * ? [ {) rather than a path prefix.
func IsGlob(entry string) bool { return strings.ContainsAny(entry, "*?[{") }

// excludes checks the exclude entries of sources[i] (p is "sources[i]"):
// in git and markdown sources a glob must parse (the syntax of
// github.com/bmatcuk/doublestar/v4, where ** spans folders); html sources
// take path prefixes only.
func (v *validator) excludes(p string, s Source) {
	for j, e := range s.Exclude {
		switch {
		case !IsGlob(e):
		case s.Kind != KindGit && s.Kind != KindMarkdown:
			v.bad(fmt.Sprintf("%s.exclude[%d]", p, j), "%s sources take path prefixes, not globs, got %q", s.Kind, e)
		case !doublestar.ValidatePattern(e):
			v.bad(fmt.Sprintf("%s.exclude[%d]", p, j), "not a valid glob: %q", e)
		}
	}
}
