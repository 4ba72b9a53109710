package confluence

import (
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// A cell is one th or td, rendered as one line.
type cell struct {
	text   string
	header bool
}

// table renders a table as one readable line per row. With a header row
// (every cell a th) each later row reads "Header: value; Header: value",
// empty cells left out; a row led by a th reads "Key: value | value";
// anything else joins its cells with " | ".
func (w *walker) table(n *html.Node) {
	rows := w.rows(n)
	var lines []string
	start := 0
	var heads []string
	if len(rows) > 1 && allHeaders(rows[0]) {
		for _, c := range rows[0] {
			heads = append(heads, c.text)
		}
		start = 1
	}
	for _, row := range rows[start:] {
		if l := rowLine(row, heads); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 && len(heads) > 0 {
		lines = append(lines, strings.Join(heads, " | ")) // a header with no rows is still text
	}
	w.lines(lines)
}

// lines renders the lines of a table or task list: one block of them, or
// inside inline content (a table cell, a list item's text) joined by "; ".
func (w *walker) lines(lines []string) {
	if len(lines) == 0 {
		return
	}
	if w.inline {
		w.space()
		w.text(strings.Join(lines, "; "))
		w.space()
		return
	}
	w.flush()
	w.add(block{text: strings.Join(lines, "\n")})
}

func rowLine(row []cell, heads []string) string {
	var parts []string
	if heads != nil {
		for i, c := range row {
			switch {
			case c.text == "":
			case i < len(heads) && heads[i] != "":
				parts = append(parts, heads[i]+": "+c.text)
			default:
				parts = append(parts, c.text)
			}
		}
		return strings.Join(parts, "; ")
	}
	for _, c := range row {
		if c.text != "" {
			parts = append(parts, c.text)
		}
	}
	if len(row) > 1 && row[0].header && !row[1].header && row[0].text != "" && len(parts) > 1 {
		return parts[0] + ": " + strings.Join(parts[1:], " | ")
	}
	return strings.Join(parts, " | ")
}

func allHeaders(row []cell) bool {
	return len(row) > 0 && !slices.ContainsFunc(row, func(c cell) bool { return !c.header })
}

// rows collects the rows of table n, leaving nested tables to their cells.
func (w *walker) rows(n *html.Node) [][]cell {
	var out [][]cell
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type != html.ElementNode {
				continue
			}
			switch c.Data {
			case "tr":
				var row []cell
				for td := c.FirstChild; td != nil; td = td.NextSibling {
					if td.Type == html.ElementNode && (td.Data == "td" || td.Data == "th") {
						row = append(row, cell{text: w.inlineText(td), header: td.Data == "th"})
					}
				}
				if len(row) > 0 {
					out = append(out, row)
				}
			case "table":
			default:
				rec(c)
			}
		}
	}
	rec(n)
	return out
}
