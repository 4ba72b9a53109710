package retrieval

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// Vote is a reader's verdict on one answer.
type Vote string

// Votes.
const (
	VoteUp   Vote = "up"   // the answer helped
	VoteDown Vote = "down" // it did not
)

// A Feedback is one reader's vote on one answer. A reader who votes again on
// the same answer replaces their vote (see ID).
type Feedback struct {
	Question  string          // the question as searched (a follow-up includes its thread's terms)
	Shown     []ShownCitation // the snippets the answer showed, best first
	Vote      Vote
	User      string    // chat user id, e.g. Slack "U0123"
	Channel   string    // chat channel id
	MessageTS string    // id of the answer message (Slack ts)
	Time      time.Time // when the vote was cast
}

// A ShownCitation is a citation as an answer showed it: what a vote turns
// into an eval expectation.
type ShownCitation struct {
	Source    string `json:"source"` // "repo:payments"
	Path      string `json:"path"`
	StartLine int    `json:"start_line"` // 1-based, inclusive
	EndLine   int    `json:"end_line"`
	CommitSHA string `json:"commit,omitempty"`
	Symbol    string `json:"symbol,omitempty"`
}

// Shown returns the citations of snips, in order: what an answer showed.
func Shown(snips []Snippet) []ShownCitation {
	out := make([]ShownCitation, len(snips))
	for i, s := range snips {
		out[i] = ShownCitation{Source: s.Source, Path: s.Path, StartLine: s.StartLine, EndLine: s.EndLine, CommitSHA: s.CommitSHA, Symbol: s.Symbol}
	}
	return out
}

// String renders the citation as "path:start-end@commit7".
func (c ShownCitation) String() string {
	s := fmt.Sprintf("%s:%d-%d", c.Path, c.StartLine, c.EndLine)
	if c.CommitSHA != "" {
		s += "@" + Citation{CommitSHA: c.CommitSHA}.ShortCommit()
	}
	return s
}

// ID is the Weaviate object id of the vote: the UUIDv5 of
// "feedback|channel|message_ts|user", so one reader has one vote per answer.
func (f Feedback) ID() string {
	return uuid.NewSHA1(idNamespace, []byte("feedback|"+f.Channel+"|"+f.MessageTS+"|"+f.User)).String()
}

// Validate reports missing fields and an unknown vote.
func (f Feedback) Validate() error {
	var errs []error
	if f.Vote != VoteUp && f.Vote != VoteDown {
		errs = append(errs, fmt.Errorf("vote: got %q, want up or down", f.Vote))
	}
	for _, r := range []struct{ name, v string }{{"question", f.Question}, {"user", f.User}, {"channel", f.Channel}, {"message_ts", f.MessageTS}} {
		if r.v == "" {
			errs = append(errs, fmt.Errorf("%s: must not be empty", r.name))
		}
	}
	if f.Time.IsZero() {
		errs = append(errs, errors.New("time: must be set"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("feedback on %s/%s by %s: %w", f.Channel, f.MessageTS, f.User, err)
	}
	return nil
}
