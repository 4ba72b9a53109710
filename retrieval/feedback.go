package retrieval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/google/uuid"
	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
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

// FeedbackLog is the Weaviate collection of votes ("Feedback", or
// <chunk collection>Feedback beside a custom chunk collection). It has no
// vectors. It is safe for concurrent use.
type FeedbackLog struct {
	client *weaviate.Client
	class  string
}

// OpenFeedback returns the feedback collection that goes with the store's
// chunk collection, creating it if missing.
func (s *Store) OpenFeedback(ctx context.Context) (*FeedbackLog, error) {
	name := "Feedback"
	if s.chunk != "Chunk" {
		name = s.chunk + "Feedback"
	}
	l := &FeedbackLog{client: s.client, class: name}
	sc := s.client.Schema()
	if _, err := sc.ClassGetter().WithClassName(name).Do(ctx); isNotFound(err) {
		if err := sc.ClassCreator().WithClass(feedbackClass(name)).Do(ctx); err != nil {
			return nil, fmt.Errorf("weaviate: create collection %s: %w", name, describe(err))
		}
	} else if err != nil {
		return nil, fmt.Errorf("weaviate: read collection %s: %w", name, describe(err))
	}
	return l, nil
}

// Class is the name of the collection.
func (l *FeedbackLog) Class() string { return l.class }

func feedbackClass(name string) *models.Class {
	field := func(n string) *models.Property {
		return &models.Property{Name: n, DataType: []string{"text"}, Tokenization: tokField}
	}
	return &models.Class{
		Class:       name,
		Description: "ragbot votes on answers",
		Vectorizer:  "none",
		Properties: []*models.Property{
			{Name: "question", DataType: []string{"text"}, Tokenization: tokWord},
			// citations is readable ("path:start-end@commit7"); shown_json keeps
			// every field for `ragbot feedback export`.
			{Name: "citations", DataType: []string{"text[]"}, Tokenization: tokField},
			{Name: "shown_json", DataType: []string{"text"}, IndexFilterable: boolp(false), IndexSearchable: boolp(false)},
			field("vote"), field("user"), field("channel"), field("message_ts"),
			{Name: "time", DataType: []string{"date"}},
		},
	}
}

// Put stores a vote, replacing the same reader's earlier vote on the same answer.
func (l *FeedbackLog) Put(ctx context.Context, f Feedback) error {
	if err := f.Validate(); err != nil {
		return err
	}
	shown, err := json.Marshal(f.Shown)
	if err != nil {
		return fmt.Errorf("feedback: %w", err)
	}
	cites := make([]string, len(f.Shown))
	for i, c := range f.Shown {
		cites[i] = c.String()
	}
	obj := &models.Object{Class: l.class, ID: strfmt.UUID(f.ID()), Properties: map[string]any{
		"question": f.Question, "citations": cites, "shown_json": string(shown), "vote": string(f.Vote),
		"user": f.User, "channel": f.Channel, "message_ts": f.MessageTS, "time": f.Time.UTC().Format(time.RFC3339Nano),
	}}
	resp, err := l.client.Batch().ObjectsBatcher().WithObjects(obj).Do(ctx)
	if err == nil {
		err = batchErrors(resp)
	}
	if err != nil {
		return fmt.Errorf("weaviate: store feedback on %s/%s: %w", f.Channel, f.MessageTS, describe(err))
	}
	return nil
}

// List returns every stored vote, oldest first. It walks the collection with
// the cursor API, 1,000 objects a page.
func (l *FeedbackLog) List(ctx context.Context) ([]Feedback, error) {
	fields := []graphql.Field{{Name: "question"}, {Name: "shown_json"}, {Name: "vote"}, {Name: "user"},
		{Name: "channel"}, {Name: "message_ts"}, {Name: "time"}, {Name: "_additional { id }"}}
	type row struct {
		Question   string `json:"question"`
		Shown      string `json:"shown_json"`
		Vote       string `json:"vote"`
		User       string `json:"user"`
		Channel    string `json:"channel"`
		MessageTS  string `json:"message_ts"`
		Time       string `json:"time"`
		Additional struct {
			ID string `json:"id"`
		} `json:"_additional"`
	}
	var out []Feedback
	err := eachPage(ctx, l.client, l.class, fields, 1000, func(r row) string { return r.Additional.ID }, func(rows []row) error {
		for _, r := range rows {
			f := Feedback{Question: r.Question, Vote: Vote(r.Vote), User: r.User, Channel: r.Channel, MessageTS: r.MessageTS}
			f.Time, _ = time.Parse(time.RFC3339Nano, r.Time)
			if err := json.Unmarshal([]byte(r.Shown), &f.Shown); err != nil {
				return fmt.Errorf("feedback %s: shown_json: %w", r.Additional.ID, err)
			}
			out = append(out, f)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("weaviate: list feedback: %w", err)
	}
	sortFeedback(out)
	return out, nil
}

// sortFeedback orders votes by time, then channel, message and user, so that
// an export is reproducible.
func sortFeedback(fs []Feedback) {
	key := func(f Feedback) string { return f.Channel + "|" + f.MessageTS + "|" + f.User }
	slices.SortFunc(fs, func(a, b Feedback) int {
		if c := a.Time.Compare(b.Time); c != 0 {
			return c
		}
		return strings.Compare(key(a), key(b))
	})
}

// Drop deletes the collection (tests use it to clean up).
func (l *FeedbackLog) Drop(ctx context.Context) error {
	if err := l.client.Schema().ClassDeleter().WithClassName(l.class).Do(ctx); err != nil && !isNotFound(err) {
		return fmt.Errorf("weaviate: delete collection %s: %w", l.class, describe(err))
	}
	return nil
}
