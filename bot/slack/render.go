package slack

import (
	"fmt"
	"strings"
	"time"

	slackgo "github.com/slack-go/slack"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/retrieval"
)

// Block Kit limits, from api.slack.com/reference/block-kit/blocks and
// .../composition-objects, and chat.postMessage's text limits.
const (
	maxBlocks      = 50   // blocks in one message
	maxSectionText = 3000 // characters of a section's text
	maxContextText = 2000 // characters we put in one context element (kept under the section limit)
	maxButtonValue = 2000 // characters of a button's value
	// maxFallbackText is how much of the message text (the notification
	// fallback when blocks are present) we send; Slack truncates text
	// beyond 40,000 characters and advises 4,000 (api.slack.com/methods/chat.postMessage#truncating).
	maxFallbackText = 4000
	// codeBudget is what the code sections of one answer share, in bytes:
	// users report msg_blocks_too_long near 13,000 characters of blocks,
	// below the documented limits (slackapi/bolt-js issue #2509; the limit
	// itself is not documented), so the
	// code stays under 11,000 and leaves room for the other blocks.
	codeBudget = 11000
)

// Block and action ids. Slack sends action_id back in block_actions.
const (
	feedbackBlock = "ragbot_feedback"
	actionUp      = "feedback_up"
	actionDown    = "feedback_down"
	actionShare   = "where_is_share"
	// actionUsageAll is "Show all N uses" under a usage answer whose
	// sites do not all fit (showAll).
	actionUsageAll = bot.UsageAllAction
)

// render turns a reply into blocks and the fallback text. Searching, help
// and the error replies are text only.
func (b *Bot) render(r bot.Reply) ([]slackgo.Block, string) {
	switch r.Kind {
	case bot.Searching:
		return nil, "Searching the indexed sources for “" + echo(cutBytes(r.Asked, 300)) + "”…"
	case bot.Unavailable:
		return nil, unavailableText(r.RequestID)
	case bot.Busy:
		return nil, ":hourglass: " + bot.BusyText(r.Ahead)
	case bot.NoSources:
		return nil, noSourcesText
	case bot.Help:
		return nil, b.helpText()
	}
	if len(r.Answer.Snippets) == 0 || r.Answer.Coverage == retrieval.NoCoverage && r.Answer.ClosestFor == "" {
		return noCoverageBlocks(r.Asked, r.Answer.Missing, r.Answer.Warnings)
	}
	return b.answerBlocks(r.Asked, r.Answer)
}

// noSourcesText is the reply in a channel that may see no source; the
// operator finds the cause in the log.
const noSourcesText = "This channel has no sources to search. Ask whoever runs ragbot to add it under `access.channels` in ragbot.yaml."

func (b *Bot) helpText() string {
	return "Ask me where something is, e.g. `@ragbot where is the retry for 503 errors?`, or use `" +
		b.cfg.Command + " UserRepository.findByEmail` for a list of locations."
}

// noCoverageBlocks is the honest "not found" reply: one section with the
// question, the name no indexed chunk contains (missing, "" for none) and
// what to try, and the answer's warnings (an index not built).
func noCoverageBlocks(asked, missing string, warnings []string) ([]slackgo.Block, string) {
	text := "I couldn't find anything about “" + echo(cutBytes(asked, 500)) + "” in the sources this channel can see."
	if missing != "" {
		text += " Nothing indexed here mentions “" + echo(cutBytes(missing, 200)) + "”."
	}
	text += " You could:\n" +
		"• rephrase it with words the code or docs would use\n" +
		"• name a file, function or type, e.g. `UserRepository.findByEmail` or `retry.go`\n" +
		"• check that the source is indexed and visible here: it may not be"
	blocks := []slackgo.Block{mrkdwnSection(text)}
	if w := warningsSection(warnings); w != nil {
		blocks = append(blocks, w)
	}
	return blocks, "No coverage for “" + echo(cutBytes(asked, 300)) + "” in the indexed sources."
}

// maxCodeSnippets is how many snippets of an answer show their code; the
// others (retrieval.top_k may ask for more) are listed under them, a
// citation line each, in moreSection.
const maxCodeSnippets = 5

// maxMoreText bounds the section listing the snippets beyond
// maxCodeSnippets, in bytes; the code shares what is left of codeBudget.
const maxMoreText = 2000

// answerBlocks renders a covered answer: a summary line counting every
// snippet, warnings, then per snippet (at most maxCodeSnippets) its code and
// its citation line (and staleness), the other snippets' citations, then the
// vote buttons. A "not sure" answer (retrieval.NotSure) has bot.NotSureTitle
// for its summary line, code for its first retrieval.NotSureMatches matches
// only (the others are listed as "close matches"), and bot.NotSureHint
// above the buttons; a "no coverage" answer listing the closest matches
// for the rest of the question has bot.MissingTitle for its summary line
// and missingHint. Words read as typos are named under the summary line
// (bot.DidYouMeanText). At most 5 snippets x 4 blocks + 7 = 27 blocks.
func (b *Bot) answerBlocks(asked string, ans retrieval.Answer) ([]slackgo.Block, string) {
	all := ans.Snippets
	notSure := ans.Coverage == retrieval.NotSure
	missing := ans.Coverage == retrieval.NoCoverage
	snips := all[:bot.WithCode(ans, maxCodeSnippets)]
	summary := fmt.Sprintf(":mag: %d %s for “%s”", len(all), humanize.Noun(len(all), "result"), echo(cutBytes(asked, 300)))
	switch {
	case notSure:
		summary = ":grey_question: *" + escape(bot.NotSureTitle) + "* (“" + echo(cutBytes(asked, 300)) + "”)"
	case missing:
		summary = ":grey_question: *" + bot.MissingTitleQuoting(ans, echo) + "* (“" + echo(cutBytes(asked, 300)) + "”)"
	case ans.Usage != nil:
		summary = ":mag: " + escape(ans.Usage.Title())
	}
	if ans.Question != "" && ans.Question != asked {
		how := "(terms from this thread added)"
		if ans.Rewrite.Standalone != "" {
			how = "(rewritten with this thread)"
		}
		summary += " · searched: _" + echo(cutBytes(ans.Question, 500)) + "_ " + how
	}
	blocks := []slackgo.Block{mrkdwnContext(summary)}
	if ans.DidYouMean != "" {
		blocks = append(blocks, mrkdwnContext(":pencil2: "+bot.DidYouMeanQuoting(ans, echo)))
	}
	if w := warningsSection(ans.Warnings); w != nil {
		blocks = append(blocks, w)
	}
	more := b.moreSection(all[len(snips):], bot.MoreTitleOf(ans, len(all)-len(snips)))
	per := min(maxSectionText, (codeBudget-len(more))/len(snips))
	now := b.cfg.Now()
	for i, s := range snips {
		if i > 0 {
			blocks = append(blocks, slackgo.NewDividerBlock())
		}
		blocks = append(blocks, mrkdwnSection(codeBlock(s.Text, s.MoreLines, per)), mrkdwnContext(citationLine(s, now)))
		if s.Stale != "" {
			blocks = append(blocks, mrkdwnContext(":warning: May be stale: "+escape(cutBytes(s.Stale, 500))))
		}
	}
	if more != "" {
		blocks = append(blocks, slackgo.NewDividerBlock(), mrkdwnSection(more))
	}
	switch {
	case notSure:
		blocks = append(blocks, mrkdwnContext(":bulb: "+escape(bot.NotSureHint(ans))))
	case missing:
		blocks = append(blocks, mrkdwnContext(":bulb: "+escape(missingHint)))
	}
	if ans.Usage != nil && len(all) > len(snips) {
		all := slackgo.NewButtonBlockElement(actionUsageAll, cutBytes(ans.Question, maxButtonValue),
			slackgo.NewTextBlockObject(slackgo.PlainTextType, bot.ShowAllTitle(*ans.Usage), false, false))
		blocks = append(blocks, slackgo.NewActionBlock("ragbot_usage", all))
	}
	if b.cfg.Feedback != nil {
		blocks = append(blocks, voteButtons(ans.Question, snips))
	}
	fallback := make([]string, len(all))
	for i, s := range all {
		fallback[i] = echo(s.Label())
	}
	text := fmt.Sprintf("%d %s for “%s”: %s", len(all), humanize.Noun(len(all), "result"), echo(cutBytes(asked, 300)), strings.Join(fallback, ", "))
	switch {
	case notSure:
		text = fmt.Sprintf("Not sure, closest matches for “%s”: %s", echo(cutBytes(asked, 300)), strings.Join(fallback, ", "))
	case missing:
		text = fmt.Sprintf("No coverage for “%s”: %s %s", echo(cutBytes(asked, 300)), bot.MissingTitleQuoting(ans, echo), strings.Join(fallback, ", "))
	}
	if ans.DidYouMean != "" {
		text = bot.DidYouMeanQuoting(ans, echo) + " " + text
	}
	return capBlocks(blocks), cutEscaped(text, maxFallbackText-200)
}

// missingHint is the advice under the closest matches of a "no coverage"
// answer for a missing name.
const missingHint = "The sources this channel can see never mention it: check the spelling, or that the source holding it is indexed and visible here."

// moreSection lists the snippets shown without code under their title in
// bold (bot.MoreTitle), one
// "• <url|path:lines> · `Symbol`" line each, as many as fit in maxMoreText;
// the rest are counted, with how to narrow the answer. It is "" for none.
func (b *Bot) moreSection(rest []retrieval.Snippet, title string) string {
	if len(rest) == 0 {
		return ""
	}
	out := "*" + title + "*"
	for i, s := range rest {
		line := "\n• " + link(s.URL, s.Label())
		if s.Symbol != "" {
			line += " · " + inlineCode(cutBytes(s.Symbol, 150))
		}
		if len(out)+len(line) > maxMoreText-150 {
			return out + fmt.Sprintf("\n_… %d more: ask with `%s` and a file or symbol name to narrow the list_", len(rest)-i, b.cfg.Command)
		}
		out += line
	}
	return out
}

// citationLine is the context line under a snippet:
// <url|path:start-end> · `Symbol` · source@commit7 · author · indexed 5 minutes ago.
// The head is retrieval's Snippet.Label: a doc snippet's names its source
// ("handbook: docs/README.md:3-5 · `Retries` · commit 3f1c2d4 · …"), so
// the source is not repeated; a focused one says "62-90 of 1-120".
func citationLine(s retrieval.Snippet, now time.Time) string {
	parts := []string{link(s.URL, s.Label())}
	if s.Symbol != "" {
		parts = append(parts, inlineCode(cutBytes(s.Symbol, 200)))
	}
	src := s.SourceName()
	if c := s.ShortCommit(); c != "" {
		src += "@" + c
	}
	switch c := s.ShortCommit(); {
	case s.Where() == s.Path:
		parts = append(parts, escape(src))
	case c != "":
		parts = append(parts, "commit "+c)
	}
	if s.Author != "" {
		parts = append(parts, escape(cutBytes(s.Author, 100)))
	}
	if !s.IndexedAt.IsZero() {
		parts = append(parts, "indexed "+retrieval.Ago(now.Sub(s.IndexedAt)))
	}
	return cutLine(strings.Join(parts, " · "), maxContextText)
}

// cutLine cuts an already rendered mrkdwn line to n bytes; the cut may end
// a link early, so a cut line drops its links' targets.
func cutLine(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return cutEscaped(slackEntity.ReplaceAllStringFunc(s, func(m string) string {
		_, label, _ := strings.Cut(m[1:len(m)-1], "|")
		return label
	}), n)
}

// warningsSection shows answer-wide warnings, or nil when there are none.
func warningsSection(ws []string) slackgo.Block {
	if len(ws) == 0 {
		return nil
	}
	lines := make([]string, len(ws))
	for i, w := range ws {
		lines[i] = ":warning: " + escape(w)
	}
	return mrkdwnSection(cutEscaped(strings.Join(lines, "\n"), maxSectionText))
}

// voteButtons are 👍/👎 under an answer. Both carry the question and the
// shown citations (see encodeVote), so a click can be stored without state
// kept in ragbot.
func voteButtons(question string, snips []retrieval.Snippet) slackgo.Block {
	value := encodeVote(question, snips)
	up := slackgo.NewButtonBlockElement(actionUp, value, slackgo.NewTextBlockObject(slackgo.PlainTextType, ":+1: Helpful", true, false))
	down := slackgo.NewButtonBlockElement(actionDown, value, slackgo.NewTextBlockObject(slackgo.PlainTextType, ":-1: Not helpful", true, false))
	return slackgo.NewActionBlock(feedbackBlock, up, down)
}

func mrkdwnSection(text string) *slackgo.SectionBlock {
	return slackgo.NewSectionBlock(slackgo.NewTextBlockObject(slackgo.MarkdownType, cutEscaped(text, maxSectionText), false, false), nil, nil)
}

func mrkdwnContext(text string) *slackgo.ContextBlock {
	return slackgo.NewContextBlock("", slackgo.NewTextBlockObject(slackgo.MarkdownType, text, false, false))
}

// capBlocks keeps a message within maxBlocks, keeping the last block (the
// buttons) when it has to cut.
func capBlocks(bs []slackgo.Block) []slackgo.Block {
	if len(bs) <= maxBlocks {
		return bs
	}
	return append(bs[:maxBlocks-1:maxBlocks-1], bs[len(bs)-1])
}

// unavailableText is bot.UnavailableText with Slack's warning sign.
func unavailableText(requestID string) string { return ":warning: " + bot.UnavailableText(requestID) }
