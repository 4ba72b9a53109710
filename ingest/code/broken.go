package code

import (
	"slices"

	sitter "github.com/smacker/go-tree-sitter"
)

// docComments are the comment node types of all grammars, kept with the
// broken declaration below them.
var docComments = map[string]bool{"comment": true, "line_comment": true, "block_comment": true}

// brokenSpans returns the lines of root's children that hold a syntax error
// (an ERROR or MISSING node, or one below them), each from its first
// comment, merged where they touch, in line order. An error that no child
// holds makes the whole file one span.
func brokenSpans(root *sitter.Node) []span {
	var out []span
	for i := 0; i < int(root.ChildCount()); i++ {
		c := root.Child(i)
		if !c.HasError() {
			continue
		}
		s := span{docStart(c, docComments), endLine(c)}
		if n := len(out); n > 0 && s.from <= out[n-1].to+1 {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return []span{{startLine(root), endLine(root)}}
	}
	return out
}

// outside returns the symbols that share no line with a broken span.
func outside(syms []symbol, broken []span) []symbol {
	return slices.DeleteFunc(syms, func(s symbol) bool {
		for _, b := range broken {
			if s.start <= b.to && b.from <= s.end {
				return true
			}
		}
		return false
	})
}
