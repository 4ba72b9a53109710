package slack

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

// interact handles block_actions: votes, "Share in channel" and "Show all N
// uses". The work runs in the background; the transport acks right after.
func (b *Bot) interact(cb slackgo.InteractionCallback) {
	if cb.Type != slackgo.InteractionTypeBlockActions {
		return
	}
	for _, a := range cb.ActionCallback.BlockActions {
		switch a.ActionID {
		case actionUp, actionDown:
			vote := retrieval.VoteUp
			if a.ActionID == actionDown {
				vote = retrieval.VoteDown
			}
			value := a.Value
			b.core.Go(func(ctx context.Context) { b.vote(ctx, cb, vote, value) })
		case actionShare:
			q := a.Value
			b.core.Go(func(ctx context.Context) { b.share(ctx, cb, q) })
		case actionUsageAll:
			q := a.Value
			b.core.Go(func(ctx context.Context) { b.showAll(ctx, cb, q) })
		}
	}
}

// vote stores a click on 👍/👎 and thanks the voter privately.
func (b *Bot) vote(ctx context.Context, cb slackgo.InteractionCallback, vote retrieval.Vote, value string) {
	channel, ts := cmp.Or(cb.Channel.ID, cb.Container.ChannelID), cmp.Or(cb.Container.MessageTs, cb.Message.Timestamp)
	log := b.log.With("channel", channel, "message_ts", ts, "user", cb.User.ID, "vote", vote)
	reply := "Thanks! Your vote was recorded."
	v, err := decodeVote(value)
	switch {
	case b.cfg.Feedback == nil:
		reply = "Feedback is not enabled on this ragbot."
	case err != nil:
		log.Warn("vote not recorded", "err", err)
		reply = "Sorry, I couldn't read that vote."
	default:
		f := retrieval.Feedback{Question: v.Q, Shown: v.C, Vote: vote, User: cb.User.ID, Channel: channel, MessageTS: ts, Time: b.cfg.Now()}
		if err := b.cfg.Feedback.Put(ctx, f); err != nil {
			log.Error("vote not recorded", "err", err)
			reply = "Sorry, I couldn't record your vote right now: the index is unavailable."
		} else {
			log.Info("vote recorded", "citations", len(v.C))
		}
	}
	msg := &slackgo.WebhookMessage{ResponseType: slackgo.ResponseTypeEphemeral, Text: reply}
	if err := b.respond(ctx, cb.ResponseURL, msg); err != nil {
		log.Warn("thank the voter", "err", err)
	}
}

// share posts a /where-is list in the channel for everyone, searched again
// with the channel's access, and deletes the private copy.
func (b *Bot) share(ctx context.Context, cb slackgo.InteractionCallback, q string) {
	channel := cmp.Or(cb.Channel.ID, cb.Container.ChannelID)
	log := b.log.With("channel", channel, "user", cb.User.ID)
	msg := b.whereIsMessage(ctx, channel, cb.User.ID, q, cb.User.ID)
	if msg.Blocks == nil { // unavailable, or no sources: tell the user only
		msg.ResponseType = slackgo.ResponseTypeEphemeral
		if err := b.respond(ctx, cb.ResponseURL, msg); err != nil {
			log.Warn("share", "err", err)
		}
		return
	}
	msg.ResponseType = slackgo.ResponseTypeInChannel
	if err := b.respond(ctx, cb.ResponseURL, msg); err != nil {
		log.Error("share /where-is list", "err", err)
		return
	}
	if err := b.respond(ctx, cb.ResponseURL, &slackgo.WebhookMessage{DeleteOriginal: true}); err != nil {
		log.Warn("delete the private list after sharing", "err", err)
	}
}

// maxAllText bounds the sections of a showAll reply, in bytes: the same
// budget as an answer's code (codeBudget).
const maxAllText = codeBudget

// showAll answers "Show all N uses" with an ephemeral message (only the
// clicker sees it, through response_url: Slack API docs, "Handling user
// interaction", message responses with response_type ephemeral) listing every
// use of the usage question q, asked again with the channel's access, one
// citation line each, in sections of at most maxSectionText bytes; past
// maxAllText the rest are counted.
func (b *Bot) showAll(ctx context.Context, cb slackgo.InteractionCallback, q string) {
	channel := cmp.Or(cb.Channel.ID, cb.Container.ChannelID)
	log := b.log.With("channel", channel, "user", cb.User.ID)
	msg := &slackgo.WebhookMessage{ResponseType: slackgo.ResponseTypeEphemeral, Text: noSourcesText}
	switch ans, ok, err := b.cfg.Access.AskUses(ctx, b.cfg.Answerer, q, channel, cb.User.ID, false); {
	case !ok:
	case err != nil:
		log.Error("show all uses: search failed", "err", err)
		msg.Text = unavailableText("")
	case ans.Usage == nil:
		msg.Text = bot.NotUsageText
	default:
		msg.Text, msg.Blocks = escape(ans.Usage.Title()), &slackgo.Blocks{BlockSet: allUses(ans)}
	}
	if err := b.respond(ctx, cb.ResponseURL, msg); err != nil {
		log.Warn("show all uses", "err", err)
	}
}

// allUses lists a usage answer's definitions and sites under its title.
func allUses(ans retrieval.Answer) []slackgo.Block {
	blocks := []slackgo.Block{mrkdwnContext(":mag: " + escape(ans.Usage.Title()))}
	lines, more := bot.UseLines(ans, maxAllText, func(s retrieval.Snippet) string { return link(s.URL, s.Label()) },
		func(sym string) string { return inlineCode(cutBytes(sym, 150)) })
	if more > 0 {
		lines = append(lines, fmt.Sprintf("_… %d more: `ragbot ask --json` lists them all_", more))
	}
	var sec strings.Builder
	for _, line := range lines {
		if sec.Len()+len(line)+1 > maxSectionText-100 {
			blocks = append(blocks, mrkdwnSection(sec.String()))
			sec.Reset()
		}
		sec.WriteString(line + "\n")
	}
	return append(blocks, mrkdwnSection(sec.String()))
}
