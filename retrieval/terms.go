package retrieval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitIdentifier splits an identifier, or any token made of identifiers, into
// its lower-cased word pieces. Every rune that is not a letter, digit or mark
// separates pieces, so snake_case, SCREAMING_CASE, kebab-case, dotted and
// path-like tokens split at "_", "-", ".", "/" and the like
// ("user_repo.find_by_email" -> user, repo, find, by, email). Inside a run of
// letters and digits a piece also ends
//   - before an upper-case letter that follows a lower-case letter or a digit
//     (findByEmail -> find, by, email),
//   - before the last upper-case letter of an upper-case run followed by a
//     lower-case letter (HTTPServer -> http, server),
//   - before a letter that follows a digit (md5sum -> md5, sum).
//
// Digits stay with the letters before them, because version and size
// suffixes are part of the word in code (int64, sha256, oauth2, utf8,
// v1beta1 -> v1, beta1); so parseJSON2XML -> parse, json2, xml. A digit run
// at the start of a piece is its own start: 404NotFound -> 404, not, found.
// SplitIdentifier returns nil when s has no letters or digits.
func SplitIdentifier(s string) []string {
	return AppendPieces(nil, s)
}

// AppendPieces appends the word pieces of s, as SplitIdentifier defines
// them, to dst.
func AppendPieces(dst []string, s string) []string {
	start := -1   // byte offset of the current piece, -1 between pieces
	var prev rune // last letter or digit of the current piece
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case unicode.IsMark(r): // combining marks extend the rune before them
			if start < 0 {
				start = i
			}
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			if start >= 0 {
				dst = append(dst, strings.ToLower(s[start:i]))
				start = -1
			}
		case start < 0:
			start, prev = i, r
		default:
			split := false
			switch {
			case unicode.IsUpper(r):
				if !unicode.IsUpper(prev) {
					split = true // aB, 2B
				} else if next, _ := utf8.DecodeRuneInString(s[i+size:]); unicode.IsLower(next) {
					split = true // ABc: "A" ends, "Bc" starts
				}
			case unicode.IsLetter(r):
				split = unicode.IsDigit(prev) // 2b
			}
			if split {
				dst = append(dst, strings.ToLower(s[start:i]))
				start = i
			}
			prev = r
		}
		i += size
	}
	if start >= 0 {
		dst = append(dst, strings.ToLower(s[start:]))
	}
	return dst
}

// IsTokenRune reports whether r belongs to an identifier-like token of free
// text: letters, digits, marks and "_".
func IsTokenRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// AppendTerms appends the terms of text to dst: the word pieces of each
// identifier-like token (a maximal run of letters, digits, marks and "_"),
// followed, when whole is true and the token has more than one piece, by
// the pieces joined without separators.
func AppendTerms(dst []string, text string, whole bool) []string {
	start := -1
	flush := func(end int) {
		n := len(dst)
		dst = AppendPieces(dst, text[start:end])
		if whole && len(dst)-n > 1 {
			dst = append(dst, strings.Join(dst[n:], ""))
		}
		start = -1
	}
	for i, r := range text {
		switch {
		case IsTokenRune(r):
			if start < 0 {
				start = i
			}
		case start >= 0:
			flush(i)
		}
	}
	if start >= 0 {
		flush(len(text))
	}
	return dst
}

// Terms tokenises free text or code into lower-case terms, in order of
// appearance and with repeats. An identifier-like token is a maximal run of
// letters, digits, marks and "_" (so "a.b", "a-b" and "a/b" are two tokens);
// each token yields its word pieces (SplitIdentifier) and then, when it had
// more than one piece, the pieces joined: "findByEmail" and "find_by_email"
// both yield find, by, email, findbyemail. The joined form is what Weaviate's
// "word" tokenization makes of a camelCase query, so it lets such a query
// find the snake_case spelling and the reverse.
func Terms(text string) []string {
	return AppendTerms(nil, text, true)
}

// SearchText returns the text BM25 reads for c (the search_text property of
// the Chunk collection), already analysed, so that Weaviate's "word"
// tokenizer only splits it at spaces:
//
//  1. the terms of c.Content, with repeats (see Terms): every identifier in
//     the code or prose gives its word pieces and, when it has several, the
//     pieces joined, so "failedPeers" in a body matches a question about
//     "failed peers" as well as one that names failedPeers;
//  2. a line of the terms of c.Symbol and c.Signature (for a doc chunk the
//     Symbol is its heading path, so this line carries the headings of the
//     enclosing sections); the intro symbol "(intro)" adds none;
//  3. a line of the word pieces of c.Path
//     ("notify/set_notifies_stage.go" -> "notify set notifies stage go").
//
// Lines 2 and 3 list a term once, in order of first appearance; a line is left
// out when empty. On the public eval set (docs/evaluation.md), splitting
// identifiers inside content (1) raised BM25-only recall@5 from 0.769 to 0.815
// and hybrid+rerank from 0.877 to 0.892 (no kind lower); stemming on top
// (Porter-style -s/-ed/-ing) left recall@5 unchanged and lowered MRR, so terms
// are not stemmed. The result depends on Content, Symbol, Signature and Path
// only, and is the same on every call. SearchQuery analyses questions to match.
func SearchText(c Chunk) string {
	var b strings.Builder
	line := func(words []string) {
		if len(words) == 0 {
			return
		}
		b.WriteString(strings.Join(words, " "))
		b.WriteByte('\n')
	}
	line(Terms(c.Content))
	var ids []string
	if c.Symbol != "(intro)" {
		ids = AppendTerms(ids, c.Symbol, true)
	}
	ids = AppendTerms(ids, c.Signature, true)
	line(dedupe(ids))
	line(dedupe(SplitIdentifier(c.Path)))
	return b.String()
}

// SearchQuery makes the BM25 text of a question, analysed as SearchText
// analyses chunks: its terms, each once (see Terms: "findByEmail" gives
// find, by, email, findbyemail), followed by its words as Weaviate's word
// tokenizer sees them (lower-cased runs of letters and digits) when they
// are not among those terms, for the symbol property, which Weaviate
// tokenizes itself. It returns "" for a question without letters or digits.
func SearchQuery(q string) string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	return strings.Join(dedupe(append(Terms(q), words...)), " ")
}

// dedupe returns words without repeats, keeping first occurrences in order.
// It reuses the array of words.
func dedupe(words []string) []string {
	seen := make(map[string]bool, len(words))
	out := words[:0]
	for _, w := range words {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// NumericLiteral reports whether a term is mostly digits and longer than 4
// bytes (12345, x1339, 0x3ce0): literals, offsets and table entries, which
// fill a learned vocabulary without meaning. Short numbers (404, 503, 8080)
// and words with a version or size (oauth2, sha256, int64) are words. The
// codesearch embedder leaves such terms out.
func NumericLiteral(t string) bool {
	if len(t) <= 4 {
		return false
	}
	d := 0
	for i := 0; i < len(t); i++ {
		if t[i] >= '0' && t[i] <= '9' {
			d++
		}
	}
	return 2*d >= len(t) || (strings.HasPrefix(t, "0x") && d > 0)
}
