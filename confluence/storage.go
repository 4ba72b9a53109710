package confluence

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"golang.org/x/net/html"
)

// Storage format is XHTML with ac:/ri: elements, but goquery parses HTML5,
// which breaks it in three ways (WHATWG HTML Standard, 'Parsing HTML
// documents': the cdata-in-html-content and
// non-void-html-element-start-tag-with-trailing-solidus parse errors, and a
// block start tag closing an open p; TestParseStoragePitfalls has a case for
// each): a CDATA section becomes a comment that ends at the first ">", so code
// bodies lose text; a self-closed non-void element (<ri:page .../>,
// <ac:structured-macro ac:name="toc"/>, <time .../>) is left open and swallows
// what follows; and <p> is closed by any block start tag, which tears a macro
// inside a paragraph apart. prepareStorage rewrites the text so that none of
// this can happen, and keeps every CDATA body aside, byte for byte.

var (
	cdataRe = regexp.MustCompile(`(?s)<!\[CDATA\[(.*?)\]\]>`)
	// selfClosedRe matches a self-closed start tag: its name and attributes
	// (quoted values may hold ">" or "/").
	selfClosedRe = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9:._-]*)((?:\s+[^\s=/>"']+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*/>`)
	// paraRe matches <p>, <p attr...> and </p>.
	paraRe = regexp.MustCompile(`<(/?)p((?:\s+[^\s=/>"']+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*>`)
	// placeholderRe finds the stand-ins of CDATA bodies in parsed text.
	placeholderRe = regexp.MustCompile("\ue000([0-9]+)\ue001")
)

// voidElements never have content in HTML, so "<br/>" is already right.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true, "img": true, "input": true,
	"link": true, "meta": true, "param": true, "source": true, "track": true, "wbr": true,
}

// paraTag stands in for <p> in prepared storage: an unknown element, which
// no start tag closes.
const paraTag = "rb-p"

// prepareStorage returns storage ready for the HTML parser, and the CDATA
// bodies it took out. Each CDATA section is replaced by a placeholder
// ("\ue000" index "\ue001", private-use characters that storage does not
// contain) that the walker swaps back, so code keeps its exact bytes,
// carriage returns and all. Self-closed non-void elements get an end tag,
// and <p> becomes <rb-p>.
func prepareStorage(storage string) (string, []string) {
	var bodies []string
	s := cdataRe.ReplaceAllStringFunc(storage, func(m string) string {
		bodies = append(bodies, m[len("<![CDATA["):len(m)-len("]]>")])
		return "\ue000" + strconv.Itoa(len(bodies)-1) + "\ue001"
	})
	s = selfClosedRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := selfClosedRe.FindStringSubmatch(m)
		if voidElements[strings.ToLower(sub[1])] {
			return m
		}
		return "<" + sub[1] + sub[2] + "></" + sub[1] + ">"
	})
	s = paraRe.ReplaceAllString(s, "<${1}"+paraTag+"${2}>")
	return s, bodies
}

// parseStorage parses a page body in storage format into blocks, users
// naming the users it mentions (nil shows their ids). It never fails: text
// that is not well formed is parsed the way a browser would.
func parseStorage(storage string, users func(User) string) []block {
	prepared, bodies := prepareStorage(storage)
	doc, err := goquery.NewDocumentFromReader(strings.NewReader("<html><body>" + prepared + "</body></html>"))
	if err != nil { // only a failing reader errs; a strings.Reader does not
		return nil
	}
	w := &walker{cdata: bodies, users: users}
	for _, n := range doc.Find("body").Nodes {
		w.children(n)
	}
	w.flush()
	return w.blocks
}

// expandCDATA puts the CDATA bodies back in place of their placeholders.
func expandCDATA(s string, bodies []string) string {
	if !strings.ContainsRune(s, '\ue000') {
		return s
	}
	return placeholderRe.ReplaceAllStringFunc(s, func(m string) string {
		i, err := strconv.Atoi(m[len("\ue000") : len(m)-len("\ue001")])
		if err != nil || i >= len(bodies) {
			return m
		}
		return bodies[i]
	})
}

// attr returns the attribute key of n ("" when absent). Keys keep their
// prefix: "ac:name", "ri:content-title".
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// child returns the first element child of n named tag.
func child(n *html.Node, tag string) *html.Node {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == tag {
			return c
		}
	}
	return nil
}

// param returns the value of a macro's <ac:parameter ac:name=name>.
func (w *walker) param(macro *html.Node, name string) string {
	for c := macro.FirstChild; c != nil; c = c.NextSibling {
		if c.Type == html.ElementNode && c.Data == "ac:parameter" && attr(c, "ac:name") == name {
			return strings.TrimSpace(rawText(c, w.cdata))
		}
	}
	return ""
}

// rawText concatenates the text under n as it is, CDATA bodies expanded.
func rawText(n *html.Node, bodies []string) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return expandCDATA(b.String(), bodies)
}
