// Command typoeval measures ragbot's typo correction (retrieval.Correction,
// the "did you mean" of the absence check) on real misspellings: the
// misspelling -> correction pairs of codespell's dictionary
// (https://github.com/codespell-project/codespell, codespell_lib/data/
// dictionary.txt, one "typo->word" a line), against the vocabulary of real
// source trees. A pair is asked when the typo is one Damerau edit from its
// single correction, both are lower-case ASCII letters, the typo is in no
// file of the trees and the correction is in at least three (the term has
// to exist for ragbot to suggest it). It prints how many were corrected to
// the dictionary's word, to another word, or not at all.
//
//	go run ./tools/typoeval -dict dictionary.txt DIR...
//
// scripts/typo-eval.sh fetches the pinned codespell wheel and runs it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ragbot/ragbot/retrieval"
)

func main() {
	dict := flag.String("dict", "", "codespell dictionary.txt")
	show := flag.Int("show", 20, "wrong corrections to list")
	flag.Parse()
	if *dict == "" || flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: typoeval -dict dictionary.txt DIR...")
		os.Exit(2)
	}
	v := retrieval.NewSourceVocabulary("trees", "", nil)
	for _, dir := range flag.Args() {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if n := d.Name(); n == ".git" || n == "node_modules" || n == "vendor" {
					return filepath.SkipDir
				}
				return nil
			}
			switch filepath.Ext(p) {
			case ".go", ".py", ".js", ".ts", ".md", ".rst", ".txt", ".yaml", ".yml", ".json":
			default:
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil || len(b) > 1<<20 {
				return nil
			}
			v.Count(retrieval.SearchText(retrieval.Chunk{Path: p, Content: string(b)}), 1)
			return nil
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	voc := retrieval.Vocabulary{v}
	f, err := os.Open(*dict)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	var asked, right, none int
	wrong := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		typo, word, ok := strings.Cut(strings.TrimSpace(sc.Text()), "->")
		if !ok || strings.Contains(word, ",") || !letters(typo) || !letters(word) || !retrieval.OneEdit(typo, word) {
			continue
		}
		if voc.DF(typo) > 0 || voc.DF(word) < 3 {
			continue
		}
		asked++
		switch got := retrieval.Correction(typo, voc); got {
		case word:
			right++
		case "":
			none++
		default:
			wrong[typo] = got + " (meant " + word + ")"
		}
	}
	fmt.Printf("files %d, terms %d; pairs asked %d: corrected right %d (%.3f), wrong %d (%.3f), none %d (%.3f)\n",
		v.Chunks, len(v.Terms), asked, right, float64(right)/float64(asked), len(wrong), float64(len(wrong))/float64(asked),
		none, float64(none)/float64(asked))
	keys := make([]string, 0, len(wrong))
	for k := range wrong {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i == *show {
			break
		}
		fmt.Printf("  %s -> %s\n", k, wrong[k])
	}
}

func letters(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return r < 'a' || r > 'z' }) < 0
}
