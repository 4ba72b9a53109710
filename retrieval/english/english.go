// Package english says whether a word is everyday English, from the word lists
// built into the binary: SCOWL as Debian packages it, version 2020.12.07-2:
// wamerican's /usr/share/dict/american-english (gzipped unchanged), with two
// small lists derived from its siblings, the British spellings wbritish adds
// (british-only.gz) and the capitalised words of SCOWL's smaller size that
// wamerican-small keeps (common-capitalised.gz). PROVENANCE.md says where each
// comes from and how to check it; american-english.copyright is their licence,
// shipped with them as the licence asks. The lists are parsed once, on first
// use, and read-only afterwards: safe for concurrent use.
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

//go:embed british-only.gz
var britishGz []byte

//go:embed common-capitalised.gz
var commonGz []byte

// Copyright is the licence of the word list (the copyright file of
// Debian's wamerican package, verbatim). Its terms ask that it accompany
// every copy of the list, which the binary is.
//
//go:embed american-english.copyright
var Copyright string

// Everyday reports whether word, lower-cased, is an everyday word of the lists:
// an entry of american-english written in lower case (a common noun, verb,
// adjective or other word in some inflection: "retry", "retries", "alerting",
// "slack", "oracle", "isn't"), its British spelling ("neighbours",
// "initialise"), or one of the few capitalised words common enough for SCOWL's
// size 35 (months, days, languages and nationalities: "English", "Monday"; and
// "PR", "ID", "OK"). The other capitalised entries are proper nouns and
// acronyms ("Kafka", "Redis", "Linux", "Unicode", "NASA"): a word that the
// lists have only that way names something, so it is not everyday; a word with
// both entries ("Oracle" and "oracle", "Python" and "python") is. Case in the
// question does not matter: "Kafka" and "kafka" are both a name, "Slack" and
// "slack" both everyday. An error reading the embedded lists (a broken build)
// panics on first use.
func Everyday(word string) bool { return words()[fold(word)]&everyday != 0 }

// Proper reports whether word, lower-cased, is a capitalised entry of the
// lists and no everyday word: a proper noun or an acronym ("Kafka",
// "kafka", "Redis", "NASA").
func Proper(word string) bool { return words()[fold(word)] == proper }

// fold is the form words are kept in: lower case, with typographic
// apostrophes made straight ("isn’t" -> "isn't").
func fold(word string) string { return strings.ToLower(strings.ReplaceAll(word, "’", "'")) }

// Kinds of entry, as bits: a word may be both.
const (
	everyday = 1 << iota // a lower-case entry
	proper               // a capitalised entry
)

var words = sync.OnceValue(func() map[string]uint8 {
	m := make(map[string]uint8, 106_000)
	for _, l := range []struct {
		name  string
		gz    []byte
		upper uint8 // the kind of a capitalised entry
	}{{"american-english.gz", listGz, proper}, {"british-only.gz", britishGz, proper}, {"common-capitalised.gz", commonGz, everyday}} {
		if err := parse(m, l.gz, l.upper); err != nil {
			panic(fmt.Sprintf("english: %s: %v", l.name, err))
		}
	}
	return m
})

// parse reads a gzipped list, one word a line, into m: a lower-case entry
// is everyday, a capitalised one (lower-cased) of kind upper.
func parse(m map[string]uint8, gz []byte, upper uint8) error {
	r, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		switch {
		case line == "":
		case strings.IndexFunc(line, unicode.IsUpper) < 0:
			m[line] |= everyday
		default:
			m[strings.ToLower(line)] |= upper
		}
	}
	return nil
}
