package teams

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/internal/humanize"
	"github.com/ragbot/ragbot/retrieval"
)

// Size limits. Teams refuses a bot message over 40 KB, counted in UTF-16 over
// the whole activity (413 MessageSizeTooBig; Teams docs, 'Format your bot
// messages'); the connector adds the conversation, sender and recipient to what
// we send, so our JSON stays under maxActivity. Code shares codeBudget bytes,
// at most maxCodePerSnippet each, and shrinks until the activity fits.
const (
	teamsLimit        = 40 * 1024
	maxActivity       = 36 * 1024
	codeBudget        = 12000
	maxCodePerSnippet = 4000
	minCodePerSnippet = 200
	maxSnippets       = 5  // snippets shown with code; the others are listed (moreItems)
	maxMoreLines      = 20 // snippets listed without code; the others are counted
	// maxRefusedText bounds the plain text sent for a refused card, in
	// bytes; refusedText cuts it further to fit maxActivity.
	maxRefusedText = 14000
)

// helpText answers a mention without a question.
const helpText = "Ask me where something is, e.g. “@ragbot where is the retry for 503 errors?”. " +
	"In a personal chat with me, no mention is needed."

// render turns a reply into an outgoing activity: plain text for searching,
// help and the error replies, an Adaptive Card with a plain-text fallback
// for answers.
func (b *Bot) render(to bot.Thread, r bot.Reply) outActivity {
	switch r.Kind {
	case bot.Searching:
		return plainActivity("Searching the indexed sources for “" + bot.Cut(r.Asked, 300) + "”…")
	case bot.Unavailable:
		return plainActivity(unavailableText(r.RequestID))
	case bot.Busy:
		return plainActivity("⏳ " + bot.BusyText(r.Ahead))
	case bot.NoSources:
		return plainActivity(noSourcesText(to.Channel))
	case bot.Help:
		return plainActivity(helpText)
	}
	if len(r.Answer.Snippets) == 0 || r.Answer.Coverage == retrieval.NoCoverage && r.Answer.ClosestFor == "" {
		return noCoverageActivity(r.Asked, r.Answer)
	}
	return b.answerActivity(r.Asked, r.Answer)
}

// noSourcesText is the reply in a conversation that may see no source.
func noSourcesText(channel string) string {
	return "This conversation has no sources to search. Ask whoever runs ragbot to add its id, " +
		channel + ", under access.channels in ragbot.yaml."
}

func plainActivity(text string) outActivity {
	return outActivity{Type: "message", Text: text, TextFormat: "plain"}
}

func cardActivity(c *card, summary, fallback string) outActivity {
	c.Type, c.Schema, c.Version, c.MSTeams = "AdaptiveCard", cardSchema, cardVersion, &msteams{Width: "Full"}
	c.FallbackText = fallback
	return outActivity{Type: "message", Summary: summary, fallback: fallback,
		Attachments: []attachment{{ContentType: cardType, Content: c}}}
}

// noCoverageActivity is the honest "not found": the question, what to try,
// and the answer's warnings (an index not built).
func noCoverageActivity(asked string, ans retrieval.Answer) outActivity {
	lines := []string{"I couldn't find anything about “" + bot.Cut(asked, 500) + "” in the sources this conversation can see."}
	if ans.Missing != "" {
		lines = append(lines, "Nothing indexed here mentions “"+bot.Cut(ans.Missing, 200)+"”.")
	}
	lines = append(lines, "You could:",
		"• rephrase it with words the code or docs would use",
		"• name a file, function or type, e.g. UserRepository.findByEmail or retry.go",
		"• check that the source is indexed and visible here: it may not be")
	c := &card{Body: []element{richText(run(strings.Join(lines, "\n")))}}
	c.Body = append(c.Body, warnings(ans.Warnings)...)
	text := strings.Join(append(lines, ans.Warnings...), "\n")
	return cardActivity(c, "No coverage for “"+bot.Cut(asked, 200)+"”", text)
}

// answerActivity renders a covered answer; see answerCard. When the card is
// too big, code is cut further, then snippets move from the end of those
// shown with code to the list of the others.
func (b *Bot) answerActivity(asked string, ans retrieval.Answer) outActivity {
	shown := bot.WithCode(ans, maxSnippets)
	per := min(maxCodePerSnippet, codeBudget/shown)
	for {
		a := b.answerCard(asked, ans, shown, per)
		if utf16Size(marshal(a)) <= maxActivity {
			return a
		}
		switch {
		case per > minCodePerSnippet:
			per = max(per*3/4, minCodePerSnippet)
		case shown > 1:
			shown--
		default:
			return a // one snippet at the minimum: the connector decides, and Reply falls back to text
		}
	}
}

// answerCard is the card: a summary line counting every snippet, warnings,
// then per snippet of the first shown its citation (linked path:lines;
// symbol · source@commit · author · indexed N ago), its code (at most per
// bytes, "… N more lines") and its staleness, the other snippets' citations
// (moreItems), and the vote buttons.
func (b *Bot) answerCard(asked string, ans retrieval.Answer, shown, per int) outActivity {
	all := ans.Snippets
	snips := all[:shown]
	summary := fmt.Sprintf("🔍 %d %s for “%s”", len(all), humanize.Noun(len(all), "result"), bot.Cut(asked, 300))
	notSure := ans.Coverage == retrieval.NotSure
	missing := ans.Coverage == retrieval.NoCoverage // with the closest matches for the rest of the question
	switch {
	case notSure:
		summary = "❔ " + bot.NotSureTitle + " (“" + bot.Cut(asked, 300) + "”)"
	case missing:
		summary = "❔ " + bot.MissingTitle(ans) + " (“" + bot.Cut(asked, 300) + "”)"
	case ans.Usage != nil:
		summary = "🔍 " + ans.Usage.Title()
	}
	head := []textRun{{Type: "TextRun", Text: summary, Weight: "Bolder"}}
	if ans.Question != "" && ans.Question != asked {
		head = append(head, textRun{Type: "TextRun", Text: " · searched: " + bot.Cut(ans.Question, 500), Italic: true, IsSubtle: true})
	}
	c := &card{Body: []element{richText(head...)}}
	fallback := []string{strings.TrimPrefix(summary, "🔍 ") + ":"}
	if ans.DidYouMean != "" {
		c.Body = append(c.Body, richText(textRun{Type: "TextRun", Text: "✏️ " + bot.DidYouMeanText(ans)}))
		fallback = append([]string{bot.DidYouMeanText(ans)}, fallback...)
	}
	c.Body = append(c.Body, warnings(ans.Warnings)...)
	now := b.cfg.Now()
	for i, s := range snips {
		c.Body = append(c.Body, element{Type: "Container", Items: snippetItems(s, now, per), Separator: i > 0, Spacing: "Medium"})
	}
	if rest := all[shown:]; len(rest) > 0 {
		c.Body = append(c.Body, element{Type: "Container", Items: moreItems(rest, bot.MoreTitleOf(ans, len(rest))), Separator: true, Spacing: "Medium"})
	}
	hint := ""
	switch {
	case notSure:
		hint = bot.NotSureHint(ans)
	case missing:
		hint = missingHint
	}
	if hint != "" {
		c.Body = append(c.Body, richText(textRun{Type: "TextRun", Text: "💡 " + hint, IsSubtle: true}))
	}
	full := slices.Clone(fallback) // the answer as text, with the code, for a refused card
	for i, s := range all {
		line := s.Label() + " · " + citationMeta(s, now)
		if s.URL != "" {
			line += "\n  " + s.URL
		}
		fallback = append(fallback, line)
		if i < shown {
			code, more := trimCode(s.Text, s.MoreLines, per)
			line += "\n" + code
			if more > 0 {
				line += "\n… " + strconv.Itoa(more) + " more " + humanize.Noun(more, "line")
			}
			line += "\n"
		}
		full = append(full, line)
	}
	if ans.Usage != nil && shown < len(all) {
		c.Actions = []action{{Type: "Action.Submit", Title: bot.ShowAllTitle(*ans.Usage),
			Data: voteData{Action: bot.UsageAllAction, Q: bot.Cut(ans.Question, 1000)}}}
	}
	if b.cfg.Feedback != nil {
		c.Actions = append(c.Actions, voteActions(ans.Question, snips)...)
	}
	title := strings.TrimPrefix(summary, "🔍 ")
	switch {
	case notSure:
		title = "Not sure, closest matches for “" + bot.Cut(asked, 200) + "”"
	case missing:
		title = "No coverage for “" + bot.Cut(asked, 200) + "”"
	}
	if hint != "" {
		fallback = append(fallback, hint)
		full = append(full, hint)
	}
	a := cardActivity(c, title, bot.Cut(strings.Join(fallback, "\n"), 4000))
	a.fallback = refusedText(strings.Join(full, "\n"))
	return a
}

// snippetItems is one snippet in a card: its citation (linked
// path:lines; symbol · source@commit · author · indexed N ago), its code
// (at most per bytes, "… N more lines") and its staleness.
func snippetItems(s retrieval.Snippet, now time.Time, per int) []element {
	code, more := trimCode(s.Text, s.MoreLines, per)
	items := []element{
		citationLink(s),
		richText(textRun{Type: "TextRun", Text: citationMeta(s, now), IsSubtle: true, Size: "Small"}),
		{Type: "Container", Style: "emphasis", Items: []element{richText(textRun{Type: "TextRun", Text: code, FontType: "Monospace", Size: "Small"})}},
	}
	if more > 0 {
		items = append(items, richText(textRun{Type: "TextRun", Text: "… " + strconv.Itoa(more) + " more " + humanize.Noun(more, "line"), IsSubtle: true, Italic: true, Size: "Small"}))
	}
	if s.Stale != "" {
		items = append(items, richText(textRun{Type: "TextRun", Text: "⚠️ May be stale: " + bot.Cut(s.Stale, 500), Color: "Warning"}))
	}
	return items
}

// missingHint is the advice under the closest matches of a "no coverage"
// answer for a missing name.
const missingHint = "The sources this conversation can see never mention it: check the spelling, or that the source holding it is indexed and visible here."

// refusedText cuts text to at most maxRefusedText bytes, and further until
// it fits maxActivity as a plain activity (JSON escapes can double it).
func refusedText(text string) string {
	n := maxRefusedText
	for {
		t := bot.Cut(text, n)
		if utf16Size(marshal(plainActivity(t))) <= maxActivity || n < 500 {
			return t
		}
		n = n * 3 / 4
	}
}

// moreItems lists snippets shown without code: a title (bot.MoreTitle), then
// per snippet (at most maxMoreLines) its linked label and symbol, then how many
// are left and how to narrow the answer.
func moreItems(rest []retrieval.Snippet, title string) []element {
	items := []element{richText(textRun{Type: "TextRun", Text: title, Weight: "Bolder"})}
	for _, s := range rest[:min(len(rest), maxMoreLines)] {
		line := citationLink(s)
		line.Spacing = "None"
		items = append(items, line)
		if s.Symbol != "" {
			items = append(items, richText(textRun{Type: "TextRun", Text: bot.Cut(s.Symbol, 150), IsSubtle: true, Size: "Small"}))
		}
	}
	if left := len(rest) - maxMoreLines; left > 0 {
		items = append(items, richText(textRun{Type: "TextRun",
			Text: "… " + strconv.Itoa(left) + " more: ask with a file or symbol name to narrow the list", IsSubtle: true, Italic: true}))
	}
	return items
}

// warnings shows answer-wide notices, one block each.
func warnings(ws []string) []element {
	var out []element
	for _, w := range ws {
		out = append(out, richText(textRun{Type: "TextRun", Text: "⚠️ " + bot.Cut(w, 500), Color: "Warning"}))
	}
	return out
}

// citationLink is the snippet's label as a markdown link to its lines at its
// commit, or as plain text when it has no safe http(s) URL. The label is
// escaped, so a path cannot format or link anything.
func citationLink(s retrieval.Snippet) element {
	if _, ok := linkURL(s.URL); !ok {
		return richText(textRun{Type: "TextRun", Text: s.Label(), Weight: "Bolder"})
	}
	return textBlock(citationMarkdown(s))
}

// citationMarkdown is the snippet's escaped label in bold, linked to its
// lines when it has a safe http(s) URL.
func citationMarkdown(s retrieval.Snippet) string {
	label := escapeMarkdown(s.Label())
	if u, ok := linkURL(s.URL); ok {
		label = "[" + label + "](" + u + ")"
	}
	return "**" + label + "**"
}

// citationMeta is "Symbol · source@commit7 · author · indexed 5 minutes
// ago"; when the label names the source already (a doc snippet), "commit
// 3f1c2d4" or nothing takes source@commit7's place.
func citationMeta(s retrieval.Snippet, now time.Time) string {
	var parts []string
	if s.Symbol != "" {
		parts = append(parts, bot.Cut(s.Symbol, 200))
	}
	src := s.SourceName()
	if c := s.ShortCommit(); c != "" {
		src += "@" + c
	}
	switch c := s.ShortCommit(); {
	case s.Where() == s.Path:
		parts = append(parts, src)
	case c != "":
		parts = append(parts, "commit "+c)
	}
	if s.Author != "" {
		parts = append(parts, bot.Cut(s.Author, 100))
	}
	if !s.IndexedAt.IsZero() {
		parts = append(parts, "indexed "+retrieval.Ago(now.Sub(s.IndexedAt)))
	}
	return strings.Join(parts, " · ")
}

// markdownEscaper backslash-escapes what the TextBlock markdown subset
// (bold, italic, lists, links; CommonMark rules) gives meaning to.
var markdownEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`,
	"`", "\\`", "~", `\~`, "<", `\<`, ">", `\>`, "#", `\#`, "\n", " ", "\r", " ")

func escapeMarkdown(s string) string { return markdownEscaper.Replace(s) }

// linkURL returns u for a markdown link target: only http(s), with the
// characters that would end or break the target percent-encoded.
func linkURL(u string) (string, bool) {
	if !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
		return "", false
	}
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\n", "", "\r", "").Replace(u), true
}

// trimCode keeps whole lines of code within limit bytes (a single longer
// line is cut) and returns them with the count of lines left out, plus more
// (lines retrieval already cut). Spacing is kept (see keepSpaces).
func trimCode(code string, more, limit int) (string, int) {
	body, left := bot.KeepLines(code, limit, keepSpaces, bot.Cut)
	return body, more + left
}

// nbsp is a no-break space: card renderers collapse runs of white space
// (HTML rules) but keep these.
const nbsp = "\u00a0"

// keepSpaces makes a code line's spacing survive rendering: tabs become four
// spaces, indentation becomes no-break spaces, and inside the line each run
// of spaces keeps its width with no-break spaces and one breakable space at
// its end.
func keepSpaces(line string) string {
	line = strings.ReplaceAll(line, "\t", "    ")
	body := strings.TrimLeft(line, " ")
	indent := strings.Repeat(nbsp, len(line)-len(body))
	if !strings.Contains(body, "  ") {
		return indent + body
	}
	var b strings.Builder
	spaces := 0
	for _, r := range body {
		if r == ' ' {
			spaces++
			continue
		}
		if spaces > 0 {
			b.WriteString(strings.Repeat(nbsp, spaces-1) + " ")
			spaces = 0
		}
		b.WriteRune(r)
	}
	return indent + b.String()
}

// unavailableText is bot.UnavailableText with a warning sign.
func unavailableText(requestID string) string { return "⚠️ " + bot.UnavailableText(requestID) }
