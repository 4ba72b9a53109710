package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"
)

// Question and Expect are one line of a questions.jsonl file, in the
// format `ragbot eval` reads (retrieval/eval.Question).
type Question struct {
	ID       string   `json:"id"`
	Corpus   string   `json:"corpus"`
	Kind     string   `json:"kind"`
	Question string   `json:"question"`
	Expect   []Expect `json:"expect"`
}

type Expect struct {
	Method    string `json:"method,omitempty"`
	Path      string `json:"path"`
	Symbol    string `json:"symbol,omitempty"`
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
}

// How many questions of each kind a repository gets at most.
const (
	paraphrasePerRepo = 15 // doc-comment paraphrases of a code repository
	apiPerRepo        = 20 // operation-summary paraphrases of a spec
	docsPerRepo       = 8  // heading questions of a code repository's markdown
	docsPerDocTree    = 20 // heading questions of a docs folder
	absentNamesPerRep = 10 // absent names, each asked twice (lower case and as written)
	perFile           = 2  // questions from one file before a second round of sampling
	maxExpects        = 3  // a question whose words fit more places is dropped
	maxQuestionWords  = 30
)

// A candidate is a possible answerable question, keyed by its first
// location for sampling.
type candidate struct {
	key      string // "path:line", the line zero-padded so keys sort in file order
	file     string
	question string
	expect   []Expect
}

// testPath matches tests, examples, fixtures and benchmarks: their doc
// comments and headings are not what people ask about (they stay indexed as
// distractors).
var testPath = regexp.MustCompile(`(?i)(^|/)_?(tests?|testing|__tests__|__mocks__|spec|specs|testdata|fixtures?|examples?|benchmarks?|bench|mocks?|e2e)/|_test\.go$|(^|/)test_[^/]*\.py$|_test\.py$|(^|/)conftest\.py$|\.(test|spec|bench)\.[cm]?[jt]sx?$`)

// paraphrases makes a question from the first sentence of each documented
// symbol's doc comment, the symbol's own names removed. Symbols whose
// sentence comes out the same (the CommonJS and ES module copies of one
// function, a .d.ts beside its .js, "closes the connection" on two types)
// share one question, with each as an acceptable answer, up to maxExpects.
func paraphrases(r Repo, secs []Section) []candidate {
	byPhrase := map[string][]Section{}
	phrases := map[string]phrase{}
	var order []string
	for _, s := range secs {
		if s.Kind != "code" || s.Symbol == "" || s.SymbolKind == "window" || testPath.MatchString(s.Path) {
			continue
		}
		p, ok := docPhrase(s)
		if !ok {
			continue
		}
		key := strings.ToLower(p.base + "|" + p.rest)
		if _, seen := byPhrase[key]; !seen {
			order = append(order, key)
			phrases[key] = p
		}
		byPhrase[key] = append(byPhrase[key], s)
	}
	var out []candidate
	for _, key := range order {
		same := byPhrase[key]
		if len(same) > maxExpects {
			continue
		}
		sort.SliceStable(same, func(i, j int) bool { return !isDecl(same[i].Path) && isDecl(same[j].Path) })
		first := same[0]
		q := phrases[key].question(r.Name+"|"+first.Path+"|"+first.Symbol, false)
		if n := len(strings.Fields(q)); n > maxQuestionWords || n < 5 {
			continue
		}
		c := candidate{key: fmt.Sprintf("%s:%06d", first.Path, first.Start), file: first.Path, question: q}
		for _, s := range same {
			c.expect = append(c.expect, Expect{Path: s.Path, Symbol: s.Symbol, StartLine: s.Start, EndLine: s.End})
		}
		out = append(out, c)
	}
	return out
}

func isDecl(p string) bool {
	return strings.HasSuffix(p, ".d.ts") || strings.HasSuffix(p, ".d.mts") || strings.HasSuffix(p, ".d.cts")
}

// docPhrase reads a section's doc comment as a phrase for a question, or
// false when it has none worth asking: no first sentence, a form the
// templates do not fit, or fewer than 3 content words once the symbol's
// names are gone.
func docPhrase(s Section) (phrase, bool) {
	sent := firstSentence(docComment(s))
	if sent == "" {
		return phrase{}, false
	}
	stripped, firstRemoved, inner, tail := newRemover(s.Symbol).strip(sent)
	if inner > maxInnerRemoved || garbled(stripped, tail) {
		return phrase{}, false
	}
	p := classify(stripped, firstRemoved)
	return p, p.form != formNone && contentWords(p.rest) >= 3
}

// maxInnerRemoved is how many words past the first may be removed from a
// sentence before it is too broken to ask.
const maxInnerRemoved = 2

var (
	articleGap  = regexp.MustCompile(`(?i)\b(a|an|the)\s+(a|an|the|that|which|who|of|in|on|to|for|with|into|from|and|or|is|are|was|by)\b`)
	prepGap     = regexp.MustCompile(`(?i)\b(of|to|for|with|from|by|into)\s+(of|to|for|with|from|by|into|and|or|is|are|that|which)\b`)
	newGap      = regexp.MustCompile(`(?i)\b(a|an|the)\s+new\s+(a|an|the|that|which|of|in|on|to|for|with|into|from|and|or|is|by)\b`)
	anConsonant = regexp.MustCompile(`(?i)\ban\s+[b-df-gj-np-tv-z]`)
	article     = regexp.MustCompile(`(?i)\b(a|an|the)\s+([a-z]+)`)
	endsWithArt = regexp.MustCompile(`(?i)\b(a|an|the|of|to|using|via|with|for|from|by|into|that|is|are|be)\s*[.!?]?$`)
)

// garbled reports a sentence that removing words left without a noun or
// an object: an article before a function word ("the that holds") or a
// verb ("a represents"), a preposition before a preposition ("waits for
// to drain"), "an" before a consonant, one that ends with an article, a
// preposition or "is", or, when its last words were removed, with a verb.
func garbled(s string, tailRemoved bool) bool {
	if articleGap.MatchString(s) || prepGap.MatchString(s) || newGap.MatchString(s) || anConsonant.MatchString(s) || endsWithArt.MatchString(s) {
		return true
	}
	for _, m := range article.FindAllStringSubmatch(s, -1) { // "a represents": the noun was removed
		w := strings.ToLower(m[2])
		if isThirdPerson(w) && verbs[baseForm(w)] {
			return true
		}
	}
	words := strings.Fields(strings.TrimRight(s, ".!?;:, "))
	if len(words) == 0 {
		return true
	}
	last := strings.ToLower(words[len(words)-1])
	return tailRemoved && len(words) > 1 && (verbs[last] || verbs[baseForm(last)] && isThirdPerson(last))
}

// apiQuestions makes a question from each operation's summary.
func apiQuestions(r Repo, secs []Section) []candidate {
	byQuestion := map[string][]Section{}
	var order []string
	for _, s := range secs {
		if s.Kind != "api" || s.Summary == "" {
			continue
		}
		sent := lowerTitle(firstSentence(s.Summary))
		stripped, _, _, _ := newRemover().strip(sent)
		p := classify(stripped, false)
		if p.form == formNone || contentWords(p.rest) < 1 {
			continue
		}
		q := p.question(r.Name+"|"+s.Symbol, true)
		if n := len(strings.Fields(q)); n > maxQuestionWords {
			continue
		}
		if _, ok := byQuestion[q]; !ok {
			order = append(order, q)
		}
		byQuestion[q] = append(byQuestion[q], s)
	}
	var out []candidate
	for _, q := range order {
		same := byQuestion[q]
		if len(same) > maxExpects {
			continue
		}
		c := candidate{key: same[0].Symbol, file: same[0].Symbol, question: q}
		for _, s := range same {
			method, p, _ := strings.Cut(s.Symbol, " ")
			c.expect = append(c.expect, Expect{Method: method, Path: p})
		}
		out = append(out, c)
	}
	return out
}

// skippedDocs are markdown files whose headings are versions, people or
// policies, not places in the code.
var skippedDocs = regexp.MustCompile(`(?i)(^|/)(changelog|changes|history|news|releases?|authors|contributors|contributing|code_of_conduct|security|license|licence|copying|notice|upgrading|migrat\w*|governance|sponsors|backers)[^/]*$`)

// skippedHeadings are section titles with nothing to find.
var skippedHeadings = set("license licence licensing contributing contributors credits authors acknowledgements acknowledgments " +
	"changelog changes history contents toc index overview introduction intro summary example examples usage " +
	"install installation setup api reference notes note todo faq support sponsors backers thanks see related links " +
	"test tests testing status features requirements options arguments parameters returns return description " +
	"documentation docs recent changes")

var versionLike = regexp.MustCompile(`^(v|version\s*)?\d`)

// docsQuestions makes a question from each H2 and H3 heading of the
// repository's markdown.
func docsQuestions(r Repo, secs []Section) []candidate {
	byHeading := map[string][]Section{}
	var order []string
	for _, s := range secs {
		if s.Kind != "doc" || skippedDocs.MatchString(s.Path) || testPath.MatchString(s.Path) {
			continue
		}
		h := headingText(s)
		key := strings.ToLower(h)
		if h == "" || skippedHeadings[key] || versionLike.MatchString(key) || contentWords(h) < 1 || len(h) > 80 {
			continue
		}
		if _, ok := byHeading[key]; !ok {
			order = append(order, key)
		}
		byHeading[key] = append(byHeading[key], s)
	}
	var out []candidate
	for _, key := range order {
		same := byHeading[key]
		if len(same) > maxExpects {
			continue
		}
		c := candidate{key: fmt.Sprintf("%s:%06d", same[0].Path, same[0].Start), file: same[0].Path,
			question: headingQuestion(r.Name+"|"+same[0].Path+"|"+key, headingText(same[0]))}
		for _, s := range same {
			sym := s.Symbol
			if len(sym) > maxSymbol { // a heading path with a long H1 (a table read as a setext heading)
				sym = headingText(s)
			}
			c.expect = append(c.expect, Expect{Path: s.Path, Symbol: sym, StartLine: s.Start, EndLine: s.End})
		}
		out = append(out, c)
	}
	return out
}

// maxSymbol is the longest heading path written as an answer's symbol (it
// is informational; eval matches by path and lines).
const maxSymbol = 120

// lowerTitle lower-cases the capitalized words of a Title Case heading
// ("Getting Started" -> "getting started"), keeping acronyms and words with
// inner capitals (JSON, ClientIP).
func lowerTitle(h string) string {
	words := strings.Split(h, " ")
	for i, w := range words {
		r := []rune(w)
		if len(r) > 1 && unicode.IsUpper(r[0]) && strings.ToLower(string(r[1:])) == string(r[1:]) {
			r[0] = unicode.ToLower(r[0])
			words[i] = string(r)
		}
	}
	return strings.Join(words, " ")
}

var anchor = regexp.MustCompile(`\s*\{#[^}]*\}\s*$`)

// headingText is an H2 or H3 section's own heading, markup removed; "" for
// other sections.
func headingText(s Section) string {
	sig := strings.TrimSpace(s.Signature)
	level2or3 := strings.HasPrefix(sig, "## ") || strings.HasPrefix(sig, "### ") ||
		strings.HasSuffix(sig, "\n---") || (strings.Contains(sig, "\n-") && strings.Trim(sig[strings.LastIndex(sig, "\n")+1:], "-") == "")
	if !level2or3 || strings.HasPrefix(sig, "#### ") {
		return ""
	}
	parts := strings.Split(s.Symbol, " > ")
	h := parts[len(parts)-1]
	h = anchor.ReplaceAllString(h, "")
	h = mdLink.ReplaceAllString(h, "$1")
	h = backticks.ReplaceAllString(h, "$1")
	h = strings.NewReplacer("**", "", "__", "", "*", "").Replace(h)
	return lowerTitle(strings.TrimSpace(strings.TrimRight(h, ":.?!")))
}

// questionWords start a heading that is a question already ("Why do I get
// many events?", "How to configure ...").
var questionWords = set("how why what when where which who can do does is are should")

// determiners after a heading's first word show it is a verb ("Configure
// the logger"), not a noun ("Request handlers").
var determiners = set("a an the your my our their its this that these those all every each custom multiple new")

func secondWord(h string) string {
	f := strings.Fields(strings.ToLower(h))
	if len(f) < 2 {
		return ""
	}
	return f[1]
}

var docsTemplates = []string{
	"where do the docs explain {h}?",
	"is there documentation about {h}?",
	"where is {h} described?",
	"docs on {h}?",
}

// headingQuestion asks for a section by its heading: as it is when it is a
// question already ("How to ..."), "how do I ..." when it starts with a
// verb, else a template picked by key.
func headingQuestion(key, h string) string {
	h = strings.TrimRight(h, "?")
	l := lowerFirst(h)
	first, _, _ := strings.Cut(strings.ToLower(h), " ")
	switch {
	case questionWords[first]:
		return strings.ToLower(l[:1]) + l[1:] + "?"
	case verbs[first] && determiners[secondWord(h)]:
		return "how do I " + l + "?"
	}
	return strings.ReplaceAll(docsTemplates[pick(key, len(docsTemplates))], "{h}", l)
}

// sample picks up to n candidates, deterministically: ordered by a hash of
// the repository and the candidate's location, at most perFile from one
// file in a first round, then the rest in the same order; returned in
// location order.
func sample(seed string, cs []candidate, n int) []candidate {
	sorted := append([]candidate(nil), cs...)
	sort.SliceStable(sorted, func(i, j int) bool {
		hi, hj := hash(seed+"|"+sorted[i].key), hash(seed+"|"+sorted[j].key)
		if hi != hj {
			return hi < hj
		}
		return sorted[i].key < sorted[j].key
	})
	var out []candidate
	taken := map[string]bool{}
	fromFile := map[string]int{}
	for round := 0; round < 2 && len(out) < n; round++ {
		for _, c := range sorted {
			if len(out) == n {
				break
			}
			if taken[c.key] || round == 0 && fromFile[c.file] >= perFile {
				continue
			}
			taken[c.key] = true
			fromFile[c.file]++
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}
