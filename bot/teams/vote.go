package teams

import (
	"cmp"
	"context"
	"encoding/json"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

// voteAction marks the Action.Submit data of our vote buttons.
const voteAction = "ragbot.vote"

// voteData is what a vote button carries and Teams posts back as the
// activity's value: the question searched and the citations shown, so the
// click alone is a complete feedback record. "Show all N uses" carries
// bot.UsageAllAction and the question only.
type voteData struct {
	Action string                    `json:"action"` // voteAction or bot.UsageAllAction
	Vote   retrieval.Vote            `json:"vote"`
	Q      string                    `json:"q"`
	C      []retrieval.ShownCitation `json:"c"`
}

// voteActions are 👍/👎 under an answer.
func voteActions(question string, snips []retrieval.Snippet) []action {
	d := voteData{Action: voteAction, Q: bot.Cut(question, 1000), C: retrieval.Shown(snips)}
	up, down := d, d
	up.Vote, down.Vote = retrieval.VoteUp, retrieval.VoteDown
	return []action{
		{Type: "Action.Submit", Title: "👍 Helpful", Data: up},
		{Type: "Action.Submit", Title: "👎 Not helpful", Data: down},
	}
}

// submit handles a card button click (a message activity with a value). It
// reports whether a vote or "Show all N uses" was taken; the work runs in
// the background.
func (b *Bot) submit(a *Activity, t bot.Thread) bool {
	var v voteData
	if err := json.Unmarshal(a.Value, &v); err != nil || v.Action != voteAction && v.Action != bot.UsageAllAction {
		b.log.Debug("card submit ignored", "activity_id", a.ID, "channel", t.Channel)
		return false
	}
	b.refs.put(t, a.ServiceURL, a.Conversation.ID, nil)
	if v.Action == bot.UsageAllAction {
		personal := a.Conversation.ConversationType == convPersonal
		return b.core.Go(func(ctx context.Context) { b.showAll(ctx, t, a.From.ID, personal, v.Q) })
	}
	answerID := cmp.Or(a.ReplyToID, a.ID) // the message holding the card
	personal := a.Conversation.ConversationType == convPersonal
	return b.core.Go(func(ctx context.Context) { b.vote(ctx, t, a.From.ID, answerID, personal, v) })
}

// vote stores a vote. Teams has no private replies in channels, so the
// voter is thanked only in a personal chat; a vote that could not be stored
// is said in the thread.
func (b *Bot) vote(ctx context.Context, t bot.Thread, user, answerID string, personal bool, v voteData) {
	log := b.log.With("channel", t.Channel, "answer_id", answerID, "user", user, "vote", v.Vote)
	var reply string
	f := retrieval.Feedback{Question: v.Q, Shown: v.C, Vote: v.Vote, User: user, Channel: t.Channel, MessageTS: answerID, Time: b.cfg.Now()}
	switch err := f.Validate(); {
	case b.cfg.Feedback == nil:
		reply = "Feedback is not enabled on this ragbot."
	case err != nil:
		log.Warn("vote not recorded", "err", err)
		reply = "Sorry, I couldn't read that vote."
	default:
		if err := b.cfg.Feedback.Put(ctx, f); err != nil {
			log.Error("vote not recorded", "err", err)
			reply = "Sorry, I couldn't record your vote right now."
			break
		}
		log.Info("vote recorded", "citations", len(v.C))
		if personal {
			reply = "Thanks! Your vote was recorded."
		}
	}
	if reply == "" {
		return
	}
	if _, err := b.post(ctx, t, "", plainActivity(reply)); err != nil {
		log.Warn("answer the voter", "err", err)
	}
}
