package main

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/ragbot/ragbot/config"
	"github.com/ragbot/ragbot/ingest"
	"github.com/ragbot/ragbot/ingest/code"
	"github.com/ragbot/ragbot/ingest/markdown"
	"github.com/ragbot/ragbot/ingest/openapi"
	"github.com/ragbot/ragbot/retrieval"
)

// A Section is one place a question can point at, as ragbot indexes it: a
// code symbol (the chunks of a symbol split into windows merged back), a
// markdown heading section, or an API operation. Start and End are 1-based
// and inclusive.
type Section struct {
	Kind       string // retrieval.KindCode, KindDoc or KindAPI
	Path       string // repo-relative path (docs folder-relative for a markdown source)
	Symbol     string // "Type.Method", heading path "A > B", or "GET /path"
	SymbolKind string
	Language   string
	Signature  string
	Content    string // the first chunk's content
	Start, End int
	// Summary is an API operation's summary (or its description's first
	// line when it has none); "" for other sections.
	Summary string
}

// chunkOptions are the chunker's options under ragbot's default config.
var chunkOptions = code.Options{MaxLines: config.DefaultMaxSymbol, WindowLines: config.DefaultWindow}

// loadSections returns the sections of r as `ragbot index` cuts them from
// the corpus fetched under corpus (for a git repository the files
// ingest.GitFiles reads at its head, for a docs folder those of
// ingest.DirFiles, for a spec its operations), and the number of chunks.
func loadSections(ctx context.Context, r Repo, corpus string) ([]Section, int, error) {
	var chunks []retrieval.Chunk
	switch r.Kind() {
	case "git":
		_, err := ingest.GitFiles(ctx, ingest.GitSource{Dir: r.Root(corpus)}, func(p string, data []byte) error {
			chunks = append(chunks, chunkFile(p, data)...)
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.Name, err)
		}
	case "markdown":
		err := ingest.DirFiles(ingest.DirSource{Dir: r.Path(corpus)}, func(p string, data []byte) error {
			chunks = append(chunks, markdown.Chunk(p, data)...)
			return nil
		})
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.Name, err)
		}
	case "openapi":
		file := r.Path(corpus)
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.Name, err)
		}
		spec, err := openapi.Load(file, data)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", r.Name, err)
		}
		secs := apiSections(spec, path.Base(r.Sub))
		return secs, len(secs), nil
	}
	return mergeChunks(chunks), len(chunks), nil
}

// chunkFile cuts one file as the indexer does (ingest's chunkFile): markdown
// by heading, everything else by symbol. Content that is not UTF-8 is left
// out here (the indexer converts it; its line numbers would not change, but
// such files are rare and hold no doc comments worth asking about).
func chunkFile(p string, data []byte) []retrieval.Chunk {
	if !utf8.Valid(data) {
		return nil
	}
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx":
		return markdown.Chunk(p, data)
	}
	return code.Chunk(p, data, chunkOptions).Chunks
}

// mergeChunks turns chunks into sections, joining consecutive chunks of one
// symbol in one file (the windows of a long symbol or section) into one.
func mergeChunks(chunks []retrieval.Chunk) []Section {
	var out []Section
	for _, c := range chunks {
		if n := len(out); n > 0 && c.Symbol != "" && out[n-1].Path == c.Path &&
			out[n-1].Symbol == c.Symbol && c.StartLine <= out[n-1].End+1 {
			out[n-1].End = max(out[n-1].End, c.EndLine)
			continue
		}
		out = append(out, Section{Kind: c.Kind, Path: c.Path, Symbol: c.Symbol, SymbolKind: c.SymbolKind,
			Language: c.Language, Signature: c.Signature, Content: c.Content, Start: c.StartLine, End: c.EndLine})
	}
	return out
}

// apiSections lists a spec's operations with their summaries.
func apiSections(spec *openapi.Spec, file string) []Section {
	summaries := map[string]string{}
	for _, p := range spec.Doc.Paths.Keys() {
		item := spec.Doc.Paths.Value(p)
		if item == nil {
			continue
		}
		for m, op := range item.Operations() {
			s := strings.TrimSpace(op.Summary)
			if s == "" {
				s, _, _ = strings.Cut(strings.TrimSpace(op.Description), "\n")
			}
			summaries[strings.ToUpper(m)+" "+spec.BasePath+p] = s
		}
	}
	var out []Section
	for _, c := range spec.Chunks(file) {
		out = append(out, Section{Kind: c.Kind, Path: c.Path, Symbol: c.Symbol, SymbolKind: c.SymbolKind,
			Language: c.Language, Signature: c.Signature, Content: c.Content, Start: c.StartLine, End: c.EndLine,
			Summary: summaries[c.Symbol]})
	}
	return out
}

// corpusText returns the lower-cased text of every file under root (the
// source's repository, spec file or docs folder), .git left out, for the
// absence scan: it reads more than ragbot indexes (tests, licences,
// lockfiles, binaries), so a name found nowhere in it is surely absent.
func corpusText(root string) (string, error) {
	var b bytes.Buffer
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		b.WriteString(strings.ToLower(filepath.ToSlash(rel)))
		b.WriteByte(0)
		b.Write(bytes.ToLower(data))
		b.WriteByte(0)
		return nil
	})
	return b.String(), err
}
