package weaviate

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-openapi/strfmt"
	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// FeedbackLog is the Weaviate collection of votes ("Feedback", or
// <chunk collection>Feedback beside a custom chunk collection). It has no
// vectors. It is safe for concurrent use.
type FeedbackLog struct {
	client *weaviate.Client
	class  string
	cl     string // consistency level of writes, the store's
}

// OpenFeedback returns the feedback collection that goes with the store's
// chunk collection, creating it if missing.
func (s *Store) OpenFeedback(ctx context.Context) (*FeedbackLog, error) {
	name := "Feedback"
	if s.chunk != "Chunk" {
		name = s.chunk + "Feedback"
	}
	l := &FeedbackLog{client: s.client, class: name, cl: s.cl}
	if err := s.ensureClass(ctx, feedbackClass(name)); err != nil {
		return nil, err
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
func (l *FeedbackLog) Put(ctx context.Context, f retrieval.Feedback) error {
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
	resp, err := l.client.Batch().ObjectsBatcher().WithObjects(obj).WithConsistencyLevel(l.cl).Do(ctx)
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
func (l *FeedbackLog) List(ctx context.Context) ([]retrieval.Feedback, error) {
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
	var out []retrieval.Feedback
	err := eachPage(ctx, l.client, l.class, fields, 1000, func(r row) string { return r.Additional.ID }, func(rows []row) error {
		for _, r := range rows {
			f := retrieval.Feedback{Question: r.Question, Vote: retrieval.Vote(r.Vote), User: r.User, Channel: r.Channel, MessageTS: r.MessageTS}
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
func sortFeedback(fs []retrieval.Feedback) {
	key := func(f retrieval.Feedback) string { return f.Channel + "|" + f.MessageTS + "|" + f.User }
	slices.SortFunc(fs, func(a, b retrieval.Feedback) int {
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
