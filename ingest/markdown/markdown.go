package markdown

import (
	"bytes"
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"

	"github.com/ragbot/ragbot/retrieval"
)

// Symbol and window sizes of the sections Chunk returns.
const (
	// IntroSymbol is the Symbol of the text before a document's first heading
	// (front matter included), as the eval names it.
	IntroSymbol = "(intro)"

	// MaxSectionLines is the longest section, in lines, that Chunk returns
	// as one chunk; a longer one is cut into windows of WindowLines lines.
	MaxSectionLines = 200
	// WindowLines is the length, in source lines, of each window of a long section.
	WindowLines = 120

	// maxSplitLevel is the deepest heading level that starts a section; H4-H6
	// stay inside their enclosing section (eval README, "Question format").
	maxSplitLevel = 3
	// pathSep joins the heading texts of a section's Symbol.
	pathSep = " > "
)

// Chunk splits a markdown document into heading sections. path is the
// repo-relative path, with "/" separators; src is the file's bytes.
//
// A section starts at every top-level H1, H2 or H3 heading (ATX "## x" or
// setext "x\n---"), and runs to the line before the next one, or to the end
// of the file; H4-H6 headings stay in their enclosing section. Headings in
// fenced or indented code blocks, block quotes and list items never split.
// Text before the first heading, front matter included, is a section with
// Symbol IntroSymbol when it is not blank. A section of only its heading is
// still returned: the heading is what people search for.
//
// Each chunk has Kind "doc", Language "markdown", SymbolKind "section", Path,
// Symbol (the heading path: the texts of the enclosing H1, H2 and the
// section's own heading, joined with " > ", e.g. "Guide > Setup > Tokens"; an
// H2 with no H1 before it is just "Setup"), Signature (the heading's source
// line(s), trimmed: "## Setup", or "Setup\n-----" for a setext heading; "" for
// the intro), Content, 1-based inclusive StartLine/EndLine and Ordinal (0 for
// the first chunk with that Symbol in the file, then 1, 2, ... for duplicates
// and windows). Other fields are left for the caller.
//
// Content is the section's lines verbatim, joined with "\n" and without a
// final newline, after CRs are stripped and invalid UTF-8 is replaced with
// U+FFFD (neither changes line numbers). A section longer than MaxSectionLines
// lines is cut into windows of WindowLines source lines with exact line
// ranges; every window after the first has the heading line(s) prepended to
// its Content, outside its StartLine-EndLine range, so each window shows which
// section it belongs to.
//
// Chunk returns nil for a blank document. It never fails: any byte sequence
// is markdown.
func Chunk(path string, src []byte) []retrieval.Chunk {
	doc := clean(src)
	if strings.TrimSpace(doc) == "" {
		return nil
	}
	lines := strings.Split(doc, "\n")
	if strings.HasSuffix(doc, "\n") {
		lines = lines[:len(lines)-1] // a final LF ends the last line, it does not start one
	}
	starts := lineStarts(doc)
	heads := headings([]byte(blankFrontMatter(doc, lines)), starts)

	s := sectioner{path: path, lines: lines, ordinals: map[string]int{}}
	first := len(lines) + 1 // start line of the first heading
	if len(heads) > 0 {
		first = heads[0].start
	}
	if first > 1 && strings.TrimSpace(strings.Join(lines[:first-1], "\n")) != "" {
		s.emit(IntroSymbol, 0, 0, first-1)
	}
	var trail [maxSplitLevel + 1]string // heading text per level, 1-based
	for i, h := range heads {
		trail[h.level] = h.text
		clear(trail[h.level+1:])
		parts := slices.DeleteFunc(slices.Clone(trail[1:h.level+1]), func(t string) bool { return t == "" })
		end := len(lines)
		if i+1 < len(heads) {
			end = heads[i+1].start - 1
		}
		s.emit(strings.Join(parts, pathSep), h.start, h.end, end)
	}
	return s.chunks
}

// clean returns src as a string with every CR removed and invalid UTF-8
// replaced by U+FFFD. Neither touches an LF, so line numbers are kept.
func clean(src []byte) string {
	s := string(bytes.ReplaceAll(src, []byte("\r"), nil))
	return strings.ToValidUTF8(s, "\uFFFD")
}

// lineStarts returns the byte offset of the start of every line of doc.
func lineStarts(doc string) []int {
	starts := []int{0}
	for i := 0; i < len(doc); i++ {
		if doc[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// lineOf returns the 1-based line holding byte offset off.
func lineOf(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
}

// blankFrontMatter returns doc with a leading YAML ("---") or TOML ("+++")
// front matter block replaced by blank lines of the same length, so the
// parser sees neither a thematic break nor a setext heading in it, and byte
// offsets and line numbers stay those of doc. Without a closing fence there
// is no front matter and doc is returned as is.
func blankFrontMatter(doc string, lines []string) string {
	if len(lines) == 0 {
		return doc
	}
	fence := strings.TrimRight(lines[0], " \t")
	if fence != "---" && fence != "+++" {
		return doc
	}
	for i := 1; i < len(lines); i++ {
		l := strings.TrimRight(lines[i], " \t")
		if l == fence || (fence == "---" && l == "...") {
			n := min(len(strings.Join(lines[:i+1], "\n"))+1, len(doc))
			blank := []byte(doc[:n])
			for j, c := range blank {
				if c != '\n' {
					blank[j] = ' '
				}
			}
			return string(blank) + doc[n:]
		}
	}
	return doc
}

// A heading is an H1-H3 heading that starts a section.
type heading struct {
	level      int
	text       string // plain text: inline markup reduced to its text
	start, end int    // 1-based lines of the heading itself: one for ATX, two or more for setext
}

// headings parses src with goldmark (CommonMark) and returns the top-level
// headings of levels 1 to maxSplitLevel in document order. starts are the
// line starts of src.
func headings(src []byte, starts []int) []heading {
	doc := goldmark.DefaultParser().Parse(text.NewReader(src))
	var heads []heading
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		h, ok := n.(*ast.Heading)
		if !ok || h.Level > maxSplitLevel {
			continue
		}
		segs := h.Lines()
		pos := h.Pos()
		if pos < 0 {
			if segs.Len() == 0 {
				continue // no position at all; goldmark sets one on every block
			}
			pos = segs.At(0).Start
		}
		hd := heading{level: h.Level, text: plainText(h, src), start: lineOf(starts, pos)}
		hd.end = hd.start
		// A setext heading starts at its first text line (goldmark sets Pos
		// there) and ends at the underline after its last text line; an ATX
		// heading's text starts after its "#"s, on its one line.
		if segs.Len() > 0 && segs.At(0).Start == pos {
			hd.end = lineOf(starts, segs.At(segs.Len()-1).Start) + 1
		}
		heads = append(heads, hd)
	}
	return heads
}

// plainText returns the text of a heading with inline markup (code spans,
// links, emphasis, images) reduced to its text, raw HTML dropped, and runs of
// white space collapsed to one space.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.Text:
				b.Write(c.Value(src))
				if c.SoftLineBreak() || c.HardLineBreak() {
					b.WriteByte(' ')
				}
			case *ast.String:
				b.Write(c.Value)
			case *ast.AutoLink:
				b.Write(c.Label(src))
			case *ast.RawHTML:
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// A sectioner turns line ranges into chunks, numbering duplicate symbols.
type sectioner struct {
	path     string
	lines    []string       // the document's lines, without LFs
	ordinals map[string]int // next Ordinal per Symbol
	chunks   []retrieval.Chunk
}

// emit appends the section symbol that runs from line start to line end
// (1-based, inclusive), cutting it into windows when it is longer than
// MaxSectionLines. Its heading is lines start to headEnd; headEnd is 0 for
// the intro, which has no heading and starts at line 1.
func (s *sectioner) emit(symbol string, start, headEnd, end int) {
	var head []string // the heading's lines, verbatim
	if headEnd == 0 {
		start = 1
	} else {
		head = s.lines[start-1 : headEnd]
	}
	sig := make([]string, len(head))
	for i, l := range head {
		sig[i] = strings.TrimSpace(l)
	}
	size := end - start + 1
	if size <= MaxSectionLines {
		s.add(symbol, strings.Join(sig, "\n"), strings.Join(s.lines[start-1:end], "\n"), start, end)
		return
	}
	for from := start; from <= end; from += WindowLines {
		to := min(from+WindowLines-1, end)
		body := s.lines[from-1 : to]
		if from != start && len(head) > 0 {
			body = append(append([]string{}, head...), body...)
		}
		s.add(symbol, strings.Join(sig, "\n"), strings.Join(body, "\n"), from, to)
	}
}

func (s *sectioner) add(symbol, signature, content string, start, end int) {
	s.chunks = append(s.chunks, retrieval.Chunk{
		Kind:       retrieval.KindDoc,
		Path:       s.path,
		Symbol:     symbol,
		SymbolKind: "section",
		Language:   "markdown",
		Signature:  signature,
		Content:    content,
		StartLine:  start,
		EndLine:    end,
		Ordinal:    s.ordinals[symbol],
	})
	s.ordinals[symbol]++
}
