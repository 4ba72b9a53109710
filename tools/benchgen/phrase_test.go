package main

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		s            string
		firstRemoved bool
		want         phrase
	}{
		{"returns the number of open connections.", true, phrase{formVerb, "return", "returns", "the number of open connections"}},
		{"Return the value of a header.", false, phrase{formVerb, "return", "returns", "the value of a header"}},
		{"matches the request against the routes", true, phrase{formVerb, "match", "matches", "the request against the routes"}},
		{"Deactivate a session", false, phrase{formVerb, "deactivate", "deactivates", "a session"}},
		{"method sets the base URL of every request", true, phrase{formVerb, "set", "sets", "the base URL of every request"}},
		{"A parser for multipart bodies.", false, phrase{formNoun, "", "", "a parser for multipart bodies"}},
		{"is a parser for multipart bodies", true, phrase{formNoun, "", "", "a parser for multipart bodies"}},
		{"is used to parse multipart bodies", true, phrase{formParticiple, "", "", "used to parse multipart bodies"}},
		{"Helper for reading config files", false, phrase{formNoun, "", "", "the helper for reading config files"}},
		{"a routing context to its initial state", true, phrase{}}, // the removed first word was the verb
		{"is just like the other functions", true, phrase{}},
		{"Like append, but grows by one", false, phrase{}},
		{"if the file exists", false, phrase{}},
		{"returns", true, phrase{}},
	}
	for _, tt := range tests {
		if got := classify(tt.s, tt.firstRemoved); got != tt.want {
			t.Errorf("classify(%q, %v) = %+v, want %+v", tt.s, tt.firstRemoved, got, tt.want)
		}
	}
}

func TestInflection(t *testing.T) {
	for base, third := range map[string]string{"return": "returns", "match": "matches", "copy": "copies",
		"push": "pushes", "fix": "fixes", "play": "plays", "go": "goes"} {
		if got := thirdPerson(base); got != third {
			t.Errorf("thirdPerson(%q) = %q, want %q", base, got, third)
		}
		if got := baseForm(third); got != base {
			t.Errorf("baseForm(%q) = %q, want %q", third, got, base)
		}
	}
}

// questionsOver fills p's templates under many keys and returns the distinct questions.
func questionsOver(p phrase, api bool) []string {
	seen := map[string]bool{}
	for i := 0; i < 200; i++ {
		seen[p.question(fmt.Sprintf("key%d", i), api)] = true
	}
	var out []string
	for q := range seen {
		out = append(out, q)
	}
	sort.Strings(out)
	return out
}

func TestTemplates(t *testing.T) {
	verb := phrase{formVerb, "return", "returns", "the number of open connections"}
	noun := phrase{formNoun, "", "", "a parser for multipart bodies"}
	tests := []struct {
		name string
		p    phrase
		api  bool
		want []string
	}{
		{"verb", verb, false, []string{
			"how does it return the number of open connections?",
			"where do we return the number of open connections?",
			"where does it return the number of open connections?",
			"where is the code that returns the number of open connections?",
			"which code returns the number of open connections?",
		}},
		{"noun", noun, false, []string{
			"where can I find a parser for multipart bodies?",
			"where is a parser for multipart bodies defined?",
			"which code is a parser for multipart bodies?",
		}},
		{"participle", phrase{formParticiple, "", "", "used to parse multipart bodies"}, false, []string{
			"where is the code that is used to parse multipart bodies?",
			"which code is used to parse multipart bodies?",
		}},
		{"api verb", phrase{formVerb, "list", "lists", "containers"}, true, []string{
			"how do I list containers through the API?",
			"what API call lists containers?",
			"which endpoint do I call to list containers?",
			"which endpoint lists containers?",
		}},
		{"no form", phrase{}, false, []string{""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, questionsOver(tt.p, tt.api)); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
		})
	}
	// The template is a function of the key alone.
	if a, b := verb.question("chi|mux.go|Mux.Handle", false), verb.question("chi|mux.go|Mux.Handle", false); a != b {
		t.Errorf("question is not deterministic: %q, %q", a, b)
	}
}

func TestHeadingQuestion(t *testing.T) {
	tests := []struct{ h, want string }{
		{"Why do I get many chmod events?", "why do I get many chmod events?"},
		{"Configure the logger", "how do I configure the logger?"},
	}
	for _, tt := range tests {
		if got := headingQuestion("k", tt.h); got != tt.want {
			t.Errorf("headingQuestion(%q) = %q, want %q", tt.h, got, tt.want)
		}
	}
	// A noun heading gets a docs template.
	got := headingQuestion("k", "request handlers")
	found := false
	for _, tmpl := range docsTemplates {
		if got == strings.ReplaceAll(tmpl, "{h}", "request handlers") {
			found = true
		}
	}
	if !found {
		t.Errorf("headingQuestion(request handlers) = %q, not a docs template", got)
	}
}
