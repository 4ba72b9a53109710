package main

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode"
)

// A Name is a product asked about: as usually written, and the other
// names whose presence makes a question about it answerable.
type Name struct {
	Written string   // "PostgreSQL"
	Also    []string // "postgres", "libpq"
}

// readNames reads the list of technology and product names: one a line as
// usually written ("RabbitMQ"), optionally followed by " | " and other
// spellings; "#" comments and blank lines skipped. A name written twice
// (case-insensitively) is an error.
func readNames(r io.Reader) ([]Name, error) {
	var out []Name
	seen := map[string]int{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		for i := range parts {
			parts[i] = strings.TrimSpace(parts[i])
			if parts[i] == "" {
				return nil, fmt.Errorf("line %d: empty name", n)
			}
		}
		key := strings.ToLower(parts[0])
		if first, dup := seen[key]; dup {
			return nil, fmt.Errorf("line %d: %q is already on line %d", n, parts[0], first)
		}
		seen[key] = n
		out = append(out, Name{Written: parts[0], Also: parts[1:]})
	}
	return out, sc.Err()
}

// spellings are the lower-cased forms a name may take in a corpus: as
// written, and with its spaces, dots or hyphens dropped or swapped
// ("Google Cloud": googlecloud, google-cloud, google_cloud; "Socket.IO":
// socketio, socket-io).
func spellings(name string) []string {
	l := strings.ToLower(name)
	words := strings.FieldsFunc(l, func(r rune) bool { return strings.ContainsRune(" -._", r) })
	out := []string{l}
	if len(words) > 1 {
		for _, sep := range []string{"", " ", "-", "_", "."} {
			out = append(out, strings.Join(words, sep))
		}
	}
	sort.Strings(out)
	return dedupe(out)
}

func dedupe(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// absentNames returns, as written, the names of which no spelling (of the
// name or of its other names) occurs in text, the lower-cased corpus (see
// corpusText), in list order.
func absentNames(names []Name, text string) []string {
	var out []string
	for _, n := range names {
		if !present(n, text) {
			out = append(out, n.Written)
		}
	}
	return out
}

func present(n Name, text string) bool {
	for _, name := range append([]string{n.Written}, n.Also...) {
		for _, sp := range spellings(name) {
			if strings.Contains(text, sp) {
				return true
			}
		}
	}
	return false
}

// absentTemplates ask for an integration by a product's name.
var absentTemplates = []string{
	"where do we send alerts to {x}?",
	"how does it connect to {x}?",
	"where is the {x} client configured?",
	"{x} integration?",
	"where do we store data in {x}?",
	"does it talk to {x} anywhere?",
	"where are the {x} credentials read?",
	"how do we export results to {x}?",
	"where is {x} set up?",
	"which code calls {x}?",
}

// absentQuestions picks up to n absent names by a hash of seed and name,
// and asks for each twice: in lower case and as usually written (the
// first letter capitalized when it is written in lower case), with two
// different templates.
func absentQuestions(seed string, absent []string, n int) [][2]string {
	sorted := append([]string(nil), absent...)
	sort.SliceStable(sorted, func(i, j int) bool { return hash(seed+"|"+sorted[i]) < hash(seed+"|"+sorted[j]) })
	if len(sorted) > n {
		sorted = sorted[:n]
	}
	sort.Strings(sorted)
	var out [][2]string
	for _, name := range sorted {
		written := name
		if strings.ToLower(name) == name {
			r := []rune(name)
			r[0] = unicode.ToUpper(r[0])
			written = string(r)
		}
		k := len(absentTemplates)
		t1 := pick(seed+"|"+name, k)
		t2 := (t1 + 1 + pick(seed+"|"+name+"|2", k-1)) % k
		out = append(out,
			[2]string{strings.ReplaceAll(absentTemplates[t1], "{x}", strings.ToLower(name)), strings.ToLower(name)},
			[2]string{strings.ReplaceAll(absentTemplates[t2], "{x}", written), written})
	}
	return out
}
