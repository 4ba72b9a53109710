package bot

import (
	"context"
	"fmt"

	"github.com/ragbot/ragbot/retrieval"
)

// UsageAllAction is the id of the "Show all N uses" action under a usage
// answer that shows some uses without their code (WithCode), on every
// surface; the action carries the question searched.
const UsageAllAction = "usage_show_all"

// NotUsageText answers "Show all N uses" when the question is no longer
// answered as a list of uses (the index changed since).
const NotUsageText = "That is no longer answered as a list of uses."

// ShowAllTitle is the action's label: "Show all 8 uses".
func ShowAllTitle(u retrieval.Usage) string { return fmt.Sprintf("Show all %d uses", u.Sites) }

// AskUses asks question again by a for "Show all N uses" clicked in
// conversation, with the access an answer there has (Sources, GroupsFor
// with user and private), never broader. ok is false, and nothing is
// asked, when the conversation may see no source. A usage answer has a
// non-nil Usage; any other means NotUsageText.
func (a Access) AskUses(ctx context.Context, by Answerer, question, conversation, user string, private bool) (ans retrieval.Answer, ok bool, err error) {
	sources := a.Sources(conversation)
	if len(sources) == 0 {
		return retrieval.Answer{}, false, nil
	}
	ans, err = by.Ask(ctx, retrieval.Request{Question: question, Sources: sources, Groups: a.GroupsFor(conversation, user, private)})
	return ans, true, err
}

// UseLines writes every use of the usage answer ans (Usage non-nil),
// definitions first, one line each, "• <cite(s)> · <symbol(s.Symbol)>"
// with " (definition)" on a definition and no symbol part when it has
// none, while the lines with a newline each total at most budget bytes;
// more counts the uses left out.
func UseLines(ans retrieval.Answer, budget int, cite func(retrieval.Snippet) string, symbol func(string) string) (lines []string, more int) {
	total := 0
	for i, s := range ans.Snippets {
		l := "• " + cite(s)
		if s.Symbol != "" {
			l += " · " + symbol(s.Symbol)
		}
		if i < ans.Usage.Definitions {
			l += " (definition)"
		}
		if total += len(l) + 1; total > budget {
			return lines, len(ans.Snippets) - i
		}
		lines = append(lines, l)
	}
	return lines, 0
}
