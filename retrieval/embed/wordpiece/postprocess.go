package wordpiece

import (
	"encoding/json"
	"fmt"
)

// postProcessor is tokenizer.json's post_processor: either TemplateProcessing
// or BertProcessing (Hugging Face tokenizers docs, "Post-processors").
type postProcessor struct {
	Type string `json:"type"`

	// TemplateProcessing
	Single []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int64 `json:"ids"`
	} `json:"special_tokens"`

	// BertProcessing: ["[SEP]", 102]
	Sep []json.RawMessage `json:"sep"`
	Cls []json.RawMessage `json:"cls"`
}

// clsSep returns the ids put before and after a single sequence, and an error
// unless the template is exactly [CLS] $A [SEP] with one id per special token.
func (p *postProcessor) clsSep() (cls, sep int64, err error) {
	switch p.Type {
	case "BertProcessing":
		if cls, err = pairID(p.Cls); err != nil {
			return 0, 0, fmt.Errorf("cls: %w", err)
		}
		if sep, err = pairID(p.Sep); err != nil {
			return 0, 0, fmt.Errorf("sep: %w", err)
		}
		return cls, sep, nil
	case "TemplateProcessing":
		s := p.Single
		if len(s) != 3 || s[0].SpecialToken == nil || s[1].Sequence == nil || s[1].Sequence.ID != "A" || s[2].SpecialToken == nil {
			return 0, 0, fmt.Errorf("single: want the template [CLS] $A [SEP], got %d items", len(s))
		}
		if cls, err = p.templateID(s[0].SpecialToken.ID); err != nil {
			return 0, 0, err
		}
		if sep, err = p.templateID(s[2].SpecialToken.ID); err != nil {
			return 0, 0, err
		}
		return cls, sep, nil
	}
	return 0, 0, fmt.Errorf(`type: %q is not supported, want "TemplateProcessing" or "BertProcessing"`, p.Type)
}

func (p *postProcessor) templateID(name string) (int64, error) {
	tok, ok := p.SpecialTokens[name]
	if !ok {
		return 0, fmt.Errorf("special_tokens: %q used in single but not defined", name)
	}
	if len(tok.IDs) != 1 {
		return 0, fmt.Errorf("special_tokens: %q has %d ids, want 1", name, len(tok.IDs))
	}
	return tok.IDs[0], nil
}

// pairID reads BertProcessing's ["[SEP]", 102].
func pairID(pair []json.RawMessage) (int64, error) {
	var id int64
	if len(pair) != 2 || json.Unmarshal(pair[1], &id) != nil {
		return 0, fmt.Errorf(`want ["token", id]`)
	}
	return id, nil
}
