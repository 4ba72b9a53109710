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
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// FeedbackLog is the Weaviate collection of votes ("Feedback", or
// <chunk collection>Feedback beside a custom chunk collection). It has no
// vectors. It is safe for concurrent use.
type FeedbackLog struct{ userLog }

// userLog is what the collections of chat data (votes, thread turns)
// share: their objects carry a "user" (text or text[], field tokenization)
// and a "time", so a person's data is erased, and old data expired, alike.
type userLog struct {
	client *weaviate.Client
	class  string
	cl     string // consistency level of writes, the store's
	what   string // the data, for errors: "feedback", "turns"
}

// OpenFeedback returns the feedback collection that goes with the store's
// chunk collection, creating it if missing.
func (s *Store) OpenFeedback(ctx context.Context) (*FeedbackLog, error) {
	name := companion(s.chunk, "Feedback")
	l := &FeedbackLog{userLog{client: s.client, class: name, cl: s.cl, what: "feedback"}}
	if _, err := s.ensureClass(ctx, feedbackClass(name)); err != nil {
		return nil, err
	}
	return l, nil
}

// Class is the name of the collection.
func (l *userLog) Class() string { return l.class }

func feedbackClass(name string) *models.Class {
	field := func(n string) *models.Property { return fieldProp(n, "text") }
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
	err = putObject(ctx, l.client, l.class, l.cl, f.ID(), map[string]any{
		"question": f.Question, "citations": cites, "shown_json": string(shown), "vote": string(f.Vote),
		"user": f.User, "channel": f.Channel, "message_ts": f.MessageTS, "time": f.Time.UTC().Format(time.RFC3339Nano),
	})
	if err != nil {
		return fmt.Errorf("weaviate: store feedback on %s/%s: %w", f.Channel, f.MessageTS, err)
	}
	return nil
}

// putObject writes (or replaces) the object id of class with props, as a
// batch of one (a FAILED reply is an error), at consistency level.
func putObject(ctx context.Context, client *weaviate.Client, class, level, id string, props map[string]any) error {
	obj := &models.Object{Class: class, ID: strfmt.UUID(id), Properties: props}
	resp, err := client.Batch().ObjectsBatcher().WithObjects(obj).WithConsistencyLevel(level).Do(ctx)
	if err == nil {
		err = batchErrors(resp)
	}
	return describe(err)
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
func (l *userLog) Drop(ctx context.Context) error {
	return dropClasses(ctx, l.client, l.class)
}

// DeleteUser deletes every object (vote, turn) of the chat user id (Slack
// "U0123", a Teams user id) and returns how many it deleted; with dryRun it
// only counts them. Both hold the question as asked, so this is how a
// person's stored questions are erased.
func (l *userLog) DeleteUser(ctx context.Context, user string, dryRun bool) (int, error) {
	where := filters.Where().WithPath([]string{"user"}).WithOperator(filters.ContainsAny).WithValueText(user)
	n, err := l.deleteWhere(ctx, where, dryRun)
	if err != nil {
		return n, fmt.Errorf("%s of user %s: %w", l.what, user, err)
	}
	return n, nil
}

// DeleteBefore deletes the objects (votes, turns) made before cutoff (the
// retention job: cutoff is now minus feedback.retention) and returns how
// many; with dryRun it only counts them.
func (l *userLog) DeleteBefore(ctx context.Context, cutoff time.Time, dryRun bool) (int, error) {
	where := filters.Where().WithPath([]string{"time"}).WithOperator(filters.LessThan).WithValueDate(cutoff.UTC())
	n, err := l.deleteWhere(ctx, where, dryRun)
	if err != nil {
		return n, fmt.Errorf("%s before %s: %w", l.what, cutoff.UTC().Format(time.RFC3339), err)
	}
	return n, nil
}

// DeleteCiting deletes the votes on answers that showed a citation cites
// accepts (the chunks `ragbot forget` removes) and returns how many; with
// dryRun it only counts them. It reads every vote (List), since the shown
// citations are stored as JSON, which Weaviate cannot filter.
func (l *FeedbackLog) DeleteCiting(ctx context.Context, cites func(retrieval.ShownCitation) bool, dryRun bool) (int, error) {
	all, err := l.List(ctx)
	if err != nil {
		return 0, err
	}
	var ids []string
	for _, f := range all {
		if slices.ContainsFunc(f.Shown, cites) {
			ids = append(ids, f.ID())
		}
	}
	if dryRun || len(ids) == 0 {
		return len(ids), nil
	}
	n, err := deleteIDs(ctx, l.client, l.class, l.cl, ids)
	if err != nil {
		return n, fmt.Errorf("feedback citing forgotten chunks: %w", err)
	}
	return n, nil
}

// Count returns how many objects (votes, turns) are stored.
func (l *userLog) Count(ctx context.Context) (int, error) {
	return countWhere(ctx, l.client, l.class, nil)
}

// deleteWhere deletes (or, with dryRun, counts) the objects where matches.
func (l *userLog) deleteWhere(ctx context.Context, where *filters.WhereBuilder, dryRun bool) (int, error) {
	if dryRun {
		return countWhere(ctx, l.client, l.class, where)
	}
	return deleteAll(ctx, l.client, l.class, l.cl, where)
}

// countWhere is the Aggregate meta count of the objects of class that
// where matches (all of them when where is nil).
func countWhere(ctx context.Context, client *weaviate.Client, class string, where *filters.WhereBuilder) (int, error) {
	agg := client.GraphQL().Aggregate().WithClassName(class).WithFields(graphql.Field{Name: "meta { count }"})
	if where != nil {
		agg = agg.WithWhere(where)
	}
	resp, err := gqlResult(agg.Do(ctx))
	if err != nil {
		return 0, fmt.Errorf("weaviate: count %s: %w", class, describe(err))
	}
	return aggregateCount(resp.Data, class), nil
}
