package weaviate

import (
	"context"
	"fmt"
	"time"

	"github.com/ragbot/ragbot/retrieval"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/filters"
	"github.com/weaviate/weaviate-go-client/v4/weaviate/graphql"
	"github.com/weaviate/weaviate/entities/models"
)

// Turns is the Weaviate collection of the questions answered in chat
// threads the bot cannot read back (retrieval.Turn): "Turn", or <chunk
// collection>Turn beside a custom chunk collection. It has no vectors; it
// is shared by every serve replica and survives restarts. Its DeleteUser
// and DeleteBefore are `ragbot forget --user` and the retention job. It is
// safe for concurrent use.
type Turns struct {
	userLog
	gql string // consistency level of reads (Store.gqlLevel)
}

// maxTurns bounds the turns Earlier returns for one thread: a thread with
// more questions to the bot than that is not a conversation any more.
const maxTurns = 100

// OpenTurns returns the turn collection that goes with the store's chunk
// collection, creating it if missing.
func (s *Store) OpenTurns(ctx context.Context) (*Turns, error) {
	name := companion(s.chunk, "Turn")
	class := &models.Class{Class: name, Description: "ragbot questions answered in chat threads", Vectorizer: "none",
		Properties: []*models.Property{
			fieldProp("thread", "text"), fieldProp("message_id", "text"), fieldProp("user", "text[]"), fieldProp("citations", "text[]"),
			{Name: "asked", DataType: []string{"text"}, IndexFilterable: boolp(false), IndexSearchable: boolp(false)},
			{Name: "time", DataType: []string{"date"}},
		}}
	if _, err := s.ensureClass(ctx, class); err != nil {
		return nil, err
	}
	return &Turns{userLog: userLog{client: s.client, class: name, cl: s.cl, what: "turns"}, gql: s.gqlLevel()}, nil
}

// Put stores a turn, replacing the one of the same thread and message.
func (l *Turns) Put(ctx context.Context, t retrieval.Turn) error {
	if err := t.Validate(); err != nil {
		return err
	}
	cites := make([]string, len(t.Shown))
	for i, c := range t.Shown {
		cites[i] = c.String()
	}
	err := putObject(ctx, l.client, l.class, l.cl, t.ID(), map[string]any{
		"thread": t.Thread, "message_id": t.MessageID, "user": t.Users, "citations": cites, "asked": t.Asked,
		"time": t.Time.UTC().Format(time.RFC3339Nano),
	})
	if err != nil {
		return fmt.Errorf("weaviate: store turn %s in %s: %w", t.MessageID, t.Thread, err)
	}
	return nil
}

// Earlier returns the turns of thread, oldest first, at most maxTurns,
// with Thread, MessageID, Asked and Time set.
func (l *Turns) Earlier(ctx context.Context, thread string) ([]retrieval.Turn, error) {
	where := filters.Where().WithPath([]string{"thread"}).WithOperator(filters.Equal).WithValueText(thread)
	resp, err := gqlResult(l.client.GraphQL().Get().WithClassName(l.class).WithWhere(where).WithConsistencyLevel(l.gql).
		WithSort(graphql.Sort{Path: []string{"time"}, Order: graphql.Asc}).WithLimit(maxTurns).
		WithFields(graphql.Field{Name: "message_id"}, graphql.Field{Name: "asked"}, graphql.Field{Name: "time"}).Do(ctx))
	type row struct {
		MessageID string `json:"message_id"`
		Asked     string `json:"asked"`
		Time      string `json:"time"`
	}
	var rows []row
	if err == nil {
		rows, err = decodeGet[row](resp, l.class)
	}
	if err != nil {
		return nil, fmt.Errorf("weaviate: turns of %s: %w", thread, describe(err))
	}
	out := make([]retrieval.Turn, len(rows))
	for i, r := range rows {
		out[i] = retrieval.Turn{Thread: thread, MessageID: r.MessageID, Asked: r.Asked}
		out[i].Time, _ = time.Parse(time.RFC3339Nano, r.Time)
	}
	return out, nil
}
