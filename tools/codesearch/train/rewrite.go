package train

import "strings"

// Rewrite returns s and question forms of it, the shapes people ask in
// ("where does it ...", "how does it ..."), so that training sees
// question-like queries and not only doc prose. s is a doc sentence with the
// symbol's name taken out, so it usually starts with a verb: third person in
// Go and JSDoc style ("returns the bar of x"), imperative in Python's
// ("Return the bar of x"). The rules:
//
//   - verb first: "where does it return the bar of x", "how does it get the
//     bar of x" (the verb swapped for a common synonym when it has one, see
//     synonyms), "where is the code that returns the bar of x";
//   - "is a/an/the ..." (type docs): "where is the ...", "what is the ...";
//   - otherwise: "where is " + s.
//
// The first element is always s itself, lower-cased at its start. Rewrite
// is deterministic.
func Rewrite(s string) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	words := strings.Fields(s)
	words[0] = lowerFirst(words[0])
	out := []string{strings.Join(words, " ")}
	first := strings.ToLower(words[0])
	rest := strings.Join(words[1:], " ")
	switch {
	case first == "is" || first == "represents" || first == "describes" || first == "holds":
		if len(words) > 2 && isArticle(words[1]) {
			rest = strings.Join(words[2:], " ")
		}
		out = append(out, "where is the "+rest, "what is the "+rest)
	case isArticle(first) || first == "it" || first == "this":
		out = append(out, "where is "+strings.Join(words, " "))
	default:
		base, third := verbForms(first)
		if base == "" || strings.ToLower(words[0]) != words[0] { // an acronym or a name: HTTP, JSON
			out = append(out, "where is "+strings.Join(words, " "))
			break
		}
		out = append(out, strings.TrimSpace("where does it "+base+" "+rest))
		how := base
		if syn, ok := synonyms[base]; ok {
			how = syn
		}
		out = append(out, strings.TrimSpace("how does it "+how+" "+rest))
		out = append(out, strings.TrimSpace("where is the code that "+third+" "+rest))
	}
	return out
}

// synonyms swaps a doc verb for the one a question tends to use.
var synonyms = map[string]string{
	"return": "get", "returns": "get", "create": "make", "construct": "build",
	"remove": "delete", "delete": "remove", "retrieve": "fetch", "fetch": "get",
	"report": "check", "determine": "check", "compute": "calculate",
	"calculate": "compute", "initialize": "set up", "initialise": "set up",
	"generate": "make", "write": "save", "emit": "send", "invoke": "call",
	"convert": "turn", "parse": "read", "validate": "check", "verify": "check",
	"append": "add", "insert": "add", "update": "change", "modify": "change",
	"establish": "open", "terminate": "stop", "halt": "stop", "launch": "start",
	"obtain": "get", "acquire": "take", "release": "free", "register": "add",
	"handle": "deal with", "encode": "serialize", "decode": "deserialize",
}

// notVerbs are first words that do not start a verb phrase.
var notVerbs = map[string]bool{
	"a": true, "an": true, "the": true, "this": true, "it": true, "if": true,
	"for": true, "in": true, "on": true, "when": true, "used": true, "by": true,
	"with": true, "to": true, "as": true, "that": true, "these": true, "all": true,
	"some": true, "each": true, "every": true, "no": true, "not": true, "only": true,
	"internal": true, "helper": true, "utility": true, "private": true, "default": true,
	"new": true, "like": true, "same": true, "called": true, "see": true, "note": true,
	// nouns that start type and class docs
	"base": true, "abstract": true, "class": true, "mixin": true, "wrapper": true, "decorator": true,
	"exception": true, "error": true, "function": true, "object": true, "simple": true, "generic": true,
	"interface": true, "type": true, "struct": true, "structure": true, "implementation": true,
	"custom": true, "main": true, "common": true, "basic": true, "handler": true, "callback": true,
	"constructor": true, "factory": true, "container": true, "collection": true, "list": true,
	"map": true, "set": true, "dictionary": true, "proxy": true, "context": true, "options": true,
	"configuration": true, "config": true, "representation": true, "information": true,
	"data": true, "value": true, "number": true, "string": true, "one": true, "two": true,
}

func isArticle(w string) bool {
	switch strings.ToLower(w) {
	case "a", "an", "the":
		return true
	}
	return false
}

// verbForms returns the base and third-person forms of the verb w, or ""
// when w does not look like one (a noun phrase, a past participle).
func verbForms(w string) (base, third string) {
	if notVerbs[w] || len(w) < 2 || strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") ||
		strings.HasSuffix(w, "ly") || strings.ContainsAny(w, "0123456789_()[]{}<>=\"'`") {
		return "", ""
	}
	switch w {
	case "is", "are":
		return "", ""
	case "has", "have":
		return "have", "has"
	case "does", "do":
		return "do", "does"
	}
	switch {
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
		// imperative "process", "access"; nouns "status", "analysis"
		if strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is") {
			return "", ""
		}
		return w, w + "es"
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		return w[:len(w)-3] + "y", w
	case strings.HasSuffix(w, "sses") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "ches") ||
		strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "zes"):
		return w[:len(w)-2], w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1], w
	case strings.HasSuffix(w, "y") && len(w) > 2 && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		return w, w[:len(w)-1] + "ies"
	case strings.HasSuffix(w, "sh") || strings.HasSuffix(w, "ch") || strings.HasSuffix(w, "x") || strings.HasSuffix(w, "z"):
		return w, w + "es"
	}
	return w, w + "s"
}

func lowerFirst(w string) string {
	if w == "" || strings.ToUpper(w) == w && len(w) > 1 { // keep acronyms: HTTP, URL
		return w
	}
	return strings.ToLower(w[:1]) + w[1:]
}
