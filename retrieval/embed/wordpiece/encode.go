package wordpiece

import (
	"strings"
	"unicode/utf8"
)

// CLS returns the id put before every sequence ([CLS], 101 in BERT's uncased vocabulary).
func (t *Tokenizer) CLS() int64 { return t.cls }

// SEP returns the id put after every sequence ([SEP], 102 in BERT's uncased vocabulary).
func (t *Tokenizer) SEP() int64 { return t.sep }

// PAD returns the id of [PAD] (0 in BERT's uncased vocabulary), for callers that pad
// a batch to one length; pair it with attention mask 0. Encode never pads.
func (t *Tokenizer) PAD() int64 { return t.pad }

// Encode returns the token ids of text: CLS, the word pieces, SEP. The result
// has at most maxTokens ids (the model's input length, such as 256 for
// all-MiniLM-L6-v2 as sentence-transformers runs it): it keeps the first
// maxTokens-2 word pieces, like Hugging Face's
// enable_truncation(max_length=maxTokens) on one sequence.
// maxTokens <= 0 means no limit, and so does 1, as in Hugging Face, which
// skips truncation when max_length is shorter than the two special tokens.
// Text must be UTF-8; an invalid byte counts as U+FFFD, which BertNormalizer's
// clean_text removes. Encode stops reading text once it has maxTokens-2 pieces.
// It is safe for concurrent use.
func (t *Tokenizer) Encode(text string, maxTokens int) []int64 {
	limit := -1 // word pieces allowed between CLS and SEP; -1: any number
	if maxTokens >= 2 {
		limit = maxTokens - 2
	}
	n := len(text)/3 + 2 // about 3.5 bytes per piece in code and English
	if limit >= 0 {
		n = min(n, limit+2)
	}
	e := encoder{t: t, limit: limit, ids: make([]int64, 1, n)}
	e.ids[0] = t.cls
	e.word = e.wordBuf[:0]
	e.run(text)
	if limit >= 0 && len(e.ids)-1 > limit {
		e.ids = e.ids[:1+limit]
	}
	return append(e.ids, t.sep)
}

// encoder holds the state of one Encode call.
type encoder struct {
	t     *Tokenizer
	limit int
	ids   []int64
	word  []byte    // the current pre-token, normalized
	words *[]string // if set, flush collects words here instead of encoding them (tests)

	wordBuf [64]byte
	nfd     [32]byte
}

func (e *encoder) full() bool { return e.limit >= 0 && len(e.ids)-1 >= e.limit }

// run normalizes and pre-tokenizes text in one pass, sending each word to
// WordPiece as soon as it ends.
func (e *encoder) run(text string) {
	t := e.t
	for i := 0; i < len(text) && !e.full(); {
		c := text[i]
		if t.firstBytes[c] {
			if sp, ok := t.matchSpecial(text[i:]); ok {
				e.flush()
				e.ids = append(e.ids, sp.id)
				i += len(sp.content)
				continue
			}
		}
		if c < utf8.RuneSelf {
			e.ascii(c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		e.rune(r)
	}
	e.flush()
}

// matchSpecial returns the longest added token that s starts with.
func (t *Tokenizer) matchSpecial(s string) (special, bool) {
	for _, sp := range t.specials {
		if strings.HasPrefix(s, sp.content) {
			return sp, true
		}
	}
	return special{}, false
}

// ascii handles one byte below 0x80: the fast path of rune.
func (e *encoder) ascii(c byte) {
	n := e.t.norm
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
		if c == '\v' || c == '\f' { // Cc: clean_text drops them, else they split words
			if n.cleanText {
				return
			}
		}
		e.flush()
	case c < 0x20 || c == 0x7f:
		if !n.cleanText {
			e.word = append(e.word, c)
		}
	case isASCIIPunct(c):
		e.flush()
		e.word = append(e.word, c)
		e.flush()
	default:
		if n.lowercase && 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		e.word = append(e.word, c)
	}
}

// rune handles one rune from 0x80 up: BertNormalizer's steps in its order
// (clean_text, handle_chinese_chars, strip_accents, lowercase), then the
// pre-tokenizer's split on each rune that comes out.
func (e *encoder) rune(r rune) {
	n := e.t.norm
	if n.cleanText && (r == utf8.RuneError || isControl(r)) {
		return
	}
	if isWhitespace(r) {
		e.flush()
		return
	}
	cjk := n.chineseChars && isChinese(r)
	if cjk {
		e.flush()
	}
	if !n.stripAccents {
		e.lower(r)
	} else {
		d := nfd(e.nfd[:0], r)
		for len(d) > 0 {
			r, size := utf8.DecodeRune(d)
			d = d[size:]
			if !isMn(r) {
				e.lower(r)
			}
		}
	}
	if cjk {
		e.flush()
	}
}

// lower applies BertNormalizer's lowercase step to r, then pre-tokenizes.
func (e *encoder) lower(r rune) {
	if !e.t.norm.lowercase {
		e.out(r)
		return
	}
	if r == 'İ' { // Rust's char::to_lowercase, from SpecialCasing.txt: two runes
		e.out('i')
		e.out('\u0307')
		return
	}
	e.out(toLower(r))
}

// out is BertPreTokenizer for one normalized rune: whitespace ends a word, a
// punctuation rune is a word of its own, anything else extends the word.
func (e *encoder) out(r rune) {
	switch {
	case isWhitespace(r):
		e.flush()
	case isPunct(r):
		e.flush()
		e.word = utf8.AppendRune(e.word, r)
		e.flush()
	default:
		e.word = utf8.AppendRune(e.word, r)
	}
}

// flush ends the current word and appends its word pieces.
func (e *encoder) flush() {
	if len(e.word) == 0 {
		return
	}
	if e.words != nil {
		*e.words = append(*e.words, string(e.word))
	} else {
		e.t.pieces(e, e.word)
	}
	e.word = e.word[:0]
}

// pieces appends the WordPiece ids of word: greedy longest match first, the
// pieces after the first looked up with the "##" prefix; a word of more than
// max_input_chars_per_word runes, or one that cannot be split into vocabulary
// pieces, becomes a single [UNK] (Hugging Face tokenizers, models/wordpiece;
// the algorithm of BERT's tokenization.py, WordpieceTokenizer.tokenize).
func (t *Tokenizer) pieces(e *encoder, word []byte) {
	if len(word) > t.maxChars && utf8.RuneCount(word) > t.maxChars {
		e.ids = append(e.ids, t.unk)
		return
	}
	mark := len(e.ids)
	for start := 0; start < len(word); {
		vocab, longest := t.vocab, t.maxPiece
		if start > 0 {
			vocab, longest = t.cont, t.maxPiece-2
		}
		end := min(len(word), start+longest)
		for end < len(word) && !utf8.RuneStart(word[end]) {
			end--
		}
		id, found := int32(0), false
		for end > start {
			if id, found = vocab[string(word[start:end])]; found {
				break
			}
			end--
			for end > start && !utf8.RuneStart(word[end]) {
				end--
			}
		}
		if !found {
			e.ids = append(e.ids[:mark], t.unk)
			return
		}
		e.ids = append(e.ids, int64(id))
		start = end
	}
}
