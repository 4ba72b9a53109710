// Package english says whether a word is everyday English, from the word
// list built into the binary: SCOWL as Debian's wamerican 2020.12.07-2
// packages it (/usr/share/dict/american-english, gzipped unchanged;
// PROVENANCE.md says where it comes from and how to check it, and
// american-english.copyright is its licence, shipped with it as the licence
// asks). The list is parsed once, on first use, and read-only afterwards:
// safe for concurrent use.
package english

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode"
)

//go:embed american-english.gz
var listGz []byte

// Copyright is the licence of the word list (the copyright file of
// Debian's wamerican package, verbatim). Its terms ask that it accompany
// every copy of the list, which the binary is.
//
//go:embed american-english.copyright
var Copyright string

// Everyday reports whether word, lower-cased, is an entry of the word list
// written in lower case: a common noun, verb, adjective or other everyday
// word in some inflection ("retry", "retries", "alerting", "slack",
// "oracle", "isn't"). The list's capitalised entries are proper nouns and
// acronyms ("Kafka", "Redis", "Linux", "NASA"): a word that the list has
// only capitalised names something, so it is not everyday; a word with
// both entries ("Oracle" and "oracle", "Python" and "python") is. Case in
// the question does not matter: "Kafka" and "kafka" are both a name,
// "Slack" and "slack" both everyday. An error reading the embedded list
// (a broken build) panics on first use.
func Everyday(word string) bool {
	w := strings.ToLower(strings.ReplaceAll(word, "’", "'"))
	return words()[w]
}

// Size is how many everyday entries the list has (its lower-case entries).
func Size() int { return len(words()) }

var words = sync.OnceValue(func() map[string]bool {
	m, err := parse(listGz)
	if err != nil {
		panic(fmt.Sprintf("english: american-english.gz: %v", err))
	}
	return m
})

// parse reads the gzipped list, one word a line, and keeps the entries
// without an upper-case letter.
func parse(gz []byte) (map[string]bool, error) {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	text := string(data)
	m := make(map[string]bool, 90_000)
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if line != "" && strings.IndexFunc(line, unicode.IsUpper) < 0 {
			m[line] = true
		}
	}
	return m, nil
}
