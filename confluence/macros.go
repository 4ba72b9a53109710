package confluence

import (
	"strings"

	"golang.org/x/net/html"
)

// panelLabels are the macros rendered as a labelled panel: the label, the
// title, then the body (Atlassian docs, 'Confluence Storage Format': the
// info, note, warning, tip, panel and expand macros keep a rich-text body).
// panel and expand have no label
// of their own, only their title.
var panelLabels = map[string]string{
	"info": "Info", "note": "Note", "warning": "Warning", "tip": "Tip", "panel": "", "expand": "",
}

// dropMacros have no text worth searching: navigation, listings of other
// content, includes (the included page is indexed on its own), anchors.
var dropMacros = map[string]bool{
	"toc": true, "children": true, "include": true, "excerpt-include": true, "anchor": true, "pagetree": true,
	"pagetreesearch": true, "recently-updated": true, "contentbylabel": true, "content-report-table": true,
	"livesearch": true, "attachments": true, "gallery": true, "blog-posts": true,
	"create-from-template": true, "viewfile": true, "view-file": true, "multimedia": true, "widget": true,
	"roadmap": true, "space-details": true, "index": true, "navmap": true, "listlabels": true,
	"popular-labels": true, "related-labels": true, "recently-used-labels": true, "contributors": true,
	"contributors-summary": true, "page-index": true, "favpages": true, "search": true,
}

// macro renders one ac:structured-macro by its name.
func (w *walker) macro(n *html.Node) {
	name := strings.ToLower(attr(n, "ac:name"))
	if label, ok := panelLabels[name]; ok {
		w.panel(label, w.param(n, "title"), child(n, "ac:rich-text-body"))
		return
	}
	switch name {
	case "code", "noformat":
		body := ""
		if b := child(n, "ac:plain-text-body"); b != nil {
			body = rawText(b, w.cdata)
		}
		w.code(codeLanguage(w.param(n, "language")), w.param(n, "title"), body)
	case "jira":
		w.text(w.param(n, "key")) // a JQL table has nothing to show offline
	case "status":
		w.text(w.param(n, "title"))
	case "profile", "profile-picture":
		// Atlassian docs, 'User Profile Macro' and 'Profile Picture Macro':
		// the user parameter holds an ri:user; the page shows that person.
		if u := find(n, func(c *html.Node) bool { return c.Data == "ri:user" }); u != nil {
			w.text(w.userName(u))
		}
	default:
		if dropMacros[name] {
			return
		}
		// Layout-like and unknown macros (section, column, excerpt, details,
		// ui-tabs...): their body is page content, headings included. A
		// plain-text body (html, sql...) is shown as code. Nothing at all:
		// an empty macro, dropped.
		if rb := child(n, "ac:rich-text-body"); rb != nil {
			w.blockish(rb)
		} else if pb := child(n, "ac:plain-text-body"); pb != nil {
			w.code(codeLanguage(w.param(n, "language")), w.param(n, "title"), rawText(pb, w.cdata))
		}
	}
}

// panel renders a labelled panel: "Warning: <title>" on a line, then the
// body's blocks; without a title the label starts the body's first
// paragraph ("Note: Run this as root."). Headings in the body split
// sections as they would outside it: an expand or panel is page content
// that the reader folds or frames, not a quote. The label and title name
// the body, so when the body starts with headings they go after them, into
// the section the body opens, rather than trail the section before. A
// panel with neither title nor body is dropped.
func (w *walker) panel(label, title string, body *html.Node) {
	var blocks []block
	if body != nil {
		s := w.body()
		s.children(body)
		s.flush()
		blocks = s.blocks
	}
	if len(blocks) == 0 && title == "" {
		return
	}
	head := label
	if title != "" {
		if head != "" {
			head += ": "
		}
		head += title
	}
	if w.inline {
		w.space()
		w.text(head)
		for _, b := range blocks {
			w.space()
			w.text(b.text)
		}
		w.space()
		return
	}
	w.flush()
	first := 0 // the first block that is not a heading
	for first < len(blocks) && blocks[first].level > 0 {
		first++
	}
	switch {
	case head == "":
	case title == "" && first < len(blocks) && !blocks[first].code:
		blocks[first].text = head + ": " + blocks[first].text
	default:
		blocks = append(blocks[:first], append([]block{{text: head}}, blocks[first:]...)...)
	}
	w.blocks = append(w.blocks, blocks...)
}

// codeLanguage normalises a code macro's language: lower case, and "" for
// none ("none", "text", "plain").
func codeLanguage(lang string) string {
	lang = strings.ToLower(strings.TrimSpace(lang))
	switch lang {
	case "none", "text", "plain", "plaintext":
		return ""
	}
	return lang
}
