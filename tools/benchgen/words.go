package main

import (
	"regexp"
	"strings"
	"unicode"

	"github.com/ragbot/ragbot/retrieval"
)

// stopwords are function words: never removed as a piece of a symbol's
// name ("findByEmail" loses find and email, not by), and not counted as
// content words.
var stopwords = set("a an the of to in on at by for from with as is are was were be been it its this that these those " +
	"and or not no nor if then than so do does did can could should would will may might must all any each " +
	"into onto over under up out off via per we you they he she i me my our your their there here when where " +
	"which who whom whose what why how also only just but such some other same more most less own very")

func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// A remover strips the words that name a symbol from a sentence, so that
// a question made from its doc comment reads like a newcomer's words: the
// identifiers themselves (the symbol, its receiver or class, each dotted
// part), their word pieces as ragbot splits them (retrieval.SplitIdentifier:
// findByEmail -> find, by, email; function words kept) with simple plurals,
// and any other word that looks like code (snake_case, camelCase, a.b,
// calls with parentheses).
type remover struct {
	full   map[string]bool // lower-cased identifiers
	pieces map[string]bool // lower-cased word pieces, function words and 1-letter pieces left out
}

// newRemover builds a remover for the identifiers of a symbol such as
// "Type.Method", "Class.method" or "GET /path".
func newRemover(idents ...string) remover {
	r := remover{full: map[string]bool{}, pieces: map[string]bool{}}
	for _, id := range idents {
		for _, part := range identParts(id) {
			r.full[strings.ToLower(part)] = true
			for _, p := range retrieval.SplitIdentifier(part) {
				if len(p) > 1 && !stopwords[p] {
					r.pieces[p] = true
				}
			}
		}
	}
	return r
}

// identParts splits a symbol or code word at the characters that join
// identifiers (dots, slashes, colons, parentheses, #), dropping empties.
func identParts(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '$'
	})
}

// strip returns sentence without the words that name the symbol or look
// like code, punctuation tidied, whether its first word was removed (a Go
// or JSDoc comment that starts with the symbol's name leaves its verb
// first), how many other words were removed, and whether the last word
// was.
func (r remover) strip(sentence string) (out string, firstRemoved bool, inner int, lastRemoved bool) {
	var kept []string
	toks := strings.Fields(sentence)
	for i, tok := range toks {
		lead, core, trail := splitPunct(tok)
		if core == "" {
			kept = append(kept, tok)
			continue
		}
		if r.names(core) || looksLikeCode(core) {
			if i == 0 {
				firstRemoved = true
			} else {
				inner++
			}
			lastRemoved = i == len(toks)-1
			// keep sentence punctuation that followed the word, not brackets
			trail = strings.TrimLeft(trail, ")]}'\"")
			if t := strings.Trim(trail, "()[]{}'\""); t != "" {
				kept = append(kept, t)
			}
			continue
		}
		kept = append(kept, lead+core+trail)
	}
	return tidy(strings.Join(kept, " ")), firstRemoved, inner, lastRemoved
}

// names reports whether a word is one of the identifiers or one of their
// pieces (singular or plural), or a code word with such a part.
func (r remover) names(word string) bool {
	w := strings.ToLower(word)
	w = strings.TrimSuffix(w, "'s")
	if r.full[w] || r.pieces[w] || r.pieces[singular(w)] {
		return true
	}
	parts := identParts(word)
	if len(parts) > 1 || strings.ContainsAny(word, "._") {
		for _, p := range parts {
			if r.full[strings.ToLower(p)] {
				return true
			}
		}
	}
	// A compound such as "findByEmail" in prose when its pieces all name the symbol.
	pieces := retrieval.SplitIdentifier(word)
	if len(pieces) > 1 {
		all := true
		for _, p := range pieces {
			if !r.pieces[p] && !stopwords[p] {
				all = false
			}
		}
		return all
	}
	return false
}

// singular undoes a plural: entries -> entry, boxes -> box, routers -> router.
func singular(w string) string {
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && len(w) > 3:
		return w[:len(w)-1]
	}
	return w
}

var (
	camel     = regexp.MustCompile(`[a-z0-9][A-Z]`)
	innerCaps = regexp.MustCompile(`^[A-Z][a-z0-9]+[A-Z]`)
)

// looksLikeCode reports a word no newcomer would type: snake_case,
// camelCase or PascalCase with an inner capital (JSON and HTTP are
// words), a dotted or called name (r.URL, close()), or one with code
// punctuation.
func looksLikeCode(w string) bool {
	w = strings.TrimSuffix(w, "'s")
	switch {
	case strings.ContainsAny(w, "_()[]{}<>=$#*/\\|:@"):
		return true
	case strings.Contains(strings.Trim(w, "."), "."):
		return !isVersionLike(w)
	case camel.MatchString(w) && !isAllCapsWithS(w):
		return true
	case innerCaps.MatchString(w):
		return true
	}
	return false
}

func isVersionLike(w string) bool {
	for _, r := range w {
		if !unicode.IsDigit(r) && r != '.' && r != 'v' && r != 'x' {
			return false
		}
	}
	return true
}

// isAllCapsWithS accepts plural acronyms such as URLs or IDs.
func isAllCapsWithS(w string) bool {
	t := strings.TrimSuffix(w, "s")
	return t != "" && strings.ToUpper(t) == t
}

// splitPunct splits a token into leading punctuation, the word, and
// trailing punctuation (a possessive 's stays with the word).
func splitPunct(tok string) (lead, core, trail string) {
	isWord := func(r rune) bool { return isWordRune(r) }
	start := strings.IndexFunc(tok, isWord)
	if start < 0 {
		return tok, "", ""
	}
	end := strings.LastIndexFunc(tok, isWord) + 1
	// a trailing "()" belongs to the word: it marks a call
	if strings.HasPrefix(tok[end:], "()") {
		end += 2
	}
	return tok[:start], tok[start:end], tok[end:]
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

var (
	spaceBeforePunct = regexp.MustCompile(`\s+([,.;:!?)])(\s|$)`)
	emptyBrackets    = regexp.MustCompile(`\(\s*[,;]?\s*\)|\[\s*\]|"\s*"|'\s*'`)
	repeatedPunct    = regexp.MustCompile(`([,;:])(\s*[,;:.])+`)
	danglingWord     = regexp.MustCompile(`(?i)\b(a|an|the|this|its|their|of|for|to|with|by|on|in|from|and|or|as|using|via)\s*([,;:.!?)](\s|$)|$)`)
	prepBeforeConj   = regexp.MustCompile(`(?i)\b(using|with|via|by|of|for|from)\s+(and|or|but)\b`)
	leadingPunct     = regexp.MustCompile(`^[\s,;:.)\-]+`)
)

// tidy removes what stripping words leaves behind: spaces before
// punctuation, empty brackets, repeated commas, articles or prepositions
// left with nothing after them, and unpaired double quotes.
func tidy(s string) string {
	if strings.Count(s, `"`)%2 == 1 {
		s = strings.ReplaceAll(s, `"`, "")
	}
	for {
		t := spaces.ReplaceAllString(s, " ")
		t = emptyBrackets.ReplaceAllString(t, "")
		t = spaceBeforePunct.ReplaceAllString(t, "$1$2")
		t = repeatedPunct.ReplaceAllString(t, "$1")
		t = danglingWord.ReplaceAllString(t, "$2")
		t = prepBeforeConj.ReplaceAllString(t, "$2")
		t = leadingPunct.ReplaceAllString(t, "")
		t = strings.TrimSpace(t)
		if t == s {
			return t
		}
		s = t
	}
}

// contentWords counts the words of s that are not function words.
func contentWords(s string) int {
	n := 0
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !isWordRune(r) }) {
		if len(w) > 1 && !stopwords[w] {
			n++
		}
	}
	return n
}
