// Command codesearch mines (doc comment, code) pairs from source trees and
// trains a codesearch model on them (package train);
// scripts/train-codesearch.sh runs it on the pinned inputs of
// models/codesearch-v1. It is a Go module of its own, so that the ragbot
// binary compiles none of the training code:
//
//	cd tools/codesearch && go run . -roots ROOTS -o model.bin [-report report.json] [flags]
//
// ROOTS has one input a line, "LANG NAME DIR" (LANG go, python or js; NAME
// the Go module path, Debian or npm package, "stdlib" for the Go standard
// library). A reserved NAME (train.CheckRoot) is an error. Pairs of
// one directory in ten (by a hash of the root and directory) are held out:
// the model is trained on the others, and the report gives the held-out
// MRR per language, 1 code against 999 distractors as in CodeSearchNet,
// for the model and for the offline hashing embedder.
package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"os"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/embed/codesearch"
	"github.com/ragbot/ragbot/tools/codesearch/train"
)

// Most pairs taken from one root, so that a few big inputs do not make the
// model theirs; standard libraries get more.
const (
	capPerRoot   = 1500
	capPerStdlib = 12000
)

type root struct {
	Lang  string `json:"lang"`
	Name  string `json:"name"`
	dir   string
	Pairs int `json:"pairs"`
}

type report struct {
	Params     train.Params       `json:"params"`
	Roots      []root             `json:"roots"`
	TrainPairs map[string]int     `json:"train_pairs"`
	TestPairs  map[string]int     `json:"test_pairs"`
	MRR        map[string]float64 `json:"heldout_mrr"`
	OfflineMRR map[string]float64 `json:"heldout_mrr_offline_hash"`
	Loss       []float64          `json:"epoch_loss"`
	Seconds    float64            `json:"train_seconds"`
	Vocabulary int                `json:"vocabulary"`
}

func main() {
	var (
		rootsFile = flag.String("roots", "", "inputs, one \"LANG NAME DIR\" a line")
		out       = flag.String("o", "", "model file to write")
		rep       = flag.String("report", "", "JSON report to write")
		maxPairs  = flag.Int("max-pairs", 0, "use at most this many training pairs (0: all), for quick runs")
		dump      = flag.Int("dump", 0, "print this many mined pairs per language and exit")
		evalModel = flag.String("eval", "", "measure this model file on the held-out pairs instead of training")
		p         = train.DefaultParams
	)
	flag.IntVar(&p.Epochs, "epochs", p.Epochs, "epochs")
	flag.IntVar(&p.Batch, "batch", p.Batch, "batch size")
	flag.Float64Var(&p.LR, "lr", p.LR, "Adam step size")
	flag.Float64Var(&p.Scale, "scale", p.Scale, "InfoNCE logit scale")
	flag.Uint64Var(&p.Seed, "seed", p.Seed, "seed")
	flag.IntVar(&p.MaxWords, "max-words", p.MaxWords, "vocabulary cap")
	flag.Parse()
	if *rootsFile == "" || (*out == "" && *dump == 0 && *evalModel == "") {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*rootsFile, *out, *rep, *evalModel, *maxPairs, *dump, p); err != nil {
		fmt.Fprintln(os.Stderr, "codesearch:", err)
		os.Exit(1)
	}
}

func run(rootsFile, out, repPath, evalModel string, maxPairs, dump int, p train.Params) error {
	roots, err := readRoots(rootsFile)
	if err != nil {
		return err
	}
	var fitPairs, heldOut []train.Pair
	seen := map[string]bool{}
	for i := range roots {
		r := &roots[i]
		pairs, err := train.MineDir(r.dir)
		if err != nil {
			return fmt.Errorf("%s: %w", r.Name, err)
		}
		limit := capPerRoot
		if r.Name == "stdlib" || strings.HasPrefix(r.Name, "libpython") {
			limit = capPerStdlib
		}
		pairs = sample(pairs, r.Name, limit)
		for _, pr := range pairs {
			key := pr.Doc + "\x00" + pr.Code
			if seen[key] || seen[pr.Doc+"\x00"+pr.Symbol] {
				continue
			}
			seen[key], seen[pr.Doc+"\x00"+pr.Symbol] = true, true
			r.Pairs++
			if hash(r.Name+"/"+path.Dir(pr.Path))%10 == 0 {
				heldOut = append(heldOut, pr)
			} else {
				fitPairs = append(fitPairs, pr)
			}
		}
		fmt.Fprintf(os.Stderr, "%-8s %-60s %5d pairs\n", r.Lang, r.Name, r.Pairs)
	}
	if dump > 0 {
		printed := map[string]int{}
		for _, pr := range fitPairs {
			if printed[pr.Lang] < dump && hash(pr.Path+pr.Symbol)%50 == 0 {
				printed[pr.Lang]++
				fmt.Printf("== %s %s %s\n%q\n%.300s\n\n", pr.Lang, pr.Path, pr.Symbol, pr.Queries, pr.Code)
			}
		}
		return nil
	}
	if maxPairs > 0 && len(fitPairs) > maxPairs {
		fitPairs = sample(fitPairs, "train", maxPairs)
	}
	rep := report{Params: p, Roots: roots, TrainPairs: byLang(fitPairs), TestPairs: byLang(heldOut),
		MRR: map[string]float64{}, OfflineMRR: map[string]float64{}}
	fmt.Fprintf(os.Stderr, "training on %v, holding out %v\n", rep.TrainPairs, rep.TestPairs)
	info := map[string]any{"params": p, "train_pairs": rep.TrainPairs, "inputs": len(roots)}
	start := time.Now()
	var m *codesearch.Model
	if evalModel != "" {
		m, _, err = codesearch.LoadFile(evalModel)
	} else {
		m, err = train.Fit(context.Background(), fitPairs, p, info, func(epoch int, loss float64) {
			rep.Loss = append(rep.Loss, loss)
			fmt.Fprintf(os.Stderr, "epoch %d: loss %.4f (%s)\n", epoch, loss, time.Since(start).Round(time.Second))
		})
	}
	if err != nil {
		return err
	}
	rep.Seconds = time.Since(start).Seconds()
	rep.Vocabulary = m.Words
	off := embed.NewOffline()
	offEncode := func(s string) []float32 {
		v, _ := off.Embed(context.Background(), []string{s})
		return v[0]
	}
	for _, lang := range []string{"go", "python", "javascript"} {
		var sel []train.Pair
		for _, pr := range heldOut {
			if evalLang(pr.Lang) == lang {
				sel = append(sel, pr)
			}
		}
		sel = sample(sel, "test", len(sel)) // mix the directories in each group
		if mrr, g := train.MRR(sel, 1000, m.Encode); g > 0 {
			rep.MRR[lang] = mrr
			rep.OfflineMRR[lang], _ = train.MRR(sel, 1000, offEncode)
			fmt.Fprintf(os.Stderr, "held-out MRR %s: %.3f (offline hashing %.3f; %d groups of 1000)\n", lang, mrr, rep.OfflineMRR[lang], g)
		}
	}
	if evalModel != "" {
		return nil
	}
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	if err := m.Write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if repPath != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		return os.WriteFile(repPath, append(b, '\n'), 0o644)
	}
	return nil
}

func readRoots(file string) ([]root, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var roots []root
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if len(fs) != 3 {
			return nil, fmt.Errorf("%s: want \"LANG NAME DIR\", got %q", file, sc.Text())
		}
		if err := train.CheckRoot(fs[1]); err != nil {
			return nil, err
		}
		roots = append(roots, root{Lang: fs[0], Name: fs[1], dir: fs[2]})
	}
	return roots, sc.Err()
}

// sample returns at most n of pairs, the ones with the smallest hashes of
// salt, path and symbol, in that hash order: a fixed pseudo-random subset.
func sample(pairs []train.Pair, salt string, n int) []train.Pair {
	type h struct {
		k uint64
		p train.Pair
	}
	hs := make([]h, len(pairs))
	for i, p := range pairs {
		hs[i] = h{hash(salt + "\x00" + p.Path + "\x00" + p.Symbol + "\x00" + p.Doc), p}
	}
	slices.SortStableFunc(hs, func(a, b h) int { return cmp.Compare(a.k, b.k) })
	out := make([]train.Pair, 0, min(n, len(hs)))
	for _, x := range hs[:min(n, len(hs))] {
		out = append(out, x.p)
	}
	return out
}

func hash(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// evalLang is the held-out group of a language: TypeScript is measured
// with JavaScript (as CodeSearchNet's JavaScript set), too few pairs for a
// group of 1000 of its own.
func evalLang(lang string) string {
	if lang == "typescript" {
		return "javascript"
	}
	return lang
}

func byLang(pairs []train.Pair) map[string]int {
	m := map[string]int{}
	for _, p := range pairs {
		m[p.Lang]++
	}
	return m
}
