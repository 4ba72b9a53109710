package bot

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ragbot/ragbot/retrieval"
)

// Thread is where a reply goes.
type Thread struct {
	Channel string // conversation id (Slack "C0123", "D0123" for a direct message)
	TS      string // id of the thread's root message (Slack thread_ts)
}

// A Mention is one question addressed to the bot.
type Mention struct {
	// DeliveryID is the platform's id of the event, the same on every retry
	// of its delivery (Slack event_id). Empty disables deduplication.
	DeliveryID string
	Thread     Thread // where to answer: the existing thread, or a new one under the message
	TS         string // id of the asking message
	InThread   bool   // the message is a reply inside an existing thread
	User       string // platform user id
	// Private: only User sees the answer (a direct message, a Teams personal
	// chat), so User's ACL groups apply (Access.GroupsFor).
	Private bool
	Text    string // the question as written, without the bot's mention, unescaped
}

// ReplyKind says what a Reply carries.
type ReplyKind int

// Kinds of reply, in the order a thread sees them.
const (
	Searching   ReplyKind = iota // received; the answer replaces this reply
	Answered                     // Answer holds the answer (covered, not sure, or no coverage)
	Unavailable                  // the search failed or timed out: say so instead of staying silent
	NoSources                    // the channel may not see any source
	Help                         // the mention held no question
	Busy                         // refused by Admission: Ahead questions were ahead of it (BusyText)
)

// A Reply is what the bot says in a thread; each Surface renders it its way.
type Reply struct {
	Kind   ReplyKind
	Asked  string           // the question as the user wrote it
	Answer retrieval.Answer // Answered only; Answer.Question is the text searched (see FollowUp)
	// RequestID is the answer's id in the log (RequestID); surfaces show it
	// in the Unavailable reply so a user's screenshot leads to the log line.
	RequestID string
	// Ahead is, for Busy, the number of questions ahead of this one.
	Ahead int
}

// A Surface is what a chat platform does for the bot.
type Surface interface {
	// Reply posts r in the thread when ts is "", else replaces the message
	// ts with r, and returns the id of the message.
	Reply(ctx context.Context, to Thread, ts string, r Reply) (string, error)
	// Earlier returns the text of the thread's messages older than the
	// message before, root first, leaving out the bot's own and other bots'
	// messages.
	Earlier(ctx context.Context, to Thread, before string) ([]string, error)
}

// String names the kind for logs.
func (k ReplyKind) String() string {
	switch k {
	case Searching:
		return "searching"
	case Answered:
		return "answered"
	case Unavailable:
		return "unavailable"
	case NoSources:
		return "no_sources"
	case Help:
		return "help"
	case Busy:
		return "busy"
	}
	return fmt.Sprintf("ReplyKind(%d)", int(k))
}

// NotSureTitle heads a "not sure" answer (retrieval.NotSure) on every
// surface, so it never reads as an answer.
const NotSureTitle = "Not sure: nothing indexed clearly answers this. The closest matches:"

// WithCode is how many of ans's snippets a surface shows with their code,
// first: at most most (the surface's own bound), and at most
// retrieval.NotSureMatches in a "not sure" answer, or a "no coverage" one
// listing closest matches (retrieval.Answer.ClosestFor), whose other
// matches are listed one line each; in a usage answer, its definitions and
// the first retrieval.UsageWithCode sites.
func WithCode(ans retrieval.Answer, most int) int {
	if ans.Coverage == retrieval.NotSure || ans.Coverage == retrieval.NoCoverage {
		most = min(most, retrieval.NotSureMatches)
	}
	if u := ans.Usage; u != nil {
		most = min(most, u.Definitions+retrieval.UsageWithCode)
	}
	return min(len(ans.Snippets), most)
}

// MissingTitle heads a "no coverage" answer that names what is missing and
// lists the closest matches for the rest of the question
// (retrieval.Answer.ClosestFor) on every surface: "Nothing indexed
// mentions “rabbitmq”. The closest matches for “send alerts”:".
func MissingTitle(ans retrieval.Answer) string { return MissingTitleQuoting(ans, plain) }

// MissingTitleQuoting is MissingTitle with the asker's words (the missing
// name, the rest of the question) passed through quote, for a surface that
// must neutralise formatting in them (Slack's mrkdwn); the rest of the
// sentence is plain text.
func MissingTitleQuoting(ans retrieval.Answer, quote func(string) string) string {
	return "Nothing indexed mentions “" + quote(Cut(ans.Missing, 200)) + "”. The closest matches for “" + quote(Cut(ans.ClosestFor, 300)) + "”:"
}

// DidYouMeanText says, on every surface, that words of the question were
// read as typos (retrieval.Answer.DidYouMean) and the answer is for the
// question with the corrections: "Did you mean “retry”? The matches are
// for the question with it."
func DidYouMeanText(ans retrieval.Answer) string { return DidYouMeanQuoting(ans, plain) }

// DidYouMeanQuoting is DidYouMeanText with the corrections passed through
// quote (see MissingTitleQuoting).
func DidYouMeanQuoting(ans retrieval.Answer, quote func(string) string) string {
	return "Did you mean “" + quote(Cut(ans.DidYouMean, 200)) + "”? The matches are for the question with it."
}

func plain(s string) string { return s }

// Cut shortens s to at most n bytes at a rune boundary, marking the cut with "…".
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// UnavailableText is the reply to a failed search, after the surface's
// warning sign. It names the request id (RequestID) that the answer's log
// lines carry, so the operator can go from a user's screenshot to the cause.
func UnavailableText(requestID string) string {
	ref := ""
	if requestID != "" {
		ref = " (request " + requestID + ")"
	}
	return "Search is temporarily unavailable" + ref + ": I couldn't reach the index. Please try again in a few minutes."
}

// KeepLines passes each line of code (its final newlines dropped) through
// line and keeps whole lines, joined by "\n", while they fit in limit bytes;
// a first line longer than that is cut with cut. left counts the lines left out.
func KeepLines(code string, limit int, line func(string) string, cut func(string, int) string) (body string, left int) {
	lines := strings.Split(strings.TrimRight(code, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		l = line(l)
		switch {
		case i == 0 && len(l) > limit:
			return cut(l, limit), len(lines) - 1
		case i > 0 && b.Len()+1+len(l) > limit:
			return b.String(), len(lines) - i
		case i > 0:
			b.WriteByte('\n')
		}
		b.WriteString(l)
	}
	return b.String(), 0
}

// MoreTitle heads the list of the n snippets of an answer of coverage cov
// shown without code, on every surface: "2 more results", or "7 more close
// matches" in a "not sure" answer and a "no coverage" one listing closest
// matches.
func MoreTitle(cov retrieval.Coverage, n int) string {
	one, many := "result", "results"
	if cov == retrieval.NotSure || cov == retrieval.NoCoverage {
		one, many = "close match", "close matches"
	}
	if n == 1 {
		return "1 more " + one
	}
	return fmt.Sprintf("%d more %s", n, many)
}

// MoreTitleOf is MoreTitle for ans: "9 more uses" in a usage answer.
func MoreTitleOf(ans retrieval.Answer, n int) string {
	if ans.Usage != nil {
		if n == 1 {
			return "1 more use"
		}
		return fmt.Sprintf("%d more uses", n)
	}
	return MoreTitle(ans.Coverage, n)
}

// NotSureHint is the plain-text advice under a "not sure" answer's closest
// matches: how to ask by name for a sure answer, with the first match's
// symbol as the example when it is code with a symbol.
func NotSureHint(ans retrieval.Answer) string {
	hint := "For a sure answer, ask by name: a function, type, file or error message"
	if len(ans.Snippets) > 0 {
		if s := ans.Snippets[0]; s.Symbol != "" && s.Kind == retrieval.KindCode {
			return hint + " (“where is " + s.Symbol + "?” if [1] is what you meant)."
		}
	}
	return hint + "."
}
