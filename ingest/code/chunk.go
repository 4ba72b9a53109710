package code

import (
	"bytes"
	"cmp"
	"context"

	sitter "github.com/smacker/go-tree-sitter"

	"github.com/ragbot/ragbot/retrieval"
)

// Options tunes Chunk. Zero values mean the defaults in brackets.
type Options struct {
	MaxLines    int // longest symbol kept as one chunk, in lines [150]
	WindowLines int // window size when a symbol or an unparsed file is split, in lines [60]
	Overlap     int // lines shared by consecutive line windows, at most WindowLines/2; negative for none [10]
}

// Defaults of Options, in lines.
const (
	DefaultMaxLines    = 150
	DefaultWindowLines = 60
	DefaultOverlap     = 10
)

// withDefaults fills zero fields and caps the overlap at half a window.
func (o Options) withDefaults() Options {
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	if o.WindowLines <= 0 {
		o.WindowLines = DefaultWindowLines
	}
	o.Overlap = cmp.Or(o.Overlap, DefaultOverlap)
	o.Overlap = max(0, min(o.Overlap, o.WindowLines/2))
	return o
}

// Reasons for line windows, stored in Result.Fallback.
const (
	FallbackParseError = "parse error" // the grammar found a syntax error
	FallbackNoGrammar  = "no grammar"  // no tree-sitter grammar for the language
	FallbackNoSymbols  = "no symbols"  // it parsed, but declares nothing to index
)

// Result is the outcome of chunking one file.
type Result struct {
	// Chunks are in line order. Only Kind (retrieval.KindCode), Path, Symbol,
	// SymbolKind, Language, Signature, Content, StartLine, EndLine, Ordinal
	// and, for a file with a grammar, Refs (refsByLine) are set; the caller
	// fills the rest.
	Chunks []retrieval.Chunk
	// Fallback is "" when symbols were found (or the file is blank), else why
	// line windows were cut: FallbackParseError, FallbackNoGrammar or
	// FallbackNoSymbols. With FallbackParseError the windows cover only the
	// symbols that did not parse when others did, and those others keep
	// their chunks; else the windows cover the whole file.
	Fallback string
}

// topLevelCodeMin is the number of non-blank lines outside all symbols above
// which a Python, JavaScript or TypeScript file also gets windows over its
// top-level code (scripts that do their work outside functions).
const topLevelCodeMin = 20

// Chunk cuts one file into chunks. path is repo-relative with "/" separators
// and picks the grammar (see Language); src is the file's bytes, in any line
// ending or encoding. Each symbol is one chunk from its doc comment or first
// decorator to its end; a class longer than opt.MaxLines keeps only its
// header (up to its first member), and any symbol longer than opt.MaxLines is
// cut into consecutive opt.WindowLines windows, each narrowed to its first
// and last non-blank lines: the first as it is, each later one as the
// signature, a "..." line, then exactly the lines StartLine..EndLine. A symbol with a
// syntax error (see dropBroken) is cut into windows of opt.WindowLines lines
// overlapping by opt.Overlap, with Symbol "" and SymbolKind "window", and so
// is the whole file when it has no grammar or no symbol parses. A blank file gives no chunks. Chunk never fails and is safe
// for concurrent use.
func Chunk(path string, src []byte, opt Options) Result {
	if len(bytes.TrimSpace(src)) == 0 {
		return Result{}
	}
	lines := splitLines(src)
	c := chunker{path: path, lang: Language(path), lines: lines, opt: opt.withDefaults()}
	syms, broken, refs, fallback := parse(path, src)
	if len(syms) == 0 {
		c.window(1, len(lines))
		return Result{Chunks: c.withRefs(refs), Fallback: fallback}
	}
	for _, s := range syms {
		c.symbol(s)
	}
	for _, b := range broken {
		c.window(b.from, b.to)
	}
	if c.lang == "python" || c.lang == "javascript" || c.lang == "typescript" {
		c.topLevel(syms, broken)
	}
	return Result{Chunks: c.withRefs(refs), Fallback: fallback}
}

// parse returns the symbols of src, the line spans that did not parse and
// the names used per line (refsByLine), or why there are no symbols. A file
// that only parses once its grammar gaps are patched (see gapPatches) has no
// broken spans.
func parse(path string, src []byte) (syms []symbol, broken []span, refs map[int][]string, fallback string) {
	lang := grammar(path)
	if lang == nil {
		return nil, nil, nil, FallbackNoGrammar
	}
	p := sitter.NewParser()
	defer p.Close()
	p.SetLanguage(lang)
	tree, err := p.ParseCtx(context.Background(), nil, src)
	if err != nil {
		return nil, nil, nil, FallbackParseError
	}
	tree, _ = patchGaps(p, tree, gapPatches[Language(path)], src)
	defer tree.Close()
	root := tree.RootNode()
	refs = refsByLine(root, src)
	switch Language(path) {
	case "go":
		syms = goSymbols(root, src)
	case "python":
		syms = pySymbols(root, src)
	case "javascript", "typescript":
		syms = esSymbols(root, src)
	case "java":
		syms = javaSymbols(root, src)
	}
	if root.HasError() {
		syms, broken = dropBroken(root, syms)
		fallback = FallbackParseError
	}
	if len(syms) == 0 && fallback == "" {
		fallback = FallbackNoSymbols
	}
	return syms, broken, refs, fallback
}

// withRefs is finish with each chunk's Refs filled from refs.
func (c *chunker) withRefs(refs map[int][]string) []retrieval.Chunk {
	out := c.finish()
	for i := range out {
		out[i].Refs = refsIn(refs, out[i].StartLine, out[i].EndLine)
	}
	return out
}
