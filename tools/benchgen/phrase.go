package main

import (
	"hash/fnv"
	"regexp"
	"strings"
	"unicode"
)

// verbs are base forms that a doc comment's first sentence starts with
// (Python's imperative "Return the ...", JSDoc's "Creates a ..." once
// inflected back). The list is hand-written from the verbs of doc comments
// in Go, Python and JavaScript libraries.
var verbs = set(`abort accept acquire activate adapt add adjust advance allocate allow append apply assert assign attach
authenticate authorize await begin bind block build bump buffer cache calculate call cancel capture cast change check
choose clean clear clone close collect combine commit compare compile complete compress compute configure connect
consume contain convert copy count create decide declare decode decompress decrement decrypt define delay delete
deliver deny deregister describe deserialize destroy detach detect determine disable disconnect dispatch display
drain draw drop dump emit enable encode encrypt end enqueue ensure enumerate escape establish evaluate evict execute
exit expand expire export expose extend extract fail fetch fill filter find finish fire flatten flush force format
forward free generate get give group guess handle hash hide hold identify ignore implement import include increment
indicate infer initialize initialise inject insert inspect install instantiate intercept interpret invalidate invoke
issue iterate join keep kill launch limit link list listen load lock log look lookup make manage map mark marshal
match measure merge migrate mock modify monitor mount move negotiate normalize normalise notify open override pack
parse pass pause peek perform persist pick ping pipe place poll pop populate prepare prepend preserve prevent print
process produce promote provide prune publish pull purge push put query queue quote raise read rebuild receive
reconnect record redirect reduce refresh register reject release reload remove rename render reopen reorder repeat
replace reply report represent request require reserve reset resize resolve respond restart restore resume retain
retrieve retry return reuse revert rewind roll rotate route run sanitize save scan schedule search seek select send
serialize serve set setup shift show shut shutdown sign signal skip sleep sort spawn specify split start stat stop
store stream strip submit subscribe substitute support suspend swap switch sync take tell terminate test throttle
throw tick toggle track transform translate traverse trigger trim truncate try turn unlock unmarshal unpack
unregister unset unsubscribe unwrap update upgrade upload use validate verify visit wait walk watch wrap write yield
revoke deactivate activate rotate introspect patch recover exchange invite impersonate unlink archive unarchive tag untag
unpause enroll trust inform announce allocate instruct prioritize encapsulate differentiate unify`)

// notVerbs end in -s but start a noun phrase, not a verb.
var notVerbs = set("this its is was has does status options settings details bytes items keys values headers params " +
	"arguments args results errors events properties utils tools helpers series news means class process access")

// noNoun start sentences that name no thing: "Like append, but ...".
var noNoun = set("like similar same just unlike see alias shorthand shortcut convenience equivalent deprecated")

// Sentence forms, from the first word left after stripping.
const (
	formNone       = iota // not made into a question
	formVerb              // "returns the ...": verb first
	formNoun              // "a parser for ...", "is a parser for ..."
	formParticiple        // "used to ...", "called when ..."
)

// A phrase is a doc sentence ready for a template: the verb's base and
// third-person forms and what follows, or a noun phrase.
type phrase struct {
	form       int
	base, verb string // formVerb: "return", "returns"
	rest       string // formVerb: what follows the verb; formNoun: the noun phrase with its article; formParticiple: the whole phrase
}

var genericNouns = set("function method func class type struct constructor helper interface object module property " +
	"option variable constant const var field instance callback hook plugin middleware command handler")

var leadingGeneric = regexp.MustCompile(`(?i)^(the|this|a|an)\s+(function|method|func|class|type|struct|constructor|helper|interface|object|module|property|option|variable|constant|field|instance|callback|hook|plugin|middleware|command|handler)\s+`)

// classify reads the form of a stripped sentence. firstRemoved says the
// sentence's first word named the symbol (Go and JSDoc style), so that the
// word now first is its verb even when the verb list lacks it.
func classify(s string, firstRemoved bool) phrase {
	s = strings.TrimRight(strings.TrimSpace(s), ".!?:;,")
	if t := leadingGeneric.ReplaceAllString(s, ""); t != s {
		s, firstRemoved = t, true
	}
	if firstRemoved { // "SetHeader method sets ...": the noun after the removed name
		if w, r, ok := strings.Cut(s, " "); ok && genericNouns[strings.ToLower(w)] {
			s = r
		}
	}
	for _, lead := range []string{"it ", "It ", "This ", "this "} {
		if strings.HasPrefix(s, lead) {
			s, firstRemoved = strings.TrimPrefix(s, lead), true
		}
	}
	words := strings.Fields(s)
	if len(words) < 2 {
		return phrase{}
	}
	first := strings.ToLower(words[0])
	rest := strings.Join(words[1:], " ")
	switch {
	case first == "is" || first == "are":
		second := strings.ToLower(words[1])
		switch {
		case strings.HasSuffix(second, "ed"):
			return phrase{form: formParticiple, rest: rest}
		case second == "a" || second == "an" || second == "the":
			return phrase{form: formNoun, rest: rest}
		}
		return phrase{} // "is just like ...", "is similar to ...": no noun to ask for
	case first == "a" || first == "an" || first == "the":
		if firstRemoved { // the removed first word was a verb: "Reset a routing context ..."
			return phrase{}
		}
		return phrase{form: formNoun, rest: lowerFirst(s)}
	case noNoun[first]:
		return phrase{}
	case verbs[first]:
		return phrase{form: formVerb, base: first, verb: thirdPerson(first), rest: rest}
	case verbs[baseForm(first)] || firstRemoved && isThirdPerson(first):
		return phrase{form: formVerb, base: baseForm(first), verb: first, rest: rest}
	case strings.HasSuffix(first, "ed") && len(first) > 4:
		return phrase{form: formParticiple, rest: lowerFirst(s)}
	case determiners[strings.ToLower(words[1])] && !stopwords[first] && !strings.HasSuffix(first, "ing") && !firstRemoved:
		// "Deactivate a session", "Revokes all tokens": a verb the list lacks, before its object
		if isThirdPerson(first) {
			return phrase{form: formVerb, base: baseForm(first), verb: first, rest: rest}
		}
		return phrase{form: formVerb, base: first, verb: thirdPerson(first), rest: rest}
	case stopwords[first] || strings.HasSuffix(first, "ly") || strings.HasSuffix(first, "ing"):
		return phrase{}
	case unicode.IsLetter(rune(first[0])) && !firstRemoved:
		return phrase{form: formNoun, rest: withArticle(lowerFirst(s))}
	}
	return phrase{}
}

func isThirdPerson(w string) bool {
	if strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return false
	}
	return len(w) > 3 && strings.HasSuffix(w, "s") && !notVerbs[w] &&
		!strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is")
}

// thirdPerson inflects a base verb: return -> returns, match -> matches, copy -> copies.
func thirdPerson(v string) string {
	switch {
	case strings.HasSuffix(v, "y") && len(v) > 2 && !strings.ContainsRune("aeiou", rune(v[len(v)-2])):
		return v[:len(v)-1] + "ies"
	case strings.HasSuffix(v, "s"), strings.HasSuffix(v, "sh"), strings.HasSuffix(v, "ch"),
		strings.HasSuffix(v, "x"), strings.HasSuffix(v, "z"), strings.HasSuffix(v, "o"):
		return v + "es"
	}
	return v + "s"
}

// baseForm undoes thirdPerson: returns -> return, matches -> match, copies -> copy.
func baseForm(v string) string {
	switch {
	case strings.HasSuffix(v, "ies") && len(v) > 4:
		return v[:len(v)-3] + "y"
	case strings.HasSuffix(v, "sses"), strings.HasSuffix(v, "shes"), strings.HasSuffix(v, "ches"),
		strings.HasSuffix(v, "xes"), strings.HasSuffix(v, "zes"), strings.HasSuffix(v, "oes"):
		return v[:len(v)-2]
	case strings.HasSuffix(v, "s") && !strings.HasSuffix(v, "ss"):
		return v[:len(v)-1]
	}
	return v
}

func withArticle(np string) string {
	l := strings.ToLower(np)
	for _, a := range []string{"a ", "an ", "the ", "some ", "one "} {
		if strings.HasPrefix(l, a) {
			return lowerFirst(np)
		}
	}
	return "the " + lowerFirst(np)
}

// lowerFirst lower-cases the first letter unless the first word is an
// acronym (HTTP, JSON) or has capitals inside.
func lowerFirst(s string) string {
	w, _, _ := strings.Cut(s, " ")
	if len(w) > 1 && strings.ToUpper(w) == w {
		return s
	}
	if len(w) > 1 && strings.IndexFunc(w[1:], unicode.IsUpper) >= 0 {
		return s
	}
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToLower(r[0])
	}
	return string(r)
}

// Question templates, by form; one is picked by a hash of the question's
// location, so the choice is stable and spread evenly.
var (
	verbTemplates = []string{
		"where does it {base} {rest}?",
		"which code {verb} {rest}?",
		"how does it {base} {rest}?",
		"where do we {base} {rest}?",
		"where is the code that {verb} {rest}?",
	}
	nounTemplates = []string{
		"where is {rest} defined?",
		"where can I find {rest}?",
		"which code is {rest}?",
	}
	participleTemplates = []string{
		"which code is {rest}?",
		"where is the code that is {rest}?",
	}
	apiVerbTemplates = []string{
		"how do I {base} {rest} through the API?",
		"which endpoint {verb} {rest}?",
		"what API call {verb} {rest}?",
		"which endpoint do I call to {base} {rest}?",
	}
	apiNounTemplates = []string{
		"which endpoint gives {rest}?",
		"what is the API call for {rest}?",
	}
)

// question fills a template of p's form chosen by key; "" when p has no
// form. api picks the endpoint templates.
func (p phrase) question(key string, api bool) string {
	var ts []string
	switch p.form {
	case formVerb:
		ts = verbTemplates
		if api {
			ts = apiVerbTemplates
		}
	case formNoun:
		ts = nounTemplates
		if api {
			ts = apiNounTemplates
		}
	case formParticiple:
		ts = participleTemplates
	default:
		return ""
	}
	t := ts[pick(key, len(ts))]
	q := strings.NewReplacer("{base}", p.base, "{verb}", p.verb, "{rest}", p.rest).Replace(t)
	return spaces.ReplaceAllString(strings.ReplaceAll(q, " ?", "?"), " ")
}

// pick returns a number in [0, n) from a hash of key.
func pick(key string, n int) int {
	return int(hash(key) % uint64(n))
}

func hash(key string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	return h.Sum64()
}
