package code

import (
	"slices"
	"sort"

	"github.com/ragbot/ragbot/retrieval"
)

// windowMarker separates the repeated signature from the lines of a window
// after the first one of a split symbol.
const windowMarker = "\n...\n"

// chunker collects the chunks of one file.
type chunker struct {
	path, lang string
	lines      lineSet
	opt        Options
	out        []retrieval.Chunk
}

func (c *chunker) add(name, kind, sig, content string, from, to int) {
	c.out = append(c.out, retrieval.Chunk{
		Kind:       retrieval.KindCode,
		Path:       c.path,
		Symbol:     name,
		SymbolKind: kind,
		Language:   c.lang,
		Signature:  sig,
		Content:    content,
		StartLine:  from,
		EndLine:    to,
	})
}

// symbol adds the chunk(s) of one symbol: the whole symbol if it fits in
// MaxLines; for a long class, or one marked header, only its header, up to
// its first member; else consecutive windows of WindowLines lines, each
// narrowed to its first and last non-blank lines (see lineSet.trim).
func (c *chunker) symbol(s symbol) {
	from, to := s.start, s.end
	if (to-from+1 > c.opt.MaxLines || s.header) && s.container && s.member > from {
		var ok bool
		if from, to, ok = c.lines.trim(from, s.member-1); !ok {
			return
		}
	}
	if to-from+1 <= c.opt.MaxLines {
		c.add(s.name, s.kind, s.sig, c.lines.text(from, to), from, to)
		return
	}
	// Each window is narrowed to its first and last non-blank lines: its
	// content neither starts nor ends with a blank line, and the blank
	// lines between two windows belong to neither.
	k := 0
	for a := from; a <= to; a += c.opt.WindowLines {
		f, t, ok := c.lines.trim(a, min(a+c.opt.WindowLines-1, to))
		if !ok {
			continue
		}
		content := c.lines.text(f, t)
		if k > 0 {
			content = s.sig + windowMarker + content
		}
		c.add(s.name, s.kind, s.sig, content, f, t)
		k++
	}
}

// window adds overlapping line windows over from..to, without symbol.
func (c *chunker) window(from, to int) {
	f, t, ok := c.lines.trim(max(from, 1), min(to, len(c.lines)))
	if !ok {
		return
	}
	for _, w := range c.lines.windows(f, t, c.opt.WindowLines, c.opt.Overlap) {
		c.add("", "window", "", c.lines.text(w.from, w.to), w.from, w.to)
	}
}

// topLevel adds windows over the code outside all symbols and broken spans
// (which have windows of their own) when it has more than topLevelCodeMin
// non-blank lines; each uncovered run is windowed on its own.
func (c *chunker) topLevel(syms []symbol, broken []span) {
	covered := slices.Clone(broken)
	for _, s := range syms {
		covered = append(covered, span{s.start, s.end})
	}
	runs := gaps(1, len(c.lines), covered)
	code := 0
	for _, r := range runs {
		for l := r.from; l <= r.to; l++ {
			if !c.lines.blank(l) {
				code++
			}
		}
	}
	if code <= topLevelCodeMin {
		return
	}
	for _, r := range runs {
		c.window(r.from, r.to)
	}
}

// finish orders the chunks by line and numbers each Symbol's chunks 0, 1, ...
func (c *chunker) finish() []retrieval.Chunk {
	sort.SliceStable(c.out, func(i, j int) bool { return c.out[i].StartLine < c.out[j].StartLine })
	seen := map[string]int{}
	for i := range c.out {
		c.out[i].Ordinal = seen[c.out[i].Symbol]
		seen[c.out[i].Symbol]++
	}
	return c.out
}
