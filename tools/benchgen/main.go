// Command benchgen builds the generated held-out benchmark
// (testdata/eval/generated): for each repository of the pinned list, fetched
// by scripts/bench-generated.sh, it cuts the files as `ragbot index` does
// (ragbot's own chunkers) and writes questions with known answers, made
// from doc comments, markdown headings and API summaries, and unanswerable
// ones naming products the repository never mentions, beside the
// hand-written near misses.
//
//	benchgen [-dir DIR] -corpus CORPUS gen      write DIR/<repo>/questions.jsonl and print counts
//	benchgen [-dir DIR] -corpus CORPUS check    exit 1 when a file differs from what gen writes
//	benchgen [-dir DIR] -corpus CORPUS sources  print the config's sources: entries for the set
//	benchgen [-dir DIR] groups                  print "corpus<TAB>group<TAB>name" per repository
//	benchgen [-dir DIR] loo EVAL.json           the coverage thresholds chosen leave-one-repository-out
//	                                            on `ragbot eval --json`'s evidence, by group and repository
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("benchgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", "../../testdata/eval/generated", "folder with repos.tsv, absent-names.txt and near-miss.tsv; questions are written under it")
	corpus := fs.String("corpus", "", "folder the repositories were fetched into (scripts/bench-generated.sh fetch CORPUS)")
	only := fs.String("only", "", "comma-separated repository names to generate; empty: all")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: benchgen [-dir DIR] [-corpus CORPUS] [-only a,b] gen|check|sources|groups|loo EVAL.json")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil || fs.NArg() != 1 && (fs.NArg() != 2 || fs.Arg(0) != "loo") {
		fs.Usage()
		return 2
	}
	mode := fs.Arg(0)
	in, err := readInputs(*dir)
	if err != nil {
		fmt.Fprintln(stderr, "benchgen:", err)
		return 1
	}
	if *only != "" {
		in.repos = selectRepos(in.repos, strings.Split(*only, ","))
	}
	if mode == "groups" {
		for _, r := range in.repos {
			fmt.Fprintf(stdout, "%s\t%s\t%s\n", r.Source(), r.Group, r.Name)
		}
		return 0
	}
	if mode == "loo" {
		if err := loo(stdout, in, fs.Arg(1)); err != nil {
			fmt.Fprintln(stderr, "benchgen:", err)
			return 1
		}
		return 0
	}
	if *corpus == "" {
		fmt.Fprintln(stderr, "benchgen: -corpus is required")
		return 2
	}
	abs, err := filepath.Abs(*corpus)
	if err != nil {
		fmt.Fprintln(stderr, "benchgen:", err)
		return 1
	}
	switch mode {
	case "sources":
		writeSources(stdout, in.repos, abs)
		return 0
	case "gen", "check":
		return generate(ctx, in, abs, mode == "check", stdout, stderr)
	}
	fs.Usage()
	return 2
}

// inputs are the committed files the questions are made from, beside the corpora.
type inputs struct {
	dir      string
	repos    []Repo
	names    []Name              // absent-names.txt
	nearMiss map[string][]string // near-miss.tsv: repository name -> questions
}

func readInputs(dir string) (inputs, error) {
	in := inputs{dir: dir}
	f, err := os.Open(filepath.Join(dir, "repos.tsv"))
	if err != nil {
		return in, err
	}
	defer f.Close()
	if in.repos, err = readRepos(f); err != nil {
		return in, fmt.Errorf("repos.tsv: %w", err)
	}
	g, err := os.Open(filepath.Join(dir, "absent-names.txt"))
	if err != nil {
		return in, err
	}
	defer g.Close()
	if in.names, err = readNames(g); err != nil {
		return in, fmt.Errorf("absent-names.txt: %w", err)
	}
	h, err := os.Open(filepath.Join(dir, "near-miss.tsv"))
	if err != nil {
		return in, err
	}
	defer h.Close()
	if in.nearMiss, err = readNearMiss(h, in.repos); err != nil {
		return in, fmt.Errorf("near-miss.tsv: %w", err)
	}
	return in, nil
}

func selectRepos(repos []Repo, names []string) []Repo {
	var out []Repo
	for _, r := range repos {
		if contains(names, r.Name) {
			out = append(out, r)
		}
	}
	return out
}

// writeSources prints one `sources:` entry per repository (the lines
// under "sources:" of a ragbot config), indented by two spaces.
func writeSources(w io.Writer, repos []Repo, corpus string) {
	for _, r := range repos {
		fmt.Fprintf(w, "  - name: %q\n    kind: %s\n    path: %q\n", r.Source(), r.Kind(), r.Path(corpus))
	}
}

// generate makes every repository's questions and writes them, or with
// check compares them with the files; it prints a table of counts.
func generate(ctx context.Context, in inputs, corpus string, check bool, stdout, stderr io.Writer) int {
	fmt.Fprintf(stdout, "%-16s %-9s %7s %10s %7s %5s %6s %9s %5s\n",
		"repo", "group", "chunks", "paraphrase", "openapi", "docs", "absent", "near_miss", "all")
	differ := 0
	total := map[string]int{}
	for _, r := range in.repos {
		qs, chunks, err := build(ctx, r, in, corpus)
		if err != nil {
			fmt.Fprintln(stderr, "benchgen:", err)
			return 1
		}
		data := encode(qs)
		file := filepath.Join(in.dir, r.Name, "questions.jsonl")
		if check {
			old, err := os.ReadFile(file)
			if err != nil || !bytes.Equal(old, data) {
				fmt.Fprintf(stderr, "benchgen: %s differs from what gen writes\n", file)
				differ++
			}
		} else {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				fmt.Fprintln(stderr, "benchgen:", err)
				return 1
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				fmt.Fprintln(stderr, "benchgen:", err)
				return 1
			}
		}
		n := map[string]int{}
		for _, q := range qs {
			n[q.Kind]++
			total[q.Kind]++
		}
		total["chunks"] += chunks
		fmt.Fprintf(stdout, "%-16s %-9s %7d %10d %7d %5d %6d %9d %5d\n", r.Name, r.Group, chunks,
			n["paraphrase"], n["openapi"], n["docs"], n["absent"], n["near_miss"], len(qs))
	}
	all := total["paraphrase"] + total["openapi"] + total["docs"] + total["absent"] + total["near_miss"]
	fmt.Fprintf(stdout, "%-16s %-9s %7d %10d %7d %5d %6d %9d %5d\n", "all", "", total["chunks"],
		total["paraphrase"], total["openapi"], total["docs"], total["absent"], total["near_miss"], all)
	if differ > 0 {
		fmt.Fprintf(stderr, "benchgen: %d question files differ; run gen\n", differ)
		return 1
	}
	return 0
}

// build makes the questions of one repository, in kind order (paraphrase or
// openapi, docs, absent, near_miss), and counts its chunks.
func build(ctx context.Context, r Repo, in inputs, corpus string) ([]Question, int, error) {
	secs, chunks, err := loadSections(ctx, r, corpus)
	if err != nil {
		return nil, 0, err
	}
	text, err := corpusText(r.Path(corpus))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", r.Name, err)
	}
	var qs []Question
	add := func(kind, letter string, cs []candidate) {
		for i, c := range cs {
			qs = append(qs, Question{ID: fmt.Sprintf("%s-%s%02d", r.Name, letter, i+1), Corpus: r.Source(),
				Kind: kind, Question: c.question, Expect: c.expect})
		}
	}
	switch r.Group {
	case "openapi":
		add("openapi", "O", sample(r.Name, apiQuestions(r, secs), apiPerRepo))
	case "markdown":
		add("docs", "D", sample(r.Name, docsQuestions(r, secs), docsPerDocTree))
	default:
		add("paraphrase", "P", sample(r.Name, paraphrases(r, secs), paraphrasePerRepo))
		add("docs", "D", sample(r.Name, docsQuestions(r, secs), docsPerRepo))
	}
	for i, a := range absentQuestions(r.Name, absentNames(in.names, text), absentNamesPerRep) {
		qs = append(qs, Question{ID: fmt.Sprintf("%s-A%02d", r.Name, i+1), Corpus: r.Source(), Kind: "absent",
			Question: a[0], Expect: []Expect{}})
	}
	for i, q := range in.nearMiss[r.Name] {
		qs = append(qs, Question{ID: fmt.Sprintf("%s-N%02d", r.Name, i+1), Corpus: r.Source(), Kind: "near_miss",
			Question: q, Expect: []Expect{}})
	}
	return qs, chunks, nil
}

// encode writes one JSON object a line, HTML characters unescaped.
func encode(qs []Question) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			panic(err) // plain strings and ints always encode
		}
	}
	return b.Bytes()
}
