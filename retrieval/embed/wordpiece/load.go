package wordpiece

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

// A Tokenizer encodes text into the input ids of one BERT-family model. It is
// immutable after Load, so Encode is safe for concurrent use.
type Tokenizer struct {
	norm normalizer

	vocab    map[string]int32 // word-initial pieces
	cont     map[string]int32 // continuation pieces, keyed without the "##" prefix
	maxPiece int              // longest vocab entry in bytes, prefix included
	maxChars int              // max_input_chars_per_word: longer words become [UNK]

	unk, cls, sep, pad int64

	specials   []special // added tokens, longest first
	firstBytes [256]bool // first bytes of the added tokens' contents
}

// special is an added token matched verbatim in the raw text, before
// normalization, as Hugging Face's AddedVocabulary does for tokens with
// "normalized": false.
type special struct {
	content string
	id      int64
}

// normalizer holds BertNormalizer's four switches.
type normalizer struct {
	cleanText, chineseChars, stripAccents, lowercase bool
}

// file is the subset of tokenizer.json this package reads. The format is
// Hugging Face tokenizers' serialization (tokenizers/src/tokenizer/serialization.rs).
type file struct {
	AddedTokens []struct {
		ID         int64  `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		LStrip     bool   `json:"lstrip"`
		RStrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
	} `json:"added_tokens"`
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          bool   `json:"clean_text"`
		HandleChineseChars bool   `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          bool   `json:"lowercase"`
	} `json:"normalizer"`
	PreTokenizer *struct {
		Type string `json:"type"`
	} `json:"pre_tokenizer"`
	PostProcessor *postProcessor `json:"post_processor"`
	Model         struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   map[string]int64 `json:"vocab"`
	} `json:"model"`
}

// Load reads a Hugging Face tokenizer.json. It accepts only the BERT pipeline:
// normalizer BertNormalizer, pre_tokenizer BertPreTokenizer, model WordPiece
// with the "##" continuation prefix, and post_processor TemplateProcessing
// "[CLS] $A [SEP]" or BertProcessing. Added tokens must have normalized,
// lstrip, rstrip and single_word false. The file's truncation and padding
// settings are ignored: Encode's maxTokens decides, and nothing is padded.
//
// Errors name the file and the field, such as
// `wordpiece: tokenizer.json: normalizer.type: "Sequence" is not supported, want "BertNormalizer"`.
func Load(path string) (*Tokenizer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("wordpiece: %w", err)
	}
	t, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("wordpiece: %s: %w", path, err)
	}
	return t, nil
}

func parse(data []byte) (*Tokenizer, error) {
	var f file
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, err
	}
	t := &Tokenizer{}
	if err := t.setNormalizer(&f); err != nil {
		return nil, err
	}
	if f.PreTokenizer == nil {
		return nil, fmt.Errorf(`pre_tokenizer: missing, want type "BertPreTokenizer"`)
	}
	if f.PreTokenizer.Type != "BertPreTokenizer" {
		return nil, fmt.Errorf(`pre_tokenizer.type: %q is not supported, want "BertPreTokenizer"`, f.PreTokenizer.Type)
	}
	if err := t.setModel(&f); err != nil {
		return nil, err
	}
	if err := t.setSpecials(&f); err != nil {
		return nil, err
	}
	if f.PostProcessor == nil {
		return nil, fmt.Errorf(`post_processor: missing, want "TemplateProcessing" or "BertProcessing" adding [CLS] $A [SEP]`)
	}
	cls, sep, err := f.PostProcessor.clsSep()
	if err != nil {
		return nil, fmt.Errorf("post_processor: %w", err)
	}
	t.cls, t.sep = cls, sep
	return t, nil
}

func (t *Tokenizer) setNormalizer(f *file) error {
	n := f.Normalizer
	if n == nil {
		return fmt.Errorf(`normalizer: missing, want type "BertNormalizer"`)
	}
	if n.Type != "BertNormalizer" {
		return fmt.Errorf(`normalizer.type: %q is not supported, want "BertNormalizer"`, n.Type)
	}
	// strip_accents null means "same as lowercase" (BertNormalizer docs).
	strip := n.Lowercase
	if n.StripAccents != nil {
		strip = *n.StripAccents
	}
	t.norm = normalizer{n.CleanText, n.HandleChineseChars, strip, n.Lowercase}
	return nil
}

func (t *Tokenizer) setModel(f *file) error {
	m := &f.Model
	switch {
	case m.Type != "WordPiece":
		return fmt.Errorf(`model.type: %q is not supported, want "WordPiece"`, m.Type)
	case m.ContinuingSubwordPrefix != "##":
		return fmt.Errorf(`model.continuing_subword_prefix: %q is not supported, want "##"`, m.ContinuingSubwordPrefix)
	case m.MaxInputCharsPerWord <= 0:
		return fmt.Errorf("model.max_input_chars_per_word: %d, want a positive number of characters", m.MaxInputCharsPerWord)
	case len(m.Vocab) == 0:
		return fmt.Errorf("model.vocab: empty")
	}
	t.maxChars = m.MaxInputCharsPerWord
	t.vocab = make(map[string]int32, len(m.Vocab))
	t.cont = make(map[string]int32, len(m.Vocab)/5)
	for piece, id := range m.Vocab {
		if id < 0 || id > 1<<31-1 {
			return fmt.Errorf("model.vocab: %q has id %d, want 0 to 2^31-1", piece, id)
		}
		t.vocab[piece] = int32(id)
		if rest, ok := strings.CutPrefix(piece, "##"); ok {
			t.cont[rest] = int32(id)
		}
		t.maxPiece = max(t.maxPiece, len(piece))
	}
	unk, ok := m.Vocab[m.UnkToken]
	if !ok {
		return fmt.Errorf("model.unk_token: %q is not in model.vocab", m.UnkToken)
	}
	t.unk = unk
	pad, ok := m.Vocab["[PAD]"]
	if !ok {
		return fmt.Errorf(`model.vocab: no "[PAD]" token`)
	}
	t.pad = pad
	return nil
}

func (t *Tokenizer) setSpecials(f *file) error {
	for i, a := range f.AddedTokens {
		switch {
		case a.Content == "":
			return fmt.Errorf("added_tokens[%d]: empty content", i)
		case a.Normalized || a.LStrip || a.RStrip || a.SingleWord:
			return fmt.Errorf("added_tokens[%d] %q: normalized, lstrip, rstrip and single_word must be false", i, a.Content)
		}
		t.specials = append(t.specials, special{a.Content, a.ID})
		t.firstBytes[a.Content[0]] = true
	}
	// Longest first, so that the first prefix found at a position is the
	// longest one, as the leftmost-longest match in Hugging Face's AddedVocabulary.
	sort.SliceStable(t.specials, func(i, j int) bool {
		return len(t.specials[i].content) > len(t.specials[j].content)
	})
	return nil
}
