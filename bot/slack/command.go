package slack

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/retrieval"
)

// commandReply is the immediate answer to a slash command (the HTTP response
// body, or the Socket Mode ack payload): Slack shows it to the invoker only.
type commandReply struct {
	ResponseType string `json:"response_type"`
	Text         string `json:"text"`
}

// command acknowledges a slash command at once and, for a question, starts
// the search whose list replaces the acknowledgement through response_url
// (valid 30 minutes, 5 posts; api.slack.com/interactivity/handling#message_responses).
func (b *Bot) command(cmd slackgo.SlashCommand) commandReply {
	eph := func(text string) commandReply {
		return commandReply{ResponseType: slackgo.ResponseTypeEphemeral, Text: text}
	}
	if cmd.Command != b.cfg.Command {
		b.log.Warn("unknown slash command; check slack.command in ragbot.yaml", "command", cmd.Command)
		return eph("ragbot doesn't know " + echo(cmd.Command) + "; try `" + b.cfg.Command + "`.")
	}
	q := plainText(cmd.Text)
	if q == "" {
		return eph("Usage: `" + b.cfg.Command + " <identifier or phrase>`, e.g. `" + b.cfg.Command + " UserRepository.findByEmail`.")
	}
	started := b.core.Go(func(ctx context.Context) {
		msg := b.whereIsMessage(ctx, cmd.ChannelID, cmd.UserID, q, "")
		msg.ResponseType, msg.ReplaceOriginal = slackgo.ResponseTypeEphemeral, true
		if err := b.respond(ctx, cmd.ResponseURL, msg); err != nil {
			b.log.Error("post /where-is answer", "channel", cmd.ChannelID, "err", err)
		}
	})
	if !started {
		return eph("ragbot is restarting; please try again in a minute.")
	}
	return eph("Searching for " + inlineCode(cutBytes(q, 300)) + "…")
}

// whereIsMessage searches q in channel's sources and renders the list; on
// failure it renders the message that says why. sharedBy is the user who
// shared it in the channel, "" for the private list (which gets the share
// button). The private list may show chunks of user's ACL groups; a shared
// one only those of the channel's (Access.GroupsFor), so sharing searches
// again rather than reposting what user alone may see.
func (b *Bot) whereIsMessage(ctx context.Context, channel, user, q, sharedBy string) *slackgo.WebhookMessage {
	id := bot.RequestID("")
	log := b.log.With("request_id", id, "channel", channel, "command", b.cfg.Command)
	sources := b.cfg.Access.Sources(channel)
	if len(sources) == 0 {
		log.Warn("channel may see no source; see access in ragbot.yaml")
		return &slackgo.WebhookMessage{Text: noSourcesText}
	}
	sctx, cancel := context.WithTimeoutCause(ctx, b.cfg.AnswerTimeout, fmt.Errorf("slack.answer_timeout %s exceeded", b.cfg.AnswerTimeout))
	defer cancel()
	start := time.Now()
	groups := b.cfg.Access.GroupsFor(channel, user, sharedBy == "")
	ans, err := b.cfg.Lister.Ask(sctx, retrieval.Request{Question: q, Sources: sources, Groups: groups})
	if busy := (*bot.BusyError)(nil); errors.As(err, &busy) { // refused by bot.Admission
		log.Warn("busy: question refused", "reason", busy.Reason, "ahead", busy.Ahead)
		return &slackgo.WebhookMessage{Text: ":hourglass: " + bot.BusyText(busy.Ahead)}
	}
	if err != nil {
		log.Error("search failed; told the user it is unavailable", "err", err, "cause", context.Cause(sctx))
		return &slackgo.WebhookMessage{Text: unavailableText(id)}
	}
	log.Info("listed", "coverage", ans.Coverage, "snippets", len(ans.Snippets), "ms", time.Since(start).Milliseconds())
	var blocks []slackgo.Block
	var text string
	if ans.Coverage == retrieval.NoCoverage || len(ans.Snippets) == 0 {
		blocks, text = noCoverageBlocks(q, ans.Missing, ans.Warnings)
	} else {
		blocks, text = b.listBlocks(q, ans, sharedBy)
	}
	return &slackgo.WebhookMessage{Text: text, Blocks: &slackgo.Blocks{BlockSet: blocks}}
}

// userID is the shape of a Slack user id; only such ids are put in <@...>.
var userID = regexp.MustCompile(`^[UW][A-Z0-9]{2,20}$`)

// listBlocks renders a /where-is answer: definitions of q first, then the
// other places, one `symbol — path:line` link a line.
func (b *Bot) listBlocks(q string, ans retrieval.Answer, sharedBy string) ([]slackgo.Block, string) {
	defs, rest := bot.Definitions(ans.Snippets, q)
	now := b.cfg.Now()
	var blocks []slackgo.Block
	notSure := ans.Coverage == retrieval.NotSure
	if notSure {
		blocks = append(blocks, mrkdwnContext(":grey_question: *"+escape(bot.NotSureTitle)+"*"))
	}
	if ans.DidYouMean != "" {
		blocks = append(blocks, mrkdwnContext(":pencil2: "+bot.DidYouMeanQuoting(ans, echo)))
	}
	if w := warningsSection(ans.Warnings); w != nil {
		blocks = append(blocks, w)
	}
	if len(defs) > 0 {
		blocks = append(blocks, mrkdwnSection(listSection("*Defined in*", defs, now)))
	}
	if len(rest) > 0 {
		title := "*Found in*"
		if len(defs) > 0 {
			title = "*Also found in*"
		}
		blocks = append(blocks, mrkdwnSection(listSection(title, rest, now)))
	}
	if notSure {
		blocks = append(blocks, mrkdwnContext(":bulb: "+escape(bot.NotSureHint(ans))))
	}
	if sharedBy != "" && userID.MatchString(sharedBy) {
		blocks = append(blocks, mrkdwnContext("Shared by <@"+sharedBy+"> with `"+b.cfg.Command+"` "+echo(cutBytes(q, 300))))
	} else if sharedBy == "" {
		share := slackgo.NewButtonBlockElement(actionShare, cutBytes(q, maxButtonValue),
			slackgo.NewTextBlockObject(slackgo.PlainTextType, "Share in channel", false, false))
		blocks = append(blocks, slackgo.NewActionBlock("ragbot_share", share))
	}
	if b.cfg.Feedback != nil {
		blocks = append(blocks, voteButtons(ans.Question, ans.Snippets))
	}
	locs := make([]string, 0, len(ans.Snippets))
	for _, s := range slices.Concat(defs, rest) {
		locs = append(locs, echo(fmt.Sprintf("%s:%d", s.Path, s.StartLine)))
	}
	text := fmt.Sprintf("%s: %d %s: %s", echo(cutBytes(q, 300)), len(locs), humanize.Noun(len(locs), "location"), strings.Join(locs, ", "))
	return capBlocks(blocks), cutEscaped(text, maxFallbackText-200)
}

// listSection is a title and one line per snippet,
// "• `Symbol` — <url|path:line> · source@commit7 · indexed …" (without the
// symbol for a line window), with as many lines as fit in a section.
func listSection(title string, snips []retrieval.Snippet, now time.Time) string {
	out := title
	for i, s := range snips {
		line := "\n• " + link(s.URL, fmt.Sprintf("%s:%d", s.Path, s.StartLine))
		if s.Symbol != "" {
			line = "\n• " + inlineCode(cutBytes(s.Symbol, 150)) + " — " + link(s.URL, fmt.Sprintf("%s:%d", s.Path, s.StartLine))
		}
		src := s.SourceName()
		if c := s.ShortCommit(); c != "" {
			src += "@" + c
		}
		line += " · " + escape(src) + " · indexed " + retrieval.Ago(now.Sub(s.IndexedAt))
		if s.Stale != "" {
			line += " · :warning: may be stale"
		}
		if len(out)+len(line) > maxSectionText-40 {
			return out + fmt.Sprintf("\n_… %d more_", len(snips)-i)
		}
		out += line
	}
	return out
}

// respond posts msg to a response_url, waiting out 429s.
func (b *Bot) respond(ctx context.Context, responseURL string, msg *slackgo.WebhookMessage) error {
	rctx, cancel := context.WithTimeout(ctx, config.ReplyTimeout)
	defer cancel()
	err := withRetry(rctx, b.log, "response_url", func() error {
		return slackgo.PostWebhookCustomHTTPContext(rctx, responseURL, b.cfg.HTTPClient, msg)
	})
	if err != nil {
		return fmt.Errorf("slack response_url: %w", redactURLError(err, responseURL))
	}
	return nil
}

// redactURLError keeps a response_url, which works as a credential for 30
// minutes, out of an error (net/http errors quote the URL).
func redactURLError(err error, u string) error {
	if u == "" || !strings.Contains(err.Error(), u) {
		return err
	}
	return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), u, "<response_url>"))
}
