package confluence

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// A block is one unit of a page's text, in document order: a heading that
// may start a section, or rendered text.
type block struct {
	level  int    // 1-6 for a heading, 0 otherwise
	text   string // a heading's plain text, or the rendered block, lines joined with "\n"
	anchor string // a heading's id attribute (exports); "" when it has none
	code   bool   // a fenced code block: kept whole, never cut into windows
}

// walker renders parsed storage format (or an export's HTML) into blocks.
// Inline content gathers in para, with runs of white space collapsed, until
// a block element flushes it.
type walker struct {
	cdata  []string          // CDATA bodies taken out by prepareStorage
	users  func(User) string // display names (Doc.UserName); nil shows ids
	export bool              // rendered HTML of an export: macros are recognised by class
	nested int               // > 0 inside list items, table cells and quotes: headings there do not split
	inline bool              // render everything into running text (table cells, headings, link bodies)
	blocks []block
	para   strings.Builder
}

// sub returns a walker for the content of a list item, cell or quote:
// headings in it do not split.
func (w *walker) sub(inline bool) *walker {
	return &walker{cdata: w.cdata, users: w.users, export: w.export, nested: w.nested + 1, inline: inline || w.inline}
}

// body returns a walker for a macro body that is page content (expand,
// panel, info...): its headings split where the macro's own would.
func (w *walker) body() *walker {
	return &walker{cdata: w.cdata, users: w.users, export: w.export, nested: w.nested, inline: w.inline}
}

func (w *walker) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *walker) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
	case html.ElementNode:
		w.element(n)
	case html.DocumentNode:
		w.children(n)
	}
}

// text appends inline text, collapsing runs of white space (U+00A0 too) to
// one space.
func (w *walker) text(s string) {
	s = expandCDATA(s, w.cdata)
	fields := strings.Fields(s)
	if len(fields) == 0 {
		if s != "" {
			w.space()
		}
		return
	}
	if r, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(r) {
		w.space()
	}
	w.para.WriteString(strings.Join(fields, " "))
	if strings.TrimRightFunc(s, unicode.IsSpace) != s {
		w.space()
	}
}

// space appends one space unless the paragraph is empty or ends in one.
func (w *walker) space() {
	s := w.para.String()
	if s != "" && !strings.HasSuffix(s, " ") && !strings.HasSuffix(s, "\n") {
		w.para.WriteByte(' ')
	}
}

// flush ends the open paragraph: its lines trimmed, blank ones dropped.
func (w *walker) flush() {
	s := w.para.String()
	w.para.Reset()
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) > 0 {
		w.blocks = append(w.blocks, block{text: strings.Join(lines, "\n")})
	}
}

func (w *walker) add(b block) { w.blocks = append(w.blocks, b) }

// inlineText renders the content of n as one line.
func (w *walker) inlineText(n *html.Node) string {
	if n == nil {
		return ""
	}
	s := w.sub(true)
	s.children(n)
	s.flush()
	var parts []string
	for _, b := range s.blocks {
		parts = append(parts, b.text)
	}
	return strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
}

// element renders one element by its name.
func (w *walker) element(n *html.Node) {
	if w.export && w.exportElement(n) {
		return
	}
	switch tag := n.Data; tag {
	case "h1", "h2", "h3", "h4", "h5", "h6":
		w.heading(n, int(tag[1]-'0'))
	case paraTag, "p", "div", "section", "article", "header", "footer", "main", "aside", "nav", "center", "address",
		"figure", "figcaption", "dl", "dt", "dd", "details", "summary",
		"ac:layout", "ac:layout-section", "ac:layout-cell", "ac:rich-text-body":
		w.blockish(n)
	case "br":
		if w.inline {
			w.space()
		} else {
			w.para.WriteByte('\n')
		}
	case "ul", "ol":
		w.list(n)
	case "table":
		w.table(n)
	case "pre":
		w.code(w.exportLanguage(n), "", rawText(n, w.cdata))
	case "blockquote":
		w.quote(n)
	case "hr":
		w.flush()
	case "ac:structured-macro", "ac:macro":
		w.macro(n)
	case "ac:task-list":
		w.tasks(n)
	case "ac:adf-extension":
		w.adf(n)
	case "ac:link":
		w.text(w.linkText(n))
	case "ac:image":
		w.text(w.imageText(n))
	case "img":
		if !hasClass(n, "emoticon") {
			w.text(attr(n, "alt"))
		}
	case "time":
		if d := attr(n, "datetime"); d != "" {
			w.text(d)
		} else {
			w.children(n)
		}
	case "code", "tt", "kbd", "samp":
		if t := w.inlineText(n); t != "" {
			w.text("`" + t + "`")
		}
	case "ac:emoticon", "ac:placeholder", "ac:parameter", "ac:task-id", "script", "style", "head", "title", "noscript", "template":
		// noise: emoticons, editor placeholders, macro parameters
	default:
		w.children(n)
	}
}

// heading renders h1-h6: a block that may split a section at the top level
// (layouts and macro bodies included), plain text inside lists, tables and
// quotes.
func (w *walker) heading(n *html.Node, level int) {
	text := w.inlineText(n)
	if text == "" {
		return
	}
	if w.inline {
		w.space()
		w.text(text)
		w.space()
		return
	}
	w.flush()
	if w.nested > 0 {
		w.add(block{text: text})
		return
	}
	w.add(block{level: level, text: text, anchor: attr(n, "id")})
}

// blockish renders a paragraph-like container: its content on lines of
// its own.
func (w *walker) blockish(n *html.Node) {
	if w.inline {
		w.space()
		w.children(n)
		w.space()
		return
	}
	w.flush()
	w.children(n)
	w.flush()
}

// code adds a fenced code block: "```lang", the body byte for byte, "```",
// with "title:" on a line before it when the macro has a title, so that the
// title stays in the code's unit and window. An empty body is dropped. In a
// table cell or a task the body is inlined, after "title: ".
func (w *walker) code(lang, title, body string) {
	if strings.TrimSpace(body) == "" {
		return
	}
	if w.inline {
		w.space()
		if title != "" {
			w.text(title + ": ")
		}
		w.text(body)
		w.space()
		return
	}
	w.flush()
	var b strings.Builder
	if title != "" {
		b.WriteString(title + ":\n")
	}
	b.WriteString("```" + lang + "\n" + body)
	if !strings.HasSuffix(body, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("```")
	w.add(block{text: b.String(), code: true})
}

// quote renders a blockquote with "> " before each line (code blocks stay
// as they are, to keep their bytes).
func (w *walker) quote(n *html.Node) {
	if w.inline {
		w.children(n)
		return
	}
	w.flush()
	s := w.sub(false)
	s.children(n)
	s.flush()
	for _, b := range s.blocks {
		if !b.code {
			b.text = "> " + strings.ReplaceAll(b.text, "\n", "\n> ")
		}
		w.add(b)
	}
}

// linkText is what a link shows and where it leads: its body, then the
// title of the page or blog post or the file name of the attachment it
// points at in parentheses ("the request form (Access requests)"), left out
// when the body already says it. Without a body: that target, the space
// key, the user's display name (see userName) or the URL. Other link
// parameters (space key, posting day, anchor) stay out of the text
// (Atlassian docs, 'Confluence Storage Format', Links: ac:link holds a
// ri:page, ri:blog-post, ri:attachment, ri:space, ri:user or ri:url
// resource and an optional link body).
func (w *walker) linkText(n *html.Node) string {
	body := ""
	if b := child(n, "ac:plain-text-link-body"); b != nil {
		body = strings.Join(strings.Fields(rawText(b, w.cdata)), " ")
	}
	if body == "" {
		body = w.inlineText(child(n, "ac:link-body"))
	}
	target := ""
	for c := n.FirstChild; c != nil && target == ""; c = c.NextSibling {
		if c.Type != html.ElementNode {
			continue
		}
		switch c.Data {
		case "ri:page", "ri:blog-post":
			target = strings.Join(strings.Fields(attr(c, "ri:content-title")), " ")
		case "ri:attachment":
			target = attr(c, "ri:filename")
		case "ri:space":
			if body == "" {
				target = attr(c, "ri:space-key")
			}
		case "ri:user":
			if body == "" {
				target = w.userName(c)
			}
		case "ri:url":
			if body == "" {
				target = attr(c, "ri:value")
			}
		}
	}
	switch {
	case body == "" && target == "":
		return attr(n, "ac:anchor")
	case body == "":
		return target
	case target == "" || strings.Contains(strings.ToLower(body), strings.ToLower(target)):
		return body
	}
	return body + " (" + target + ")"
}

// imageText is what an ac:image says: its alt text, else its title
// (tooltip), then its caption (Cloud's ac:caption), "network diagram:
// Traffic enters through the edge proxies". The size and alignment
// attributes stay out.
func (w *walker) imageText(n *html.Node) string {
	label := cmp.Or(strings.TrimSpace(attr(n, "ac:alt")), strings.TrimSpace(attr(n, "ac:title")))
	caption := w.inlineText(child(n, "ac:caption"))
	switch {
	case caption == "" || strings.EqualFold(caption, label):
		return label
	case label == "":
		return caption
	}
	return label + ": " + caption
}

// adf renders a Cloud ADF extension: its fallback when there is one, else
// its content without the attributes.
func (w *walker) adf(n *html.Node) {
	if fb := find(n, func(c *html.Node) bool { return c.Data == "ac:adf-fallback" }); fb != nil {
		w.blockish(fb)
		return
	}
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			switch {
			case c.Type == html.ElementNode && c.Data == "ac:adf-attribute":
			case c.Type == html.ElementNode && strings.HasPrefix(c.Data, "ac:adf-"):
				rec(c)
			default:
				w.node(c)
			}
		}
	}
	w.flush()
	rec(n)
	w.flush()
}

// find returns the first element below n (depth first) that ok accepts.
func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	for d := range n.Descendants() {
		if d.Type == html.ElementNode && ok(d) {
			return d
		}
	}
	return nil
}

// hasClass reports whether n's class attribute lists class.
func hasClass(n *html.Node, class string) bool {
	return slices.Contains(strings.Fields(attr(n, "class")), class)
}
