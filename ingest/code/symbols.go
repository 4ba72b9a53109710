package code

import (
	"strings"

	sitter "github.com/smacker/go-tree-sitter"
)

// A symbol is one declaration found in a syntax tree, before it is cut into
// chunks.
type symbol struct {
	name      string // "Store.Get", "Foo", ...
	kind      string // function, method, class, interface, type, var, const
	start     int    // first line, 1-based: doc comment or first decorator, else the declaration
	end       int    // last line, inclusive
	sig       string // declaration line(s) without body, at most maxSigLines lines
	member    int    // classes: first line of the first member symbol, 0 if none
	container bool   // classes, whose members are symbols of their own
	header    bool   // classes: keep only the lines before member, however short
}

// withMembers appends s to out and, when s is a container, the member
// symbols that members appends after it, setting s.member to the first
// one's start line.
func withMembers(out []symbol, s symbol, members func([]symbol) []symbol) []symbol {
	out = append(out, s)
	if !s.container {
		return out
	}
	i := len(out) - 1
	if out = members(out); len(out) > i+1 {
		out[i].member = out[i+1].start
	}
	return out
}

// maxSigLines caps a signature that spans many lines (long parameter lists).
const maxSigLines = 3

// startLine returns the 1-based line a node starts on.
func startLine(n *sitter.Node) int { return int(n.StartPoint().Row) + 1 }

// endLine returns the 1-based line a node ends on. A node that ends at column
// 0 of row R (after a final LF) really ends on row R-1.
func endLine(n *sitter.Node) int {
	p := n.EndPoint()
	if p.Column == 0 && p.Row > n.StartPoint().Row {
		return int(p.Row)
	}
	return int(p.Row) + 1
}

// docStart returns the first line of n's doc comments and decorators: the
// run of named siblings before n whose types are in attached, each ending on
// the line before the next (no blank line between). A comment that trails
// code on its own first line is not a doc comment.
func docStart(n *sitter.Node, attached map[string]bool) int {
	start := startLine(n)
	for p := n.PrevNamedSibling(); p != nil && attached[p.Type()]; p = p.PrevNamedSibling() {
		if endLine(p) < start-1 {
			break
		}
		if q := p.PrevNamedSibling(); q != nil && endLine(q) >= startLine(p) && !attached[q.Type()] {
			break // trailing comment of the statement before
		}
		start = startLine(p)
	}
	return start
}

// annotations are the node types that sit before a declaration's keywords
// and are left out of its signature.
var annotations = map[string]bool{
	"decorator": true, "marker_annotation": true, "annotation": true,
	"comment": true, "line_comment": true, "block_comment": true,
}

// sigStart returns the byte where n's signature starts: n's start, after any
// leading decorators, annotations and comments (also inside Java modifiers).
func sigStart(n *sitter.Node) uint32 {
	for i := 0; i < int(n.ChildCount()); i++ {
		c := n.Child(i)
		switch {
		case annotations[c.Type()]:
			continue
		case c.Type() == "modifiers":
			for j := 0; j < int(c.ChildCount()); j++ {
				if m := c.Child(j); !annotations[m.Type()] {
					return m.StartByte()
				}
			}
			continue
		}
		return c.StartByte()
	}
	return n.StartByte()
}

// signature returns src[from:to] as a signature: trailing "{", ":" or ";"
// removed, lines right-trimmed and CR-free, at most maxSigLines lines, valid
// UTF-8.
func signature(src []byte, from, to uint32) string {
	if to < from || int(to) > len(src) {
		to = from
	}
	s := strings.TrimSpace(string(src[from:to]))
	s = strings.TrimSpace(strings.TrimRight(s, "{:;"))
	ls := strings.Split(s, "\n")
	ls = ls[:min(len(ls), maxSigLines)]
	for i, l := range ls {
		ls[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.ToValidUTF8(strings.Join(ls, "\n"), "\uFFFD")
}

// firstLineSig returns the signature of a node without a body: its first
// line, from sigStart on.
func firstLineSig(src []byte, n *sitter.Node) string {
	from := sigStart(n)
	to := n.EndByte()
	if i := strings.IndexByte(string(src[from:to]), '\n'); i >= 0 {
		to = from + uint32(i)
	}
	return signature(src, from, to)
}

// bodySig returns the signature of node n whose body is the field "body": the
// text from sigStart to the body. Without a body it is n's first line.
func bodySig(src []byte, n, decl *sitter.Node) string {
	body := decl.ChildByFieldName("body")
	if body == nil {
		return firstLineSig(src, n)
	}
	return signature(src, sigStart(n), body.StartByte())
}

// fieldText returns the source text of n's child field name, or "".
func fieldText(n *sitter.Node, field string, src []byte) string {
	c := n.ChildByFieldName(field)
	if c == nil {
		return ""
	}
	return c.Content(src)
}

// namedChildren returns n's named children.
func namedChildren(n *sitter.Node) []*sitter.Node {
	out := make([]*sitter.Node, 0, n.NamedChildCount())
	for i := 0; i < int(n.NamedChildCount()); i++ {
		out = append(out, n.NamedChild(i))
	}
	return out
}
