package teams

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ragbot/ragbot/bot"
	"github.com/ragbot/ragbot/retrieval"
)

// The "where is" message extension: a search command whose results are
// cards the user can insert in a message (Teams docs, 'Respond to search
// command').
const (
	// queryInvoke is the invoke activity name of a search command.
	queryInvoke = "composeExtension/query"
	// whereIsCommand is the command's id in
	// teams-app-manifest/manifest.json (composeExtensions[0].commands[0].id).
	whereIsCommand = "whereIs"
	// queryTimeout bounds the search: Teams waits 5 seconds for the
	// results (Teams docs, 'Respond to search command').
	queryTimeout = 4500 * time.Millisecond
	// queryCode bounds the code of one result card, in bytes.
	queryCode = 1500
	thumbnail = "application/vnd.microsoft.card.thumbnail"
)

// queryValue is the value of a composeExtension/query invoke.
type queryValue struct {
	CommandID  string `json:"commandId"`
	Parameters []struct {
		Name  string `json:"name"`  // the manifest's parameter name, or "initialRun"
		Value string `json:"value"` // what the user typed
	} `json:"parameters"`
}

// queryResponse is the invoke's HTTP response body.
type queryResponse struct {
	ComposeExtension queryResult `json:"composeExtension"`
}

type queryResult struct {
	Type             string            `json:"type"` // "result", or "message" with Text
	AttachmentLayout string            `json:"attachmentLayout,omitempty"`
	Attachments      []queryAttachment `json:"attachments,omitempty"`
	Text             string            `json:"text,omitempty"`
}

// queryAttachment is a result: the Adaptive Card inserted in the message,
// and the thumbnail card Teams lists it by (an Adaptive Card result needs
// one).
type queryAttachment struct {
	attachment
	Preview struct {
		ContentType string `json:"contentType"` // thumbnail
		Content     struct {
			Title    string `json:"title"`
			Subtitle string `json:"subtitle"`
		} `json:"content"`
	} `json:"preview"`
}

// query answers a search command: what the user typed, searched by
// Config.Lister in the sources of the conversation; each snippet is a
// result (definitions first, see bot.Definitions), a card with the
// answer's warnings, its citation and code. The card is meant to be posted in the conversation,
// so only the conversation's ACL groups apply, never the user's own.
// Problems (no text, no sources, nothing found, busy, unavailable) are a
// "message" result saying so.
func (b *Bot) query(ctx context.Context, a *Activity) queryResult {
	say := func(text string) queryResult { return queryResult{Type: "message", Text: text} }
	var v queryValue
	if err := json.Unmarshal(a.Value, &v); err != nil || v.CommandID != whereIsCommand {
		b.log.Warn("message extension: unknown command; update the Teams app package", "command", v.CommandID, "err", err)
		return say("This version of ragbot doesn't know that command; ask whoever runs ragbot to update its Teams app.")
	}
	q := ""
	for _, p := range v.Parameters {
		if p.Name != "initialRun" {
			q = strings.Join(strings.Fields(p.Value), " ")
		}
	}
	if q == "" {
		return say("Type a function, type, file or error message, e.g. UserRepository.findByEmail.")
	}
	t := a.place()
	id := bot.RequestID("")
	log := b.log.With("request_id", id, "channel", t.Channel, "command", whereIsCommand)
	sources := b.cfg.Access.Sources(t.Channel)
	if len(sources) == 0 {
		log.Warn("conversation may see no source; see access in ragbot.yaml")
		return say(noSourcesText(t.Channel))
	}
	limit := min(b.cfg.AnswerTimeout, queryTimeout)
	sctx, cancel := context.WithTimeoutCause(ctx, limit, fmt.Errorf("message extension timeout %s exceeded", limit))
	defer cancel()
	ans, err := b.cfg.Lister.Ask(sctx, retrieval.Request{Question: q, Sources: sources, Groups: b.cfg.Access.GroupsFor(t.Channel, "", false)})
	if busy := (*bot.BusyError)(nil); errors.As(err, &busy) {
		log.Warn("busy: question refused", "reason", busy.Reason, "ahead", busy.Ahead)
		return say("⏳ " + bot.BusyText(busy.Ahead))
	}
	if err != nil {
		log.Error("search failed; told the user it is unavailable", "err", err, "cause", context.Cause(sctx))
		return say(unavailableText(id))
	}
	if ans.Coverage == retrieval.NoCoverage || len(ans.Snippets) == 0 {
		text := "Nothing indexed that this conversation can see matches “" + bot.Cut(q, 200) + "”."
		if ans.Missing != "" {
			text = "Nothing indexed that this conversation can see mentions “" + bot.Cut(ans.Missing, 200) + "”."
		}
		return say(text)
	}
	defs, rest := bot.Definitions(ans.Snippets, q)
	now := b.cfg.Now()
	res := queryResult{Type: "result", AttachmentLayout: "list"}
	for _, s := range slices.Concat(defs, rest) {
		meta := citationMeta(s, now)
		c := cardActivity(&card{Body: append(warnings(ans.Warnings), snippetItems(s, now, queryCode)...)}, "", s.Label()+" · "+meta+"\n"+s.URL)
		r := queryAttachment{attachment: c.Attachments[0]}
		r.Preview.ContentType, r.Preview.Content.Title, r.Preview.Content.Subtitle = thumbnail, s.Label(), meta
		if ans.Coverage == retrieval.NotSure {
			r.Preview.Content.Title = "❔ closest match: " + r.Preview.Content.Title
		}
		res.Attachments = append(res.Attachments, r)
	}
	log.Info("listed", "coverage", ans.Coverage, "snippets", len(ans.Snippets))
	return res
}
