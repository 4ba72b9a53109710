// Package corpus reads the local text that ragbot's static word vectors are
// trained on: Go and Python sources, man pages and package docs, all already
// on the machine, nothing downloaded (README, "Offline semantic embedder").
// It lists the files of each Input
// in a fixed order, fingerprints them for the model's provenance, and turns
// each file into plain text blocks (paragraphs; man pages lose their roff
// markup), which the caller tokenizes.
package corpus

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/ragbot/ragbot/retrieval/wordvec"
)

// Kinds of Input: which files of the tree are read and how.
const (
	KindGo     = "go"     // *.go, without *_test.go, testdata/ folders and generated files
	KindPython = "python" // *.py, without test/, tests/, site-packages/ and __pycache__/ folders
	KindMan    = "man"    // man[1-8]/* pages (gzip or plain roff), without gcloud_* pages
	KindDoc    = "doc"    // README*, NEWS*, *.txt, *.md (gzip or plain), not copyright or changelogs
	KindTree   = "tree"   // every text file (a team's own sources, for refinement)
)

// An Input is one tree of training text.
type Input struct {
	Name string // shown in the provenance, e.g. "go1.26.8 GOROOT/src"
	Root string // folder to walk
	Kind string // one of the Kind constants
}

// A File is one file of an Input, Path relative to the Input's Root with
// "/" separators.
type File struct {
	Input int // index in the inputs
	Path  string
	Size  int64
}

// maxFileBytes is the largest file read; larger ones are skipped (generated
// tables, data dumps).
const maxFileBytes = 4 << 20

// skipDirs are folders never entered, by kind.
var skipDirs = map[string]map[string]bool{
	KindGo:     {"testdata": true},
	KindPython: {"test": true, "tests": true, "site-packages": true, "__pycache__": true},
	KindTree:   {".git": true, "node_modules": true, "vendor": true},
}

var manSection = regexp.MustCompile(`^man[1-8]$`)

// wanted reports whether the file at rel (slash path) of an Input of kind
// is training text.
func wanted(kind, rel string) bool {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	switch kind {
	case KindGo:
		return strings.HasSuffix(base, ".go") && !strings.HasSuffix(base, "_test.go")
	case KindPython:
		return strings.HasSuffix(base, ".py")
	case KindMan:
		dir, _, ok := strings.Cut(rel, "/")
		// gcloud's generated pages (16,630 on the reference machine, 60% of
		// the bytes) repeat each other per release track: left out.
		return ok && manSection.MatchString(dir) && !strings.Contains(rel[len(dir)+1:], "/") && !strings.HasPrefix(base, "gcloud_")
	case KindDoc:
		b := strings.ToLower(strings.TrimSuffix(base, ".gz"))
		if strings.HasPrefix(b, "copyright") || strings.HasPrefix(b, "changelog") {
			return false
		}
		return strings.HasPrefix(b, "readme") || strings.HasPrefix(b, "news") || strings.HasSuffix(b, ".txt") || strings.HasSuffix(b, ".md")
	case KindTree:
		return true
	}
	return false
}

// List returns the files of inputs, input by input, each in lexical path
// order (so the order does not depend on the file system), skipping
// symbolic links and files over 4 MiB. It fails when a Root cannot be
// read or a Kind is unknown.
func List(inputs []Input) ([]File, error) {
	var out []File
	for i, in := range inputs {
		if _, ok := map[string]bool{KindGo: true, KindPython: true, KindMan: true, KindDoc: true, KindTree: true}[in.Kind]; !ok {
			return nil, fmt.Errorf("corpus: input %q: unknown kind %q", in.Name, in.Kind)
		}
		err := filepath.WalkDir(in.Root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(in.Root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if rel != "." && skipDirs[in.Kind][d.Name()] {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !wanted(in.Kind, rel) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			if info.Size() > maxFileBytes {
				return nil
			}
			out = append(out, File{Input: i, Path: rel, Size: info.Size()})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("corpus: input %q: %w", in.Name, err)
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		if out[a].Input != out[b].Input {
			return out[a].Input < out[b].Input
		}
		return out[a].Path < out[b].Path
	})
	return out, nil
}

// Read returns the text of f: gunzipped when its name ends in .gz, with
// roff markup removed for man pages, and "" for a binary file (one with a
// NUL byte in its first 8 KiB) and a generated Go file.
func Read(inputs []Input, f File) (string, error) {
	in := inputs[f.Input]
	data, err := os.ReadFile(filepath.Join(in.Root, filepath.FromSlash(f.Path)))
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(f.Path, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return "", fmt.Errorf("corpus: %s: %w", f.Path, err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, 4*maxFileBytes))
		if err != nil {
			return "", fmt.Errorf("corpus: %s: %w", f.Path, err)
		}
	}
	if bytes.IndexByte(data[:min(len(data), 8192)], 0) >= 0 {
		return "", nil
	}
	switch in.Kind {
	case KindMan:
		return StripRoff(string(data)), nil
	case KindGo:
		if generated.Match(data) {
			return "", nil
		}
	}
	return string(data), nil
}

// generated matches the marker of generated Go files (go help generate):
// tables, syscall numbers and rewrite rules, half the bytes of GOROOT/src
// and no prose.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// Fingerprint returns, per input, the number of files, their bytes and the
// hex SHA-256 over each file's path and content in List order: the pinned
// inputs a model's provenance lists. Two machines with the same fingerprint
// train the same model.
func Fingerprint(inputs []Input, files []File) ([]InputPrint, error) {
	prints := make([]InputPrint, len(inputs))
	hs := make([]hashWriter, len(inputs))
	for i, in := range inputs {
		prints[i] = InputPrint{Input: in}
		hs[i] = sha256.New()
	}
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(inputs[f.Input].Root, filepath.FromSlash(f.Path)))
		if err != nil {
			return nil, err
		}
		h := hs[f.Input]
		fmt.Fprintf(h, "%s\x00%d\x00", f.Path, len(data))
		h.Write(data)
		prints[f.Input].Files++
		prints[f.Input].Bytes += int64(len(data))
	}
	for i := range prints {
		prints[i].SHA256 = hex.EncodeToString(hs[i].Sum(nil))
	}
	return prints, nil
}

type hashWriter interface {
	io.Writer
	Sum([]byte) []byte
}

// InputPrint is the fingerprint of one Input.
type InputPrint struct {
	Input
	Files  int
	Bytes  int64
	SHA256 string
}

// Blocks calls yield with each paragraph of text (runs of lines between
// blank lines), trimmed, until yield returns false. Code keeps a doc
// comment and the declaration under it in one block, so training windows
// pair the comment's words with the identifiers.
func Blocks(text string, yield func(string) bool) {
	start := 0
	blank := true
	for i := 0; i <= len(text); {
		j := strings.IndexByte(text[i:], '\n')
		end := len(text)
		if j >= 0 {
			end = i + j
		}
		line := text[i:end]
		if strings.TrimSpace(line) == "" {
			if !blank {
				if b := strings.TrimSpace(text[start:i]); b != "" && !yield(b) {
					return
				}
			}
			blank = true
		} else if blank {
			start, blank = i, false
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	if !blank {
		if b := strings.TrimSpace(text[start:]); b != "" {
			yield(b)
		}
	}
}

// Tokenizer appends the tokens of text to dst (embed.AppendStaticTokens).
type Tokenizer func(dst []string, text string) []string

// Sentences returns the corpus of files as wordvec sentences: each Block of
// each file, tokenized, in List order. Files that fail to read end the
// stream with their error; binary files give nothing.
func Sentences(inputs []Input, files []File, tokenize Tokenizer) wordvec.Sentences {
	return func(yield func([]string) bool) error {
		var toks []string
		for _, f := range files {
			text, err := Read(inputs, f)
			if err != nil {
				return err
			}
			stop := false
			Blocks(text, func(b string) bool {
				toks = tokenize(toks[:0], b)
				if len(toks) > 0 && !yield(toks) {
					stop = true
				}
				return !stop
			})
			if stop {
				return nil
			}
		}
		return nil
	}
}

// Sample returns up to n blocks of files spread over the whole corpus:
// every k-th block with at least minTokens tokens, k chosen from a first
// count so the sample reaches about n. It is deterministic.
func Sample(inputs []Input, files []File, tokenize Tokenizer, n, minTokens int) ([]string, error) {
	var toks []string
	eligible := 0
	each := func(f func(string)) error {
		for _, file := range files {
			text, err := Read(inputs, file)
			if err != nil {
				return err
			}
			Blocks(text, func(b string) bool {
				if toks = tokenize(toks[:0], b); len(toks) >= minTokens {
					f(b)
				}
				return true
			})
		}
		return nil
	}
	if err := each(func(string) { eligible++ }); err != nil {
		return nil, err
	}
	k := max(1, eligible/max(n, 1))
	var out []string
	i := 0
	err := each(func(b string) {
		if i%k == 0 && len(out) < n {
			out = append(out, b)
		}
		i++
	})
	return out, err
}

// TextSentences is Sentences over texts held in memory (a team's sources,
// read for refinement): each Block of each text, tokenized, in order.
func TextSentences(texts []string, tokenize Tokenizer) wordvec.Sentences {
	return func(yield func([]string) bool) error {
		var toks []string
		for _, text := range texts {
			stop := false
			Blocks(text, func(b string) bool {
				toks = tokenize(toks[:0], b)
				if len(toks) > 0 && !yield(toks) {
					stop = true
				}
				return !stop
			})
			if stop {
				return nil
			}
		}
		return nil
	}
}

// TextSample is Sample over texts held in memory.
func TextSample(texts []string, tokenize Tokenizer, n, minTokens int) []string {
	var toks, eligible []string
	for _, text := range texts {
		Blocks(text, func(b string) bool {
			if toks = tokenize(toks[:0], b); len(toks) >= minTokens {
				eligible = append(eligible, b)
			}
			return true
		})
	}
	k := max(1, len(eligible)/max(n, 1))
	var out []string
	for i := 0; i < len(eligible) && len(out) < n; i += k {
		out = append(out, eligible[i])
	}
	return out
}
