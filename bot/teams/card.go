package teams

import (
	"bytes"
	"encoding/json"
	"unicode/utf16"
	"unicode/utf8"
)

// The wire shapes of an outgoing activity and its Adaptive Card
// (Bot Framework REST API reference, 'Reply to activity' and 'Update
// activity'; Teams docs, 'Format your bot messages'; adaptivecards.io
// schema 1.5, which Teams renders).

// outActivity is a reply or an update.
type outActivity struct {
	Type        string       `json:"type"` // "message"
	ID          string       `json:"id,omitempty"`
	Text        string       `json:"text,omitempty"`
	TextFormat  string       `json:"textFormat,omitempty"` // "plain": nothing in Text is formatted
	Summary     string       `json:"summary,omitempty"`    // notification text of a card
	ReplyToID   string       `json:"replyToId,omitempty"`
	Attachments []attachment `json:"attachments,omitempty"`
	// fallback is the plain text sent instead when the connector refuses the card.
	fallback string
}

type attachment struct {
	ContentType string `json:"contentType"` // cardType
	Content     *card  `json:"content"`
}

const (
	cardType    = "application/vnd.microsoft.card.adaptive"
	cardSchema  = "http://adaptivecards.io/schemas/adaptive-card.json"
	cardVersion = "1.5"
)

type card struct {
	Type         string    `json:"type"` // "AdaptiveCard"
	Schema       string    `json:"$schema"`
	Version      string    `json:"version"`
	FallbackText string    `json:"fallbackText,omitempty"` // for clients that cannot render the card
	MSTeams      *msteams  `json:"msteams,omitempty"`
	Body         []element `json:"body"`
	Actions      []action  `json:"actions,omitempty"`
}

type msteams struct {
	Width string `json:"width"` // "Full": code needs the width
}

// element is the union of the card elements used: TextBlock (markdown: only
// for links we build), RichTextBlock (no markdown: everything from users and
// sources goes here) and Container.
type element struct {
	Type      string    `json:"type"`
	Text      string    `json:"text,omitempty"`    // TextBlock
	Wrap      bool      `json:"wrap,omitempty"`    // TextBlock
	Inlines   []textRun `json:"inlines,omitempty"` // RichTextBlock
	Items     []element `json:"items,omitempty"`   // Container
	Style     string    `json:"style,omitempty"`   // Container: "emphasis" shades code
	Separator bool      `json:"separator,omitempty"`
	Spacing   string    `json:"spacing,omitempty"`
}

type textRun struct {
	Type     string `json:"type"` // "TextRun"
	Text     string `json:"text"`
	FontType string `json:"fontType,omitempty"` // "Monospace" for code
	Size     string `json:"size,omitempty"`
	Weight   string `json:"weight,omitempty"`
	Color    string `json:"color,omitempty"`
	IsSubtle bool   `json:"isSubtle,omitempty"`
	Italic   bool   `json:"italic,omitempty"`
}

type action struct {
	Type  string `json:"type"` // "Action.Submit"
	Title string `json:"title"`
	Data  any    `json:"data,omitempty"` // comes back as the activity's value
}

func textBlock(markdown string) element {
	return element{Type: "TextBlock", Text: markdown, Wrap: true}
}

func richText(runs ...textRun) element { return element{Type: "RichTextBlock", Inlines: runs} }

func run(text string) textRun { return textRun{Type: "TextRun", Text: text} }

// marshal encodes v without HTML escaping ("<" stays one character, which
// also keeps the size honest).
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // our own types: cannot fail
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// utf16Size is the size of b (UTF-8 JSON) in UTF-16 bytes, the measure of
// Teams' 40 KB message limit (Teams docs, 'Format your bot messages').
func utf16Size(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		n += 2 * max(utf16.RuneLen(r), 1)
	}
	return n
}
