package confluence

import (
	"cmp"
	"net/url"
	"strings"
	"time"

	"github.com/ragbot/ragbot/retrieval"
)

// Section sizes and the splitter's version.
const (
	// MaxSectionLines is the longest section, in rendered lines, kept as one
	// chunk; a longer one is cut into windows of about WindowLines lines, at
	// line boundaries and never inside a code block (a code block longer than
	// a window is a window of its own).
	MaxSectionLines = 200
	WindowLines     = 120

	// SplitterVersion changes whenever the rendering or splitting changes
	// what a section holds; sources put it in ingest.PageSet.Settings, so a
	// new version re-fetches and re-splits every page.
	SplitterVersion = "2"

	pathSep = " > " // joins the heading path of a Symbol
)

// A Doc is what every section of one page shares.
type Doc struct {
	Title    string    // page title: the root of every heading path
	Path     string    // Chunk.Path, "OPS/Deploy runbook" (see PagePath)
	URL      string    // page URL without a fragment; "" when the page has none
	Author   string    // last editor; "" when unknown
	Version  string    // page version, "7"
	Modified time.Time // when that version was made
	// Anchor returns the URL fragment of a heading that carries no id
	// (storage format never does): CloudAnchor, or DataCenterAnchor(title).
	// nil means sections link to the page itself.
	Anchor func(heading string) string
	// UserName returns the display name of a user the page mentions; nil,
	// or "" from it, shows the user as User.ID.
	UserName func(User) string
}

// SplitStorage splits a page body in storage format into section chunks
// (see Chunks).
func (d Doc) SplitStorage(storage string) []retrieval.Chunk {
	return d.chunks(parseStorage(storage, d.UserName))
}

// chunks splits blocks into sections: a section starts at every H1, H2 or
// H3 outside lists, tables and quotes (headings inside layouts and inside
// the bodies of expand, panel, info and other macros count), and runs to
// the next one; H4-H6 stay in their section as "#### text" lines.
// Text before the first heading is a section of its own, Symbol the page
// title. A Symbol is the heading path: the page title, then the texts of the
// enclosing H1 and H2 and the section's own heading, joined with " > "
// ("Deploy runbook > Rollback > DB failover"); an H1 starts a new path.
//
// Content is the heading line ("## DB failover"), then the blocks, separated
// by blank lines; Signature is the heading line ("" for the text before the
// first heading). Line numbers count the page's rendered text: the sections
// one after another with a blank line between them. A page with no text at
// all gives one chunk holding its title, so that it is findable and its
// version is remembered. Each chunk has Kind "doc", SymbolKind "section",
// Language "markdown" (the rendering is markdown-like), the page's Path,
// Author, Version and Modified, and URL = the page URL with the heading's
// anchor.
func (d Doc) chunks(blocks []block) []retrieval.Chunk {
	title := cmp.Or(d.Title, d.Path)
	secs := d.sections(title, blocks)
	if len(secs) == 0 {
		secs = []section{{symbol: title, units: []unit{{lines: []string{title}}}}}
	}
	var out []retrieval.Chunk
	ordinals := map[string]int{}
	line := 1
	for _, s := range secs {
		n := 0
		for _, u := range s.units {
			n += len(u.lines)
		}
		link := d.URL
		if link != "" && s.anchor != "" {
			link += "#" + s.anchor
		}
		for _, win := range s.windows(line) {
			out = append(out, retrieval.Chunk{
				Kind: retrieval.KindDoc, Path: d.Path, Symbol: s.symbol, SymbolKind: "section", Language: "markdown",
				Signature: s.heading, Content: win.content, StartLine: win.start, EndLine: win.end,
				Ordinal: ordinals[s.symbol], URL: link, Author: d.Author, Version: d.Version, ModifiedAt: d.Modified,
			})
			ordinals[s.symbol]++
		}
		line += n + 1
	}
	return out
}

// A section is a heading and the blocks under it, as units of lines.
type section struct {
	symbol  string
	heading string // "## DB failover"; "" for the text before the first heading
	anchor  string
	units   []unit
}

// A unit is what a window may not cut: one line of text, one blank line,
// or a whole code block.
type unit struct {
	lines []string
}

func (d Doc) sections(title string, blocks []block) []section {
	var out []section
	var trail [4]string // heading text per level 1-3
	cur := section{symbol: title}
	add := func(b block) {
		if len(cur.units) > 0 {
			cur.units = append(cur.units, unit{lines: []string{""}})
		}
		if b.code {
			cur.units = append(cur.units, unit{lines: strings.Split(b.text, "\n")})
			return
		}
		for _, l := range strings.Split(b.text, "\n") {
			cur.units = append(cur.units, unit{lines: []string{l}})
		}
	}
	for _, b := range blocks {
		switch {
		case b.level >= 1 && b.level <= 3:
			if len(cur.units) > 0 {
				out = append(out, cur)
			}
			trail[b.level] = b.text
			for l := b.level + 1; l <= 3; l++ {
				trail[l] = ""
			}
			parts := []string{title}
			for l := 1; l <= b.level; l++ {
				if trail[l] != "" {
					parts = append(parts, trail[l])
				}
			}
			anchor := b.anchor
			if anchor == "" && d.Anchor != nil {
				anchor = d.Anchor(b.text)
			}
			cur = section{symbol: strings.Join(parts, pathSep), heading: strings.Repeat("#", b.level) + " " + b.text, anchor: anchor}
			cur.units = []unit{{lines: []string{cur.heading}}}
		case b.level > 3:
			add(block{text: strings.Repeat("#", b.level) + " " + b.text})
		default:
			add(b)
		}
	}
	if len(cur.units) > 0 {
		out = append(out, cur)
	}
	return out
}

// A window is one chunk's worth of a section.
type window struct {
	content    string
	start, end int // page lines, 1-based, inclusive
}

// windows cuts a section that starts at page line first into chunks: the
// whole section when it has at most MaxSectionLines lines, else windows of
// units up to WindowLines lines. Windows after the first repeat the heading
// line at the top of their content, outside their line range; no window
// starts or ends with a blank line.
func (s section) windows(first int) []window {
	var all []string
	for _, u := range s.units {
		all = append(all, u.lines...)
	}
	if len(all) <= MaxSectionLines {
		return []window{{content: strings.Join(all, "\n"), start: first, end: first + len(all) - 1}}
	}
	var out []window
	var cur []string
	start, line := first, first
	emit := func() {
		for len(cur) > 0 && cur[len(cur)-1] == "" {
			cur = cur[:len(cur)-1] // nor ends blank
		}
		if len(cur) == 0 {
			return
		}
		body := cur
		if len(out) > 0 && s.heading != "" {
			body = append([]string{s.heading}, cur...)
		}
		out = append(out, window{content: strings.Join(body, "\n"), start: start, end: start + len(cur) - 1})
		cur = nil
	}
	for _, u := range s.units {
		if len(cur) > 0 && len(cur)+len(u.lines) > WindowLines {
			emit()
		}
		if len(cur) == 0 && len(u.lines) == 1 && u.lines[0] == "" {
			line++ // no window starts with a blank line
			continue
		}
		if len(cur) == 0 {
			start = line
		}
		cur = append(cur, u.lines...)
		line += len(u.lines)
	}
	emit()
	return out
}

// CloudAnchor is the fragment Confluence Cloud gives a heading: its words
// joined with "-" ("DB failover" -> "DB-failover"), URL-escaped.
func CloudAnchor(heading string) string {
	return url.PathEscape(strings.Join(strings.Fields(heading), "-"))
}

// DataCenterAnchor returns the anchor function of Data Center pages, which
// prefix the heading with the page title, spaces removed: page "Deploy
// runbook", heading "DB failover" -> "Deployrunbook-DBfailover".
func DataCenterAnchor(title string) func(heading string) string {
	t := strings.Join(strings.Fields(title), "")
	return func(heading string) string {
		return url.PathEscape(t + "-" + strings.Join(strings.Fields(heading), ""))
	}
}
