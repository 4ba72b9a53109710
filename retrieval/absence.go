package retrieval

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/ragbot/ragbot/retrieval/english"
)

// The absence check: a plain word of the question (Analysis.Plain) that is
// no everyday English and that no chunk in the asker's scope holds names
// something the sources lack, whatever its case ("rabbitmq", "RabbitMQ's",
// "LDAP"), and the question is not covered (Evidence.Missing). Everyday
// words never refuse a question: questions in other words than the
// sources' are made of them. A missing word one edit from a term many
// chunks hold is a typo instead: the question is searched as corrected and
// answered "not sure" at best (Evidence.DidYouMean).
//
// The words a chunk holds come from the sources' vocabularies
// (VocabularySource, counted at index time), read before the search so that a
// typo can be corrected in it; without a vocabulary for every source in scope,
// from the document frequencies the coverage weighting looks up during the
// search (termWeights.absent), with no typo correction.

// Typo correction limits.
const (
	// typoMinLen is the shortest word (in letters) read as a typo:
	// acronyms and short product names lie one edit from common words
	// ("saml" from "same", "ldap" from "leap", "helm" from "help") and are
	// meant as written. Lucene's DirectSpellChecker does not correct words
	// under 4 letters (minQueryLength); 5 leaves the 4-letter acronyms alone.
	typoMinLen = 5
	// typoMinDF is how many chunks must hold a correction: a term in
	// fewer is as likely the sources' own rare word or misspelling as what
	// the asker meant.
	typoMinDF = 3
)

// chatWords are words of chat and of asking about any codebase that the
// word list lacks (abbreviations, generic jargon): like fillerWords, being
// absent from the sources says nothing.
var chatWords = wordSet(`
pls plz thx btw fyi ok lol tbh imo ie eg etc aka asap ragbot codebase repo repos impl func funcs src
lib libs util utils dir dirs config configs param params arg args env dev api apis endpoint
endpoints struct structs enum enums async regex init`)

// askingWords are the words of asking whose misspellings chat is full of
// ("wher", "whre", "teh", "hwo", "waht"): a term one edit (Damerau) from
// one of them says nothing about the sources. The shorter ones (how, who,
// why, the) lie one edit from acronyms and short names ("was" from "aws"),
// so only these four of them are taken; "code" and "done" are left out
// ("kode", "dune").
var askingWords = wordSet(`
where what which when does there that this with show define defined implement implemented handled
located happens how who why the`)

// askingTypo reports whether t, not itself a word of asking, is one edit
// from one of askingWords. It runs on every word of every question that no
// list holds, so it compares t with each of them (OneEdit) instead of
// making t's edits (edits1: some 70 strings a letter).
func askingTypo(t string) bool {
	if len(t) < 2 || askingWords[t] {
		return false
	}
	for w := range askingWords {
		if OneEdit(t, w) {
			return true
		}
	}
	return false
}

// OneEdit reports whether a and b, not equal, are one edit of edits1 apart
// (Damerau: one byte inserted, deleted or substituted, or two adjacent
// bytes transposed).
func OneEdit(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	if len(a)-len(b) > 1 {
		return false
	}
	i := 0
	for i < len(b) && a[i] == b[i] {
		i++
	}
	if len(a) > len(b) { // deletion from a
		return a[i+1:] == b[i:]
	}
	if i == len(a) {
		return false // equal
	}
	return a[i+1:] == b[i+1:] || // substitution
		i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // transposition
}

// everydayTerm reports whether a lower-case term is everyday English:
// a stopword, a word of asking (questionWords, fillerWords, chatWords, or
// one edit from one of askingWords), an
// everyday word of the word lists (english.Everyday), an inflection the
// lists lack of one they have ("sharded": shard; "snoozing": snooze), or
// one of those with an English prefix ("unsqueezed", "debounce").
func everydayTerm(t string) bool {
	if EnglishStopwords[t] || questionWords[t] || fillerWords[t] || chatWords[t] || listed(t) || askingTypo(t) {
		return true
	}
	return slices.ContainsFunc(prefixes, func(p string) bool {
		rest, ok := strings.CutPrefix(t, p)
		return ok && len(rest) >= 4 && listed(rest)
	})
}

// prefixes are English prefixes that make words the lists lack out of
// words they have.
var prefixes = []string{"un", "non", "re", "pre", "de", "dis", "mis", "over", "under", "sub"}

// listed reports whether t or a stem of it is an everyday word of the word
// lists: t without -s, -es, -ed, -d (after e), -ing or -ies (as y), also
// with a final e restored or a doubled consonant undone ("shipped"), the
// stem at least 3 letters long.
func listed(t string) bool {
	if english.Everyday(t) {
		return true
	}
	for _, suf := range []string{"s", "es", "ed", "d", "ing", "ies"} {
		b, ok := strings.CutSuffix(t, suf)
		if !ok || len(b) < 3 || suf == "d" && !strings.HasSuffix(b, "e") {
			continue
		}
		cands := []string{b}
		switch suf {
		case "ies":
			cands = []string{b + "y"}
		case "ed", "ing":
			cands = append(cands, b+"e")
			if n := len(b); b[n-1] == b[n-2] {
				cands = append(cands, b[:n-1])
			}
		}
		if slices.ContainsFunc(cands, english.Everyday) {
			return true
		}
	}
	return false
}

// A nameWord is a plain word of a question that may name something.
type nameWord struct {
	word string // as the answer names it: as written, without a possessive
	term string // lower case, as the vocabulary holds it
}

// nameWords returns the words of plain that may name something: each word's
// pieces (SplitIdentifier of the word lower-cased: "rate-limit" has two) that
// are no everyday English, no number and at least 2 letters long, or 4 in a
// word of several pieces, where short ones are affixes and particles
// ("add-ons", "e-mail", "non-English"). A word of one piece is named as written
// ("LDAP", "RabbitMQ's" as "RabbitMQ"); a piece of a longer word by itself.
func nameWords(plain []string) []nameWord {
	var out []nameWord
	seen := map[string]bool{}
	for _, w := range plain {
		if everydayTerm(strings.ToLower(strings.ReplaceAll(w, "’", "'"))) { // "isn't", "server's"
			continue
		}
		for _, suf := range []string{"'s", "’s", "'", "’"} {
			w = strings.TrimSuffix(w, suf)
		}
		pieces := SplitIdentifier(strings.ToLower(w))
		for _, p := range pieces {
			if seen[p] || len(p) < 2 || len(pieces) > 1 && len(p) < 4 || NumericLiteral(p) || strings.IndexFunc(p, unicode.IsLetter) < 0 || everydayTerm(p) {
				continue
			}
			seen[p] = true
			shown := p
			if len(pieces) == 1 {
				shown = w
			}
			out = append(out, nameWord{word: shown, term: p})
		}
	}
	return out
}

// A Typo is a word of the question read as a misspelling of a term the
// sources hold.
type Typo struct {
	Word string `json:"word"` // as written
	Term string `json:"term"` // the correction
}

// absence is the absence check of a question's plain words against v, the
// vocabulary of its scope: the words no chunk holds in any inflection (missing,
// as the answer names them) and, among those, the typos, which are not missing.
func absence(plain []string, v Vocabulary) (missing []string, typos []Typo) {
	for _, n := range nameWords(plain) {
		if v.Has(n.term) || numbered(n.term, v) {
			continue
		}
		if c := correction(n.term, v); c != "" {
			typos = append(typos, Typo{Word: n.word, Term: c})
			continue
		}
		missing = append(missing, n.word)
	}
	return missing, typos
}

// numbered reports whether v holds term followed by a number of 1 or 2
// digits: the word is the stem of numbered names ("rsv" of rsv1Bit and
// rsv2Bit, whose pieces are rsv1 and rsv2, as SplitIdentifier keeps digits
// with the letters before them), as protocols name the members of a family
// (RFC 6455's RSV1, RSV2 and RSV3 bits). At most 110 map lookups a source.
func numbered(term string, v Vocabulary) bool {
	for d := '0'; d <= '9'; d++ {
		one := term + string(d)
		if v.DF(one) > 0 {
			return true
		}
		for e := '0'; e <= '9'; e++ {
			if v.DF(one+string(e)) > 0 {
				return true
			}
		}
	}
	return false
}

// absentNames returns the words of plain that may name something and
// whose term is among absent, the terms no chunk holds (termWeights.absent):
// the absence check without a vocabulary.
func absentNames(plain []string, absent []string) []string {
	var out []string
	for _, n := range nameWords(plain) {
		if slices.Contains(absent, n.term) {
			out = append(out, n.word)
		}
	}
	return out
}

// correction returns the term of v that term is a typo of, or "": among the
// terms at Damerau-Levenshtein distance 1 from term (one letter inserted,
// deleted or substituted, or two adjacent letters transposed: the single errors
// of Damerau, "A technique for computer detection and correction of spelling
// errors", CACM 7(3), 1964, which account for most misspellings) that start
// with the same letter (as Lucene's DirectSpellChecker requires by default,
// minPrefix 1), are held by at least typoMinDF chunks and are no filler, the
// one most chunks hold (ties: the first in byte order). term must be at least
// typoMinLen ASCII letters and no proper noun of the word list
// (english.Proper: "kafka" is a name, not a typo).
//
// A compound of two everyday words ("openid", one substitution from
// "opened", is open + id: a name made on purpose) is corrected only by a
// letter the asker left out or typed twice: "pipline" (pip + line) is
// "pipeline", "respone" (resp + one) "response", "hearbeat" (hear + beat)
// "heartbeat". Dropping or doubling a letter is what fast typing does
// most (Damerau's insertions and deletions; Kukich, "Techniques for
// automatically correcting words in text", ACM Computing Surveys 24(4),
// 1992), while a word of the same length made of two words reads as
// meant; and any string of 6 or more letters tends to split into two
// entries of a large word list, which holds "pip", "resp" and "pone".
func correction(term string, v Vocabulary) string {
	notLetter := func(r rune) bool { return r < 'a' || r > 'z' }
	if len(term) < typoMinLen || strings.IndexFunc(term, notLetter) >= 0 || english.Proper(term) {
		return ""
	}
	compoundName := compound(term)
	best, bestDF, bestLikely := "", 0, false
	consider := func(c string) {
		if c[0] != term[0] || EnglishStopwords[c] || questionWords[c] || fillerWords[c] || compoundName && len(c) == len(term) {
			return
		}
		df := v.DF(c)
		if df < typoMinDF {
			return
		}
		likely := likelySlip(term, c)
		if likely && !bestLikely || likely == bestLikely && (df > bestDF || df == bestDF && c < best) {
			best, bestDF, bestLikely = c, df, likely
		}
	}
	edits1(term, consider)
	return best
}

// likelySlip reports whether typing word as typed (one Damerau edit away)
// is a slip of the fingers: a letter left out, two letters swapped, a
// letter typed twice, or a key next to the meant one (QWERTY) pressed
// instead of it or beside it. Substitutions and insertions of keys far
// apart are rarer (Kernighan, Church and Gale, "A spelling correction
// program based on a noisy channel model", COLING 1990: their confusion
// matrices concentrate on neighbouring keys), so a candidate reached by a
// slip is preferred over a more frequent one that is not: "acount" is
// "account" (a letter left out), not "amount" (c for m). Measured on
// codespell's misspellings (tools/typoeval, docs/evaluation.md).
func likelySlip(typed, word string) bool {
	i := 0
	for i < len(typed) && i < len(word) && typed[i] == word[i] {
		i++
	}
	switch {
	case len(word) == len(typed)+1: // a letter left out
		return true
	case len(typed) == len(word)+1: // a letter too many, at i
		x := typed[i]
		return i > 0 && (typed[i-1] == x || neighbourKeys(typed[i-1], x)) ||
			i+1 < len(typed) && (typed[i+1] == x || neighbourKeys(typed[i+1], x))
	case i+1 < len(typed) && typed[i] == word[i+1] && typed[i+1] == word[i] && typed[i+2:] == word[i+2:]: // swapped
		return true
	default: // one key for another
		return neighbourKeys(typed[i], word[i])
	}
}

// qwertyRows are the letter rows of a QWERTY keyboard.
var qwertyRows = [3]string{"qwertyuiop", "asdfghjkl", "zxcvbnm"}

// neighbourKeys reports whether letters a and b are different keys that
// touch on a QWERTY keyboard: side by side in a row, or in adjacent rows
// where the lower row's keys sit half a key to the right (a touches q and
// w; z touches a and s).
func neighbourKeys(a, b byte) bool {
	ra, ca, rb, cb := -1, 0, -1, 0
	for r, row := range qwertyRows {
		if k := strings.IndexByte(row, a); k >= 0 {
			ra, ca = r, k
		}
		if k := strings.IndexByte(row, b); k >= 0 {
			rb, cb = r, k
		}
	}
	switch {
	case ra < 0 || rb < 0 || a == b:
		return false
	case ra == rb:
		return ca-cb == 1 || cb-ca == 1
	case ra+1 == rb: // b one row below a: b's column k touches a's k and k+1
		return ca == cb || ca == cb+1
	case rb+1 == ra:
		return cb == ca || cb == ca+1
	}
	return false
}

// compound reports whether term is two everyday words of at least 2
// letters each run together ("openid", "webhook", "github").
func compound(term string) bool {
	for i := 2; i <= len(term)-2; i++ {
		if english.Everyday(term[:i]) && english.Everyday(term[i:]) {
			return true
		}
	}
	return false
}

// edits1 calls f with every string at Damerau-Levenshtein distance 1 from
// the lower-case ASCII word w (over the letters a-z and digits), some more
// than once.
func edits1(w string, f func(string)) {
	const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789"
	for i := 0; i <= len(w); i++ {
		head, tail := w[:i], w[i:]
		if tail != "" {
			f(head + tail[1:]) // deletion
			if len(tail) > 1 {
				f(head + tail[1:2] + tail[:1] + tail[2:]) // transposition
			}
		}
		for j := 0; j < len(alphabet); j++ {
			c := alphabet[j : j+1]
			if tail != "" && c != tail[:1] {
				f(head + c + tail[1:]) // substitution
			}
			f(head + c + tail) // insertion
		}
	}
}

// corrected returns q with each typo's word replaced by its term (whole
// words, any case).
func corrected(q string, typos []Typo) string {
	for _, t := range typos {
		re := regexp.MustCompile(`(?i)(^|[^\pL\pN_])` + regexp.QuoteMeta(t.Word) + `($|[^\pL\pN_])`)
		q = re.ReplaceAllString(q, "${1}"+strings.ReplaceAll(t.Term, "$", "$$")+"${2}")
	}
	return q
}

// closestFor is what a question without coverage for a missing name asks
// about besides it, when the name is a word or an identifier of the
// question (restOf); "" for a missing literal, path or endpoint, which
// names the one thing asked about.
func closestFor(q *question, ev Evidence) string {
	missing := ev.AbsentNames
	if len(missing) == 0 {
		if !slices.Contains(q.Identifiers, ev.Missing) {
			return ""
		}
		missing = []string{ev.Missing}
	}
	return restOf(q.raw, missing)
}

// restOf is what a question asks about besides the missing words: its words as
// written (punctuation trimmed), without those that are or hold a missing one
// ("rabbitmq", "RabbitMQ's", "rabbitmq-based") and the words of asking ("where
// do we send alerts to rabbitmq?" -> "send alerts"); "" when nothing is left.
func restOf(q string, missing []string) string {
	isMissing := func(s string) bool {
		return slices.ContainsFunc(missing, func(m string) bool { return strings.EqualFold(m, s) })
	}
	var out []string
	for _, f := range strings.Fields(q) {
		tok := strings.TrimRight(strings.TrimLeft(f, "([{\"'`"), ")]}.,;:?!\"'`")
		word := strings.ToLower(tok)
		for _, suf := range []string{"'s", "’s", "'", "’"} {
			word = strings.TrimSuffix(word, suf)
		}
		if word == "" || EnglishStopwords[word] || questionWords[word] || fillerWords[word] || chatWords[word] ||
			strings.IndexFunc(word, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 ||
			isMissing(tok) || isMissing(word) || slices.ContainsFunc(SplitIdentifier(word), isMissing) {
			continue
		}
		out = append(out, tok)
	}
	return strings.Join(out, " ")
}

// Absence is the outcome of the absence check of one question (Asker.Absence).
type Absence struct {
	// Missing are the plain words no chunk in scope holds that are no
	// everyday English, in the order asked, as the answer names them.
	Missing []string
	// Typos are the words read as misspellings, with their corrections.
	Typos []Typo
	// Vocabulary is true when the check read the sources' vocabularies;
	// false when some source in scope has none, and the check is left to
	// the document frequencies looked up during the search (no typos).
	Vocabulary bool
}

// Absence runs the absence check of r against the vocabularies of its
// scope (Asker.Vocabularies), before any search; without them it returns
// an Absence with Vocabulary false and nothing found. It is what Ask runs
// first; `ragbot eval --bench` times it alone. Errors are the store's.
func (a *Asker) Absence(ctx context.Context, r Request) (Absence, error) {
	if a.Vocabularies == nil {
		return Absence{}, nil
	}
	v, ok, err := a.Vocabularies.Vocabulary(ctx, Query{Sources: r.Sources, Groups: r.Groups, Branch: r.Branch})
	if err != nil || !ok {
		return Absence{}, err
	}
	an := Analyze(r.Question)
	missing, typos := absence(an.Plain, v)
	if an.Trace { // a trace's words are the runtime's, as printed: never typos
		for _, t := range typos {
			missing = append(missing, t.Word)
		}
		typos = nil
	}
	return Absence{Missing: missing, Typos: typos, Vocabulary: true}, nil
}

// Correction returns the term of v that the lower-case word term is a
// typo of, or "" (the rule and its sources: correction). It is what the
// absence check suggests for a word no chunk holds; tools/typoeval
// measures it on codespell's misspellings.
func Correction(term string, v Vocabulary) string { return correction(term, v) }
