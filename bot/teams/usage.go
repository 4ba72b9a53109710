package teams

import (
	"context"
	"fmt"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

// maxAllText bounds the citation lines of a "Show all N uses" list, in
// bytes: about three replies of maxActivity (UTF-16, JSON).
const maxAllText = 40000

// showAll answers "Show all N uses" clicked by user in the thread t: every
// use of the usage question q, asked again with the access an answer there
// has (bot.Access.AskUses), one citation line each (allUses). Teams has no
// private replies in channels, so everyone in the thread sees the list.
func (b *Bot) showAll(ctx context.Context, t bot.Thread, user string, personal bool, q string) {
	id := bot.RequestID("")
	log := b.log.With("request_id", id, "channel", t.Channel, "user", user)
	sctx, cancel := context.WithTimeout(ctx, b.cfg.AnswerTimeout)
	defer cancel()
	replies := []outActivity{plainActivity(noSourcesText(t.Channel))}
	switch ans, ok, err := b.cfg.Access.AskUses(sctx, b.cfg.Answerer, q, t.Channel, user, personal); {
	case !ok:
	case err != nil:
		log.Error("show all uses: search failed", "err", err)
		replies[0] = plainActivity(unavailableText(id))
	case ans.Usage == nil:
		replies[0] = plainActivity(bot.NotUsageText)
	default:
		replies = allUses(ans)
	}
	for _, r := range replies {
		if _, err := b.post(ctx, t, "", r); err != nil {
			log.Warn("show all uses", "err", err)
			return
		}
	}
}

// allUses lists a usage answer's definitions and sites under its title,
// one markdown line each (linked path:line · symbol), in as many cards as
// keep each activity within maxActivity; past maxAllText the rest are
// counted.
func allUses(ans retrieval.Answer) []outActivity {
	title := "🔍 " + ans.Usage.Title()
	lines, more := bot.UseLines(ans, maxAllText, citationMarkdown, func(sym string) string { return escapeMarkdown(bot.Cut(sym, 150)) })
	if more > 0 {
		lines = append(lines, fmt.Sprintf("… %d more: ragbot ask --json lists them all", more))
	}
	var out []outActivity
	c := &card{Body: []element{richText(textRun{Type: "TextRun", Text: title, Weight: "Bolder"})}}
	for _, l := range lines {
		line := textBlock(l)
		line.Spacing = "None"
		if c.Body = append(c.Body, line); len(c.Body) > 1 && utf16Size(marshal(cardActivity(c, title, title))) > maxActivity {
			c.Body = c.Body[:len(c.Body)-1]
			out = append(out, cardActivity(c, title, title))
			c = &card{Body: []element{line}}
		}
	}
	return append(out, cardActivity(c, title, title))
}
