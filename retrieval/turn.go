package retrieval

import (
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
)

// A Turn is one question the bot answered in a chat thread whose earlier
// messages the platform will not let it read (a Teams channel thread): what
// was asked and what the answer showed, kept so that a follow-up in the
// same thread can be widened with it (bot.FollowUp), for as long as votes
// are kept (feedback.retention).
type Turn struct {
	// Thread identifies the thread: the Teams conversation id with its
	// ";messageid=<root>" reply chain.
	Thread    string
	MessageID string          // id of the question's message
	Users     []string        // the asker's ids (Teams from.id and from.aadObjectId), for `ragbot forget --user`
	Asked     string          // the question as written
	Shown     []ShownCitation // what the answer showed, best first
	Time      time.Time       // when it was answered
}

// ID is the Weaviate object id of the turn: the UUIDv5 of
// "turn|thread|message", so an answer given again (a redelivery) replaces it.
func (t Turn) ID() string {
	return uuid.NewSHA1(idNamespace, []byte("turn|"+t.Thread+"|"+t.MessageID)).String()
}

// Validate reports missing fields.
func (t Turn) Validate() error {
	var errs []error
	for _, r := range []struct{ name, v string }{{"thread", t.Thread}, {"message_id", t.MessageID}, {"asked", t.Asked}} {
		if r.v == "" {
			errs = append(errs, fmt.Errorf("%s: must not be empty", r.name))
		}
	}
	if len(t.Users) == 0 {
		errs = append(errs, errors.New("users: must not be empty"))
	}
	if t.Time.IsZero() {
		errs = append(errs, errors.New("time: must be set"))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("turn %s in %s: %w", t.MessageID, t.Thread, err)
	}
	return nil
}
