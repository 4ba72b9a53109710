package slack

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/internal/humanize"
)

// mrkdwnEscaper escapes the three characters that Slack's mrkdwn gives
// meaning to (api.slack.com/reference/surfaces/formatting#escaping): text
// from sources and users then cannot ping (<!channel>), mention (<@U1>) or
// link (<https://evil|click>). Nothing else is escaped, per that page.
var mrkdwnEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

func escape(s string) string { return mrkdwnEscaper.Replace(s) }

// zwsp is U+200B ZERO WIDTH SPACE: invisible, and not a character mrkdwn
// formatting can pair with.
const zwsp = "\u200b"

// echoNeutralizer puts zero-width spaces around mrkdwn's formatting
// characters (Slack docs, 'Formatting text for app surfaces': *bold*,
// _italic_, ~strike~, `code`, ```block```): Slack only formats text a
// marker directly touches, so a marker with a zero-width space on each side
// pairs with nothing and shows as typed.
var echoNeutralizer = strings.NewReplacer("*", zwsp+"*"+zwsp, "_", zwsp+"_"+zwsp, "~", zwsp+"~"+zwsp, "`", zwsp+"`"+zwsp)

// echo renders text a user typed (a question) for mrkdwn so it shows as
// typed: escaped like any text (escape), formatting characters neutralised
// (echoNeutralizer), and a ">" that starts a line (a quote) preceded by a
// zero-width space. A plain_text object would do the same in a block, but
// echoes share their line with mrkdwn (emoji, links, the heading's
// “quotes”) and a message's text field has no plain variant, so every echo
// goes through here instead.
func echo(s string) string {
	lines := strings.Split(echoNeutralizer.Replace(escape(s)), "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "&gt;") {
			lines[i] = zwsp + l
		}
	}
	return strings.Join(lines, "\n")
}

// escapeCode escapes s for the inside of a ``` block: Slack still parses
// <...> there, and a ``` in the source would end the block early, so each
// gets zero-width spaces between its backticks. Tabs become four spaces.
func escapeCode(s string) string {
	s = strings.ReplaceAll(escape(s), "```", "`\u200b`\u200b`")
	return strings.ReplaceAll(s, "\t", "    ")
}

// inlineCode renders s as `code`, with its own backticks replaced so the
// span cannot end early.
func inlineCode(s string) string {
	return "`" + strings.ReplaceAll(escape(s), "`", "ˋ") + "`"
}

// linkLabel makes s usable as the label of <url|label>, which must not hold
// "|" (api.slack.com/reference/surfaces/formatting#linking-urls).
func linkLabel(s string) string { return strings.ReplaceAll(escape(s), "|", "¦") }

// link renders <url|label>, or just the label when url is not an http(s)
// URL safe to place between < and >.
func link(url, label string) string {
	if (!strings.HasPrefix(url, "https://") && !strings.HasPrefix(url, "http://")) || strings.ContainsAny(url, "<>| \n") {
		return linkLabel(label)
	}
	return "<" + url + "|" + linkLabel(label) + ">"
}

// cutBytes returns s cut to at most n bytes on a rune boundary, with "…"
// when cut. Byte length bounds Slack's character counts: no character is
// fewer bytes in UTF-8 than code units in UTF-16.
func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return bot.Cut(s, max(n-len("…"), 0))
}

// codeBlock renders code (raw source text) as a ``` block of at most limit
// bytes, escaped, keeping whole lines while they fit; a single line longer
// than the block is cut. more counts lines already cut upstream
// (retrieval.Snippet.MoreLines); the result says "… N more lines" for those
// and for the lines cut here.
func codeBlock(code string, more, limit int) string {
	const fence, footerRoom = "```", 40 // footerRoom fits "\n_… 9999999 more lines_"
	body, left := bot.KeepLines(code, limit-2*len(fence)-2-footerRoom, escapeCode, cutEscaped)
	more += left
	out := fence + "\n" + body + "\n" + fence
	if more > 0 {
		out += "\n_… " + strconv.Itoa(more) + " more " + humanize.Noun(more, "line") + "_"
	}
	return out
}

// cutEscaped cuts escaped text to n bytes without splitting an entity
// (&amp; &lt; &gt;) or a rune.
func cutEscaped(e string, n int) string {
	c := cutBytes(e, n)
	body := strings.TrimSuffix(c, "…")
	if amp := strings.LastIndexByte(body, '&'); amp >= 0 && !strings.Contains(body[amp:], ";") {
		return body[:amp] + "…"
	}
	return c
}

// slackEntity matches Slack's <...> sequences in incoming text: mentions
// <@U1|name>, channels <#C1|name>, specials <!here>, links <url|label>.
var slackEntity = regexp.MustCompile(`<([^<>]*)>`)

// plainText turns the text of an incoming message into the question it
// asks: the bot's mention removed, other mentions and specials dropped,
// channels and links replaced by their labels, entities unescaped
// (api.slack.com/reference/surfaces/formatting#retrieving-messages) and
// white space collapsed.
func plainText(text string) string {
	text = slackEntity.ReplaceAllStringFunc(text, func(m string) string {
		inner, label, _ := strings.Cut(m[1:len(m)-1], "|")
		switch {
		case strings.HasPrefix(inner, "@"), strings.HasPrefix(inner, "!"):
			return " "
		case strings.HasPrefix(inner, "#"):
			if label != "" {
				return "#" + label
			}
			return " "
		case label != "":
			return label
		default:
			return inner
		}
	})
	text = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(text)
	return strings.Join(strings.Fields(text), " ")
}
