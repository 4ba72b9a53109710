// Package expand holds the word lists that retrieval's query expansion
// reads, built into the binary: the nearest GloVe neighbours of common
// English words (glove-neighbours.txt.gz) and WordNet synonyms
// (wordnet-synonyms.txt.gz). PROVENANCE.md names their sources, licences
// and the command that rebuilds them (package gen). Both are parsed once,
// on first use, and read-only afterwards: safe for concurrent use.
package expand

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed glove-neighbours.txt.gz
var gloveGz []byte

//go:embed wordnet-synonyms.txt.gz
var wordnetGz []byte

// A Neighbour is a word near another in GloVe's vector space, with their
// cosine similarity (-1..1, rounded to 0.01).
type Neighbour struct {
	Word   string
	Cosine float64
}

// GloVe returns, for each of the 20,000 most frequent words of GloVe's
// vocabulary (lower-case letters, 3 or more), its 10 nearest words among
// the 40,000 most frequent, closest first. The map is shared: do not
// modify it.
func GloVe() (map[string][]Neighbour, error) { return gloveOnce() }

// WordNet returns, for each one-word WordNet 3.0 lemma that has any, the
// other one-word lemmas of its first two senses of each part of speech, at
// most 8, most frequent sense first. The map is shared: do not modify it.
func WordNet() (map[string][]string, error) { return wordnetOnce() }

var gloveOnce = sync.OnceValues(func() (map[string][]Neighbour, error) {
	out := map[string][]Neighbour{}
	err := eachLine(gloveGz, func(f []string) error {
		ns := make([]Neighbour, 0, len(f)-1)
		for _, p := range f[1:] {
			w, c, ok := strings.Cut(p, ":")
			cos, err := strconv.ParseFloat(c, 64)
			if !ok || err != nil {
				return fmt.Errorf("%q: want word:cosine", p)
			}
			ns = append(ns, Neighbour{w, cos})
		}
		out[f[0]] = ns
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expand: glove-neighbours.txt.gz: %w", err)
	}
	return out, nil
})

var wordnetOnce = sync.OnceValues(func() (map[string][]string, error) {
	out := map[string][]string{}
	err := eachLine(wordnetGz, func(f []string) error {
		out[f[0]] = f[1:]
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("expand: wordnet-synonyms.txt.gz: %w", err)
	}
	return out, nil
})

// eachLine calls fn with the space-separated fields of each line of the
// gzip-compressed text gz; a line has a word and at least one more field.
func eachLine(gz []byte, fn func([]string) error) error {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(zr)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) < 2 {
			return fmt.Errorf("line %d: want a word and what it expands to", n)
		}
		if err := fn(f); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}
