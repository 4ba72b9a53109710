package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/ragbot/ragbot/retrieval/embed"
	"github.com/ragbot/ragbot/retrieval/wordvec"
	"github.com/ragbot/ragbot/retrieval/wordvec/corpus"
)

const embeddingsAbout = `ragbot embeddings train builds the static word-vector model of the "static"
embedder from text already on this machine, never a download: the Go standard
library sources ($(go env GOROOT)/src), the Python standard library, the man
pages and the package docs under /usr/share. Tokens are code-aware (identifier
word pieces plus the whole identifier, lower-cased). Training is word2vec
skip-gram with negative sampling on one goroutine with a fixed seed, so the
same inputs give the same file byte for byte. It prints the pinned inputs
(file count, bytes and SHA-256 of each tree) and writes them, with the
parameters and timings, to PROVENANCE.md beside the model.

Examples:
  ragbot embeddings train
  ragbot embeddings train --out /tmp/m/model.bin --epochs 3 --dim 64
  ragbot embeddings train --dry-run      # list the inputs and their fingerprints only
  ragbot embeddings similar retry auth   # the 10 nearest words of each, to inspect a model`

const embeddingsUsage = `ragbot embeddings builds and inspects the word-vector model of the offline
"static" embedder (embedder.kind: static).

Usage:
  ragbot embeddings train [flags]             build the model from text already on this machine
  ragbot embeddings similar [flags] WORD...   print each word's nearest neighbours in a model

Run "ragbot embeddings train -h" or "ragbot embeddings similar -h" for their flags.`

// defaultModelPath is where `embeddings train` writes and the static
// embedder looks, relative to the working directory, unless configured.
const defaultModelPath = "models/static-v1/model.bin"

func runEmbeddings(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) > 0 && args[0] == "similar" {
		return runSimilar(args[1:], stdout, stderr)
	}
	switch {
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprintln(stdout, embeddingsUsage)
		return nil
	case len(args) == 0:
		return fmt.Errorf("%w: want `ragbot embeddings train [flags]` or `ragbot embeddings similar WORD...`", errUsage)
	case args[0] != "train":
		return unknownSubcommand("embeddings", args[0], []string{"train", "similar"})
	}
	fs := newFlags("embeddings train", embeddingsAbout, stderr)
	p := wordvec.DefaultParams()
	out := fs.String("out", defaultModelPath, "model `file` to write; PROVENANCE.md goes beside it")
	goroot := fs.String("goroot", "", "Go tree whose src/ is read; empty: `go env GOROOT`")
	python := fs.String("python", "", "Python standard library folder; empty: python3's sysconfig stdlib path")
	man := fs.String("man", "/usr/share/man", "man page folder (man1..man8 are read); empty: none")
	doc := fs.String("doc", "/usr/share/doc", "package docs folder (README, NEWS, .txt, .md); empty: none")
	fs.IntVar(&p.Dim, "dim", p.Dim, "vector length")
	fs.IntVar(&p.Epochs, "epochs", p.Epochs, "passes over the corpus")
	fs.IntVar(&p.Window, "window", p.Window, "context window, in tokens each side")
	fs.Int64Var(&p.MinCount, "min-count", p.MinCount, "minimum occurrences for a word to get a vector")
	fs.IntVar(&p.MaxVocab, "max-vocab", p.MaxVocab, "vocabulary size limit, most frequent words kept (0: none)")
	fs.Uint64Var(&p.Seed, "seed", p.Seed, "random seed")
	sample := fs.Int("common-sample", 20000, "blocks of the corpus sampled to fit the SIF common component")
	dry := fs.Bool("dry-run", false, "list the inputs and their fingerprints, train nothing")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	inputs, err := trainingInputs(ctx, *goroot, *python, *man, *doc)
	if err != nil {
		return err
	}
	start := time.Now()
	files, err := corpus.List(inputs)
	if err != nil {
		return err
	}
	prints, err := corpus.Fingerprint(inputs, files)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, "pinned inputs:")
	for _, ip := range prints {
		fmt.Fprintf(stdout, "  %-28s %-6s %6d files %11d bytes sha256 %s  %s\n", ip.Name, ip.Kind, ip.Files, ip.Bytes, ip.SHA256, ip.Root)
	}
	if *dry {
		return nil
	}
	sents := corpus.Sentences(inputs, files, embed.AppendStaticTokens)
	lastReport := time.Now()
	m, st, err := wordvec.Train(ctx, sents, p, func(done, total int64) {
		if time.Since(lastReport) > 10*time.Second || done == total {
			lastReport = time.Now()
			fmt.Fprintf(stderr, "training: %d of %d tokens (%.0f%%), %s\n", done, total, 100*float64(done)/float64(max(total, 1)), time.Since(start).Round(time.Second))
		}
	})
	if err != nil {
		return err
	}
	trained := time.Since(start)
	blocks, err := corpus.Sample(inputs, files, embed.AppendStaticTokens, *sample, 8)
	if err != nil {
		return err
	}
	q := embed.Fit(m, blocks)
	meta := map[string]string{"inputs": inputsMeta(prints), "tokenizer": "embed.StaticTokens (word pieces + joined identifier, lower-case)"}
	var buf bytes.Buffer
	if err := q.Save(&buf, meta, true); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(*out, buf.Bytes(), 0o644); err != nil {
		return err
	}
	emb, err := embed.LoadStatic(*out)
	if err != nil {
		return err
	}
	total := time.Since(start)
	fmt.Fprintf(stdout, "tokens read %d (%d distinct), vocabulary %d, tokens per epoch %d, trained %d (after subsampling) at %.0f tokens/s\n",
		st.Tokens, st.Distinct, st.Vocab, st.Encoded, st.Trained, st.WordsPerS)
	fmt.Fprintf(stdout, "wrote %s: %d bytes, embedder %s; training %s, total %s\n", *out, buf.Len(), emb.Name(), trained.Round(time.Second), total.Round(time.Second))
	return writeProvenance(filepath.Join(filepath.Dir(*out), "PROVENANCE.md"), prints, p, st, emb, buf.Len(), trained, total, *sample)
}

// trainingInputs resolves the default input trees of this machine.
func trainingInputs(ctx context.Context, goroot, python, man, doc string) ([]corpus.Input, error) {
	if goroot == "" {
		b, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
		if err != nil {
			return nil, fmt.Errorf("go env GOROOT: %w (pass --goroot)", err)
		}
		goroot = strings.TrimSpace(string(b))
	}
	if python == "" {
		b, err := exec.CommandContext(ctx, "python3", "-c", `import sysconfig;print(sysconfig.get_paths()["stdlib"])`).Output()
		if err != nil {
			return nil, fmt.Errorf("python3 stdlib path: %w (pass --python)", err)
		}
		python = strings.TrimSpace(string(b))
	}
	goVersion := "go"
	if b, err := os.ReadFile(filepath.Join(goroot, "VERSION")); err == nil {
		goVersion, _, _ = strings.Cut(string(b), "\n")
	}
	inputs := []corpus.Input{
		{Name: goVersion + " GOROOT/src", Root: filepath.Join(goroot, "src"), Kind: corpus.KindGo},
		{Name: "python " + filepath.Base(python) + " stdlib", Root: python, Kind: corpus.KindPython},
	}
	if man != "" {
		inputs = append(inputs, corpus.Input{Name: "man pages", Root: man, Kind: corpus.KindMan})
	}
	if doc != "" {
		inputs = append(inputs, corpus.Input{Name: "package docs", Root: doc, Kind: corpus.KindDoc})
	}
	return inputs, nil
}

// inputsMeta is the fingerprint list stored in the model file's header.
func inputsMeta(prints []corpus.InputPrint) string {
	type in struct {
		Name, Kind string
		Files      int
		Bytes      int64
		SHA256     string
	}
	var ins []in
	for _, p := range prints {
		ins = append(ins, in{p.Name, p.Kind, p.Files, p.Bytes, p.SHA256})
	}
	b, _ := json.Marshal(ins)
	return string(b)
}

// writeProvenance records how the model was built.
func writeProvenance(path string, prints []corpus.InputPrint, p wordvec.Params, st wordvec.Stats, emb *embed.Static,
	size int, trained, total time.Duration, sample int) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Static word vectors: provenance\n\n")
	fmt.Fprintf(&b, "Built by `ragbot embeddings train` (cmd/ragbot/embeddings.go). Embedder name: `%s`.\n\n", emb.Name())
	fmt.Fprintf(&b, "Method: word2vec skip-gram with negative sampling (Mikolov et al. 2013, \"Distributed Representations of Words and Phrases and their Compositionality\"), implemented in retrieval/wordvec, single goroutine, fixed seed: the same inputs and parameters give the same file byte for byte. Sentence vectors: SIF (Arora et al. 2017), see retrieval/embed/static.go.\n\n")
	fmt.Fprintf(&b, "## Pinned inputs\n\n| input | kind | files | bytes | sha256 (paths + contents, in order) | root |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, ip := range prints {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | `%s` | `%s` |\n", ip.Name, ip.Kind, ip.Files, ip.Bytes, ip.SHA256, ip.Root)
	}
	pj, _ := json.MarshalIndent(p, "", "  ")
	fmt.Fprintf(&b, "\nTokens: embed.StaticTokens (the word pieces of each identifier, lower-cased, then the joined identifier); text split into blocks at blank lines (man pages stripped of roff markup); gcloud_* man pages, *_test.go, testdata/, generated Go files, Python test folders and Debian copyright/changelog files left out, and tokens that are mostly digits (retrieval/wordvec/corpus, embed.StaticTokens).\n\n## Parameters\n\n```json\n%s\n```\n\nPost-processing: all-but-the-top (Mu & Viswanath 2018: mean and 3 top directions, embed.Postprocess, by embed.Fit); common component (SIF step 2) fitted on %d sampled blocks of at least 8 tokens. Both are stored in the model header.\n\n", pj, sample)
	fmt.Fprintf(&b, "## Result\n\n- tokens read: %d (%d distinct); vocabulary: %d words; tokens per epoch: %d; trained after subsampling: %d\n", st.Tokens, st.Distinct, st.Vocab, st.Encoded, st.Trained)
	fmt.Fprintf(&b, "- file: %d bytes (int8 rows with a float32 scale; word and context vectors)\n", size)
	fmt.Fprintf(&b, "- time on this machine (%d CPUs, %s/%s, shared with other work): training %s, total with listing, fingerprinting and the common component %s (%.0f tokens/s)\n",
		runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, trained.Round(time.Second), total.Round(time.Second), st.WordsPerS)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// runSimilar prints the nearest words of each argument by cosine of the
// word vectors as the static embedder uses them: a look inside a model.
const similarAbout = `ragbot embeddings similar prints each word's nearest neighbours in the static
word-vector model (cosine similarity), to check what a trained model learnt.

Examples:
  ragbot embeddings similar retry timeout
  ragbot embeddings similar -model models/static-v1/model.bin -n 5 weaviate`

func runSimilar(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("embeddings similar", similarAbout, stderr)
	path := fs.String("model", defaultModelPath, "model `file`")
	n := fs.Int("n", 10, "neighbours per word")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := embed.LoadStatic(*path)
	if err != nil {
		return err
	}
	for _, w := range fs.Args() {
		nbs, ok := s.Similar(strings.ToLower(w), *n)
		if !ok {
			fmt.Fprintf(stdout, "%s: not in the vocabulary\n", w)
			continue
		}
		fmt.Fprintf(stdout, "%s:", w)
		for _, nb := range nbs {
			fmt.Fprintf(stdout, " %s(%.2f)", nb.Word, nb.Cosine)
		}
		fmt.Fprintln(stdout)
	}
	return nil
}
