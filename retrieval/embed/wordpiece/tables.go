package wordpiece

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// isASCIIPunct reports whether c is in 33-47, 58-64, 91-96 or 123-126: Rust's
// char::is_ascii_punctuation, which BertPreTokenizer isolates even where
// Unicode says symbol ($, +, <, =, >, ^, `, |, ~).
func isASCIIPunct(c byte) bool {
	return '!' <= c && c <= '/' || ':' <= c && c <= '@' || '[' <= c && c <= '`' || '{' <= c && c <= '~'
}

// isWhitespace is Rust's char::is_whitespace (the Unicode White_Space
// property), which BertNormalizer and BertPreTokenizer use; Go's unicode.IsSpace
// is the same set.
func isWhitespace(r rune) bool { return unicode.IsSpace(r) }

// isControl is BertNormalizer's is_control: categories Cc, Cf and Co except
// tab, newline and carriage return, which count as whitespace.
func isControl(r rune) bool {
	if r == '\t' || r == '\n' || r == '\r' {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co) && !unicode.Is(hfNotControl, r)
}

// isPunct is BertPreTokenizer's is_bert_punc: ASCII punctuation or Unicode
// category P (Pc, Pd, Ps, Pe, Pi, Pf, Po).
func isPunct(r rune) bool {
	if r < 0x80 {
		return isASCIIPunct(byte(r))
	}
	// Po in the tables of Hugging Face, So and Mn in Go's: CANADIAN SYLLABICS
	// CHI SIGN and SHARADA SANDHI MARK.
	if r == 0x166D || r == 0x111C9 {
		return true
	}
	return unicode.IsPunct(r) && !unicode.Is(hfNotPunct, r)
}

// isMn reports whether strip_accents removes r after NFD: category Mn
// (nonspacing mark).
func isMn(r rune) bool {
	if r == 0x1734 { // HANUNOO SIGN PAMUDPOD: Mn in Hugging Face's tables, Mc in Go's
		return true
	}
	return unicode.Is(unicode.Mn, r) && !unicode.Is(hfNotMn, r)
}

// toLower is Rust's char::to_lowercase for a rune that lowercases to one rune.
func toLower(r rune) rune {
	if l, ok := hfLower[r]; ok {
		return l
	}
	return unicode.ToLower(r)
}

// nfd appends the canonical decomposition (NFD) of r to dst, as Rust's
// unicode-normalization crate does for Hugging Face: Go's tables are newer for
// U+11938 (DIVES AKURU VOWEL SIGN O, Unicode 13.0), which it leaves whole.
//
// Decomposing rune by rune skips NFD's canonical reordering of adjacent
// combining marks. That cannot change an id: reordering moves only marks of
// nonzero combining class that strip_accents keeps, and no entry of BERT's
// uncased vocabulary (the one of all three models) contains such a mark, so the
// word is [UNK] in either order.
func nfd(dst []byte, r rune) []byte {
	var b [utf8.UTFMax]byte
	if r == 0x11938 {
		return utf8.AppendRune(dst, r)
	}
	return norm.NFD.Append(dst, b[:utf8.EncodeRune(b[:], r)]...)
}

// isChinese is BertNormalizer's is_chinese_char: CJK Unified Ideographs with
// extensions A to E, and the two CJK Compatibility Ideographs blocks, as in
// _is_chinese_char of BERT's tokenization.py, except that extension E starts
// at U+2B920 in Hugging Face's table, not U+2B820. Hangul and Japanese kana are
// not in it: their words are split by whitespace and punctuation only.
func isChinese(r rune) bool {
	return 0x4E00 <= r && r <= 0x9FFF ||
		0x3400 <= r && r <= 0x4DBF ||
		0x20000 <= r && r <= 0x2A6DF ||
		0x2A700 <= r && r <= 0x2B73F ||
		0x2B740 <= r && r <= 0x2B81F ||
		0x2B920 <= r && r <= 0x2CEAF ||
		0xF900 <= r && r <= 0xFAFF ||
		0x2F800 <= r && r <= 0x2FA1F
}
