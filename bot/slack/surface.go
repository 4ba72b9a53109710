package slack

import (
	"context"
	"errors"
	"fmt"
	"strings"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
)

// Reply posts r in the thread (chat.postMessage with thread_ts) when ts is
// "", else replaces message ts (chat.update), and returns the message's ts.
// When Slack refuses the blocks (invalid_blocks, msg_too_long,
// msg_blocks_too_long) the same reply goes out as text only (blocksText:
// the snippets with their citations), so a rendering mistake still leaves
// the user an answer.
func (b *Bot) Reply(ctx context.Context, to bot.Thread, ts string, r bot.Reply) (string, error) {
	blocks, text := b.render(r)
	id, err := b.send(ctx, to, ts, text, blocks)
	if err != nil && len(blocks) > 0 && blocksRefused(err) {
		b.log.Warn("slack refused the blocks; sending text only", "channel", to.Channel, "thread_ts", to.TS, "err", err)
		return b.send(ctx, to, ts, blocksText(blocks, maxRefusedText), nil)
	}
	return id, err
}

// maxRefusedText bounds the text sent in place of refused blocks, in bytes
// (which bound Slack's character count; see cutBytes). Slack truncates a
// message's text beyond 40,000 characters (Slack docs, 'chat.postMessage':
// truncating content); an answer's blocks hold at most about 13,000 (see
// codeBudget), so this keeps all of them with room to spare.
const maxRefusedText = 16000

// blocksText is the mrkdwn of blocks as one text: each section's and
// context's text on its own lines, a blank line for a divider, buttons
// left out. Blocks that would take it past limit bytes are dropped whole
// (a code block is never cut open) and the text says so.
func blocksText(blocks []slackgo.Block, limit int) string {
	const cutNote = "\n_… the rest of this answer did not fit in one message_"
	var out strings.Builder
	for _, bl := range blocks {
		var part string
		switch x := bl.(type) {
		case *slackgo.SectionBlock:
			if x.Text != nil {
				part = x.Text.Text
			}
		case *slackgo.ContextBlock:
			var texts []string
			for _, e := range x.ContextElements.Elements {
				if o, ok := e.(*slackgo.TextBlockObject); ok {
					texts = append(texts, o.Text)
				}
			}
			part = strings.Join(texts, " ")
		case *slackgo.DividerBlock:
			part = ""
		default:
			continue
		}
		if out.Len() > 0 {
			part = "\n" + part
		}
		if out.Len()+len(part) > limit-len(cutNote) {
			out.WriteString(cutNote)
			break
		}
		out.WriteString(part)
	}
	return out.String()
}

func (b *Bot) send(ctx context.Context, to bot.Thread, ts, text string, blocks []slackgo.Block) (string, error) {
	opts := []slackgo.MsgOption{slackgo.MsgOptionText(text, false)}
	if len(blocks) > 0 {
		opts = append(opts, slackgo.MsgOptionBlocks(blocks...))
	}
	if ts != "" {
		err := withRetry(ctx, b.log, "chat.update", func() error {
			_, _, _, err := b.api.UpdateMessageContext(ctx, to.Channel, ts, opts...)
			return err
		})
		if err != nil {
			return "", fmt.Errorf("slack chat.update %s/%s: %w", to.Channel, ts, err)
		}
		return ts, nil
	}
	// Link previews of code hosts would bury the answer.
	opts = append(opts, slackgo.MsgOptionTS(to.TS), slackgo.MsgOptionDisableLinkUnfurl(), slackgo.MsgOptionDisableMediaUnfurl())
	var id string
	err := withRetry(ctx, b.log, "chat.postMessage", func() (err error) {
		_, id, err = b.api.PostMessageContext(ctx, to.Channel, opts...)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("slack chat.postMessage to %s thread %s: %w", to.Channel, to.TS, err)
	}
	return id, nil
}

// blocksRefused reports the Web API errors that mean "these blocks cannot be
// posted" (api.slack.com/methods/chat.postMessage#errors).
func blocksRefused(err error) bool {
	var se slackgo.SlackErrorResponse
	if !errors.As(err, &se) {
		return false
	}
	switch se.Err {
	case "invalid_blocks", "invalid_blocks_format", "msg_too_long", "msg_blocks_too_long":
		return true
	}
	return false
}

// threadLimit is how many messages of a thread conversations.replies
// returns (one page): the root and the first 49 replies. FollowUp reads the
// root and the latest of those.
const threadLimit = 50

// Earlier returns the text of the thread's human messages older than before
// (conversations.replies), root first. Messages by bots, ours included, and
// system messages (joins, edits) are left out.
func (b *Bot) Earlier(ctx context.Context, to bot.Thread, before string) ([]string, error) {
	var msgs []slackgo.Message
	err := withRetry(ctx, b.log, "conversations.replies", func() (err error) {
		msgs, _, _, err = b.api.GetConversationRepliesContext(ctx, &slackgo.GetConversationRepliesParameters{
			ChannelID: to.Channel, Timestamp: to.TS, Latest: before, Limit: threadLimit,
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("slack conversations.replies %s/%s: %w", to.Channel, to.TS, err)
	}
	var out []string
	for _, m := range msgs {
		if m.Timestamp == before || m.BotID != "" || m.User == b.botUserID ||
			(m.SubType != "" && m.SubType != slackgo.MsgSubTypeThreadBroadcast) {
			continue
		}
		if t := plainText(m.Text); t != "" {
			out = append(out, t)
		}
	}
	return out, nil
}
