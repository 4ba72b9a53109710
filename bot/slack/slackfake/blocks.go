package slackfake

import (
	"encoding/json"
	"fmt"
	"unicode/utf16"
)

// Limits Slack enforces on messages, from api.slack.com/reference/block-kit
// (blocks, block elements, composition objects) and api.slack.com/methods/chat.postMessage.
const (
	MaxText         = 40000 // characters of a message's text
	MaxBlocks       = 50    // blocks per message
	MaxSectionText  = 3000  // characters of a section's text
	MaxSectionField = 2000  // characters of one section field; at most 10 fields
	MaxContextElems = 10    // elements of a context block
	MaxTextObject   = 3000  // characters of any text object
	MaxActionElems  = 25    // elements of an actions block
	MaxButtonText   = 75    // characters of a button's label
	MaxButtonValue  = 2000  // characters of a button's value
	MaxID           = 255   // characters of a block_id or action_id
)

// CheckBlocks returns why Slack would refuse blocks ("invalid_blocks"), or
// nil. It checks the documented limits above, not the undocumented total
// (see TextLen).
func CheckBlocks(raw json.RawMessage) error {
	var blocks []struct {
		Type     string    `json:"type"`
		BlockID  string    `json:"block_id"`
		Text     *textObj  `json:"text"`
		Fields   []textObj `json:"fields"`
		Elements []element `json:"elements"`
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return fmt.Errorf("blocks are not a JSON array of blocks: %w", err)
	}
	if len(blocks) > MaxBlocks {
		return fmt.Errorf("%d blocks, more than %d", len(blocks), MaxBlocks)
	}
	for i, b := range blocks {
		if utf16Len(b.BlockID) > MaxID {
			return fmt.Errorf("block %d: block_id longer than %d", i, MaxID)
		}
		switch b.Type {
		case "section":
			if b.Text == nil && len(b.Fields) == 0 {
				return fmt.Errorf("block %d: section without text or fields", i)
			}
			if b.Text != nil && (utf16Len(b.Text.Text) > MaxSectionText || b.Text.Text == "") {
				return fmt.Errorf("block %d: section text of %d characters, want 1..%d", i, utf16Len(b.Text.Text), MaxSectionText)
			}
			if len(b.Fields) > 10 {
				return fmt.Errorf("block %d: %d fields, more than 10", i, len(b.Fields))
			}
			for _, f := range b.Fields {
				if utf16Len(f.Text) > MaxSectionField {
					return fmt.Errorf("block %d: field longer than %d", i, MaxSectionField)
				}
			}
		case "context":
			if len(b.Elements) == 0 || len(b.Elements) > MaxContextElems {
				return fmt.Errorf("block %d: context with %d elements, want 1..%d", i, len(b.Elements), MaxContextElems)
			}
			for _, e := range b.Elements {
				if utf16Len(e.Text) > MaxTextObject || e.Text == "" {
					return fmt.Errorf("block %d: context text of %d characters, want 1..%d", i, utf16Len(e.Text), MaxTextObject)
				}
			}
		case "actions":
			if len(b.Elements) == 0 || len(b.Elements) > MaxActionElems {
				return fmt.Errorf("block %d: actions with %d elements, want 1..%d", i, len(b.Elements), MaxActionElems)
			}
			for _, e := range b.Elements {
				if e.Type == "button" && (e.Label == nil || utf16Len(e.Label.Text) > MaxButtonText || utf16Len(e.Value) > MaxButtonValue || utf16Len(e.ActionID) > MaxID) {
					return fmt.Errorf("block %d: button %q over its limits", i, e.ActionID)
				}
			}
		case "divider", "header", "image", "rich_text", "markdown":
		default:
			return fmt.Errorf("block %d: unknown type %q", i, b.Type)
		}
	}
	return nil
}

type textObj struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// element is a context element (a text object) or an interactive element;
// Text is a context element's text, Label a button's.
type element struct {
	Type     string
	Text     string
	Label    *textObj
	ActionID string
	Value    string
}

func (e *element) UnmarshalJSON(b []byte) error {
	var raw struct {
		Type     string          `json:"type"`
		Text     json.RawMessage `json:"text"`
		ActionID string          `json:"action_id"`
		Value    string          `json:"value"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	e.Type, e.ActionID, e.Value = raw.Type, raw.ActionID, raw.Value
	if len(raw.Text) == 0 {
		return nil
	}
	if raw.Text[0] == '"' {
		return json.Unmarshal(raw.Text, &e.Text)
	}
	e.Label = &textObj{}
	return json.Unmarshal(raw.Text, e.Label)
}

// TextLen returns the characters (UTF-16 code units) of all text in blocks:
// section text and fields, context elements and button labels. Users report
// msg_blocks_too_long near 13,000 of them (slackapi/bolt-js issue #2509,
// "Blocks too long error at ~13200 characters"; not documented by Slack).
func TextLen(raw json.RawMessage) int {
	var blocks []struct {
		Text     *textObj  `json:"text"`
		Fields   []textObj `json:"fields"`
		Elements []element `json:"elements"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return 0
	}
	n := 0
	for _, b := range blocks {
		if b.Text != nil {
			n += utf16Len(b.Text.Text)
		}
		for _, f := range b.Fields {
			n += utf16Len(f.Text)
		}
		for _, e := range b.Elements {
			n += utf16Len(e.Text)
			if e.Label != nil {
				n += utf16Len(e.Label.Text)
			}
		}
	}
	return n
}

func utf16Len(s string) int { return len(utf16.Encode([]rune(s))) }
