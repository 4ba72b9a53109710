package confluence

import (
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// list renders ul/ol as "- item" or "1. item" lines, nested lists indented
// by two spaces, a code block inside an item as its own block.
// Inside inline content (a table cell) it runs on like a paragraph.
func (w *walker) list(n *html.Node) {
	if w.inline {
		w.blockish(n)
		return
	}
	w.flush()
	w.blocks = append(w.blocks, mergeText(w.listBlocks(n, 0))...)
}

func (w *walker) listBlocks(n *html.Node, depth int) []block {
	var out []block
	num := 0
	if s, err := strconv.Atoi(attr(n, "start")); err == nil {
		num = s - 1
	}
	indent := strings.Repeat("  ", depth)
	tasks := w.export && hasClass(n, "inline-task-list")
	for li := n.FirstChild; li != nil; li = li.NextSibling {
		if li.Type != html.ElementNode || li.Data != "li" {
			continue
		}
		num++
		marker := "- "
		switch {
		case tasks && hasClass(li, "checked"):
			marker = "[x] "
		case tasks:
			marker = "[ ] "
		case n.Data == "ol":
			marker = strconv.Itoa(num) + ". "
		}
		s := w.sub(false)
		var nested []*html.Node
		for c := li.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && (c.Data == "ul" || c.Data == "ol") {
				nested = append(nested, c)
				continue
			}
			s.node(c)
		}
		s.flush()
		first := true
		for _, b := range s.blocks {
			if b.code {
				out = append(out, b)
				continue
			}
			lines := strings.Split(b.text, "\n")
			for i := range lines {
				if first {
					lines[i] = indent + marker + lines[i]
					first = false
				} else {
					lines[i] = indent + strings.Repeat(" ", len(marker)) + lines[i]
				}
			}
			out = append(out, block{text: strings.Join(lines, "\n")})
		}
		for _, c := range nested {
			out = append(out, w.listBlocks(c, depth+1)...)
		}
	}
	return out
}

// mergeText joins runs of adjacent text blocks into one block.
func mergeText(bs []block) []block {
	var out []block
	for _, b := range bs {
		if n := len(out); n > 0 && !b.code && !out[n-1].code && b.level == 0 && out[n-1].level == 0 {
			out[n-1].text += "\n" + b.text
			continue
		}
		out = append(out, b)
	}
	return out
}

// tasks renders an ac:task-list as "[ ] task" and "[x] done" lines.
func (w *walker) tasks(n *html.Node) {
	var lines []string
	for t := n.FirstChild; t != nil; t = t.NextSibling {
		if t.Type != html.ElementNode || t.Data != "ac:task" {
			continue
		}
		body := w.inlineText(child(t, "ac:task-body"))
		if body == "" {
			continue
		}
		mark := "[ ] "
		if st := child(t, "ac:task-status"); st != nil && strings.TrimSpace(rawText(st, nil)) == "complete" {
			mark = "[x] "
		}
		lines = append(lines, mark+body)
	}
	w.lines(lines)
}
