package confluence

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"

	"github.com/ragbot/ragbot/ingest"
)

// ExportSource is a folder of Confluence HTML exports (Space tools > Export
// > HTML, or a page's Export to HTML) as an ingest.PageSource. Every .html
// or .htm file with a `main-content` element is a page; others (the export's
// index of attachments, stray files) are not. A page's Path is its file path
// relative to Dir, with "/" separators, and its version the first 16 hex
// digits of the file's sha256, so an edited export is re-split and an
// unchanged one is not even parsed. Sections have no URL: an export has no
// web address.
type ExportSource struct {
	Dir     string   // the export's root folder
	Exclude []string // relative path prefixes to leave out
}

var _ ingest.PageSource = (*ExportSource)(nil)

// ListPages reads every export file under Dir to hash it.
func (s *ExportSource) ListPages(ctx context.Context) ([]ingest.PageRef, error) {
	var refs []ingest.PageRef
	err := filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		rel, _ := filepath.Rel(s.Dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || excluded(rel, s.Exclude)) {
				return filepath.SkipDir
			}
			return nil
		}
		ext := strings.ToLower(path.Ext(rel))
		if (ext != ".html" && ext != ".htm") || !d.Type().IsRegular() || excluded(rel, s.Exclude) {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if !bytes.Contains(data, []byte("main-content")) {
			return nil
		}
		refs = append(refs, ingest.PageRef{ID: rel, Title: rel, Path: rel, Version: fileVersion(data)})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("confluence export %s: %w", s.Dir, err)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Path < refs[j].Path })
	return refs, nil
}

// FetchPages reads and splits each file; a file gone since the listing is
// left out.
func (s *ExportSource) FetchPages(ctx context.Context, refs []ingest.PageRef, fn func(ingest.Page) error) error {
	for _, r := range refs {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := os.ReadFile(filepath.Join(s.Dir, filepath.FromSlash(r.Path)))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("confluence export %s: %w", r.Path, err)
		}
		p, ok := parseExport(data)
		if !ok {
			continue
		}
		doc := Doc{Title: p.title, Path: r.Path, Author: p.author, Version: fileVersion(data), Modified: p.modified}
		doc.Title = cmp.Or(doc.Title, strings.TrimSuffix(path.Base(r.Path), path.Ext(r.Path)))
		ref := ingest.PageRef{ID: r.ID, Title: doc.Title, Path: r.Path, Version: doc.Version}
		if err := fn(ingest.Page{PageRef: ref, Sections: doc.chunks(p.blocks)}); err != nil {
			return err
		}
	}
	return nil
}

func fileVersion(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// excluded reports whether rel is under one of the prefixes.
func excluded(rel string, prefixes []string) bool {
	for _, p := range prefixes {
		p = strings.TrimSuffix(p, "/")
		if p != "" && (rel == p || strings.HasPrefix(rel, p+"/")) {
			return true
		}
	}
	return false
}

// exportPage is one parsed export file.
type exportPage struct {
	title    string
	author   string
	modified time.Time
	blocks   []block
}

// modifiedRe finds the date in the export's "Created by A, last modified by
// B on May 01, 2024" line.
var modifiedRe = regexp.MustCompile(`on ([A-Z][a-z]+ [0-9]{1,2}, [0-9]{4})`)

// parseExport reads an export file: the title without its "Space name : "
// prefix, the last editor and date from the page metadata, and the blocks of
// #main-content. ok is false when the file has no main content.
func parseExport(data []byte) (p exportPage, ok bool) {
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(data))
	if err != nil {
		return p, false
	}
	main := doc.Find("#main-content").First()
	if main.Length() == 0 {
		return p, false
	}
	title := cmp.Or(strings.Join(strings.Fields(doc.Find("#title-text").First().Text()), " "),
		strings.Join(strings.Fields(doc.Find("title").First().Text()), " "))
	if _, t, found := strings.Cut(title, " : "); found {
		title = t
	}
	p.title = title
	meta := doc.Find(".page-metadata").First()
	p.author = cmp.Or(strings.TrimSpace(meta.Find(".editor").First().Text()), strings.TrimSpace(meta.Find(".author").First().Text()))
	if m := modifiedRe.FindStringSubmatch(strings.Join(strings.Fields(meta.Text()), " ")); m != nil {
		for _, layout := range []string{"Jan 2, 2006", "January 2, 2006"} {
			if t, err := time.Parse(layout, m[1]); err == nil {
				p.modified = t
				break
			}
		}
	}
	w := &walker{export: true}
	w.children(main.Nodes[0])
	w.flush()
	p.blocks = w.blocks
	return p, true
}

// exportElement renders the rendered forms of macros in an export, found by
// class; it reports whether it handled n.
func (w *walker) exportElement(n *html.Node) bool {
	switch {
	case hasClass(n, "toc-macro"), hasClass(n, "plugin_pagetree"), hasClass(n, "confluence-anchor-link"),
		hasClass(n, "aui-icon"), hasClass(n, "expand-icon"):
		return true
	case n.Data == "div" && hasClass(n, "code") && hasClass(n, "panel"):
		pre := find(n, func(c *html.Node) bool { return c.Data == "pre" })
		if pre == nil {
			return false
		}
		w.code(w.exportLanguage(pre), w.inlineText(findClass(n, "codeHeader")), rawText(pre, nil))
		return true
	case n.Data == "div" && hasClass(n, "confluence-information-macro"):
		label := "Info"
		for _, l := range []struct{ class, label string }{
			{"confluence-information-macro-note", "Note"}, {"confluence-information-macro-warning", "Warning"},
			{"confluence-information-macro-tip", "Tip"},
		} {
			if hasClass(n, l.class) {
				label = l.label
			}
		}
		w.panel(label, w.inlineText(findClass(n, "title")), findClass(n, "confluence-information-macro-body"))
		return true
	case n.Data == "div" && hasClass(n, "panel"):
		w.panel("", w.inlineText(findClass(n, "panelHeader")), findClass(n, "panelContent"))
		return true
	case n.Data == "div" && hasClass(n, "expand-container"):
		w.panel("", w.inlineText(findClass(n, "expand-control-text")), findClass(n, "expand-content"))
		return true
	}
	return false
}

// brushRe reads the language of an export's code block from
// data-syntaxhighlighter-params="brush: bash; gutter: false; ...".
var brushRe = regexp.MustCompile(`brush:\s*([A-Za-z0-9_+#-]+)`)

// exportLanguage is the language of a rendered <pre> ("" outside exports
// and when none is given).
func (w *walker) exportLanguage(pre *html.Node) string {
	if m := brushRe.FindStringSubmatch(attr(pre, "data-syntaxhighlighter-params")); m != nil {
		return codeLanguage(m[1])
	}
	return ""
}

// findClass returns the first element below n with class c, or nil.
func findClass(n *html.Node, c string) *html.Node {
	return find(n, func(e *html.Node) bool { return hasClass(e, c) })
}

// Settings fingerprints what shapes an ExportSource's chunks besides the
// files: the splitter version (see confluence.Settings).
func (s *ExportSource) Settings() string { return "confluence export splitter v" + SplitterVersion }
