package code

import (
	"slices"
	"sort"

	sitter "github.com/smacker/go-tree-sitter"
)

// docComments are the comment node types of all grammars, kept with the
// broken declaration below them.
var docComments = map[string]bool{"comment": true, "line_comment": true, "block_comment": true}

// dropBroken splits syms, found in a tree with syntax errors, into the
// symbols to keep and the line spans to cut into windows instead, merged
// where they touch, in line order. Each error (an outermost ERROR or MISSING
// node) breaks the innermost symbol around it: a function or method, or a
// class when it lies outside all members (in its header, say). A class whose
// broken parts are all members keeps its symbol but only up to its first
// member. An error outside all symbols breaks the top-level nodes it
// touches, from their comments on.
//
// Error recovery can also move code: a method with an unbalanced brace can
// close its class early and leave the next method outside it. So every line
// from the first error to the last that no kept symbol holds is cut into
// windows too.
func dropBroken(root *sitter.Node, syms []symbol) (kept []symbol, broken []span) {
	errs := errorSpans(root)
	var spans []span
	for _, e := range errs {
		if i := innermost(syms, e); i >= 0 {
			spans = append(spans, span{syms[i].start, syms[i].end})
			continue
		}
		spans = append(spans, topLevelSpans(root, e)...)
	}
	for _, s := range syms {
		if keep, header := survives(s, spans); keep {
			s.header = s.header || header
			kept = append(kept, s)
		}
	}
	spans = append(spans, uncovered(errs, kept, spans)...)
	return kept, merge(spans)
}

// uncovered returns the runs of lines between the first and the last error
// that neither a kept symbol (only its header, for a class marked header)
// nor a broken span holds.
func uncovered(errs []span, kept []symbol, broken []span) []span {
	zone := errs[0]
	for _, e := range errs {
		zone.from, zone.to = min(zone.from, e.from), max(zone.to, e.to)
	}
	covered := slices.Clone(broken)
	for _, s := range kept {
		if s.header && s.member > s.start {
			covered = append(covered, span{s.start, s.member - 1})
		} else {
			covered = append(covered, span{s.start, s.end})
		}
	}
	return gaps(zone.from, zone.to, covered)
}

// gaps returns the runs of lines in lo..hi that no span of covered holds.
func gaps(lo, hi int, covered []span) []span {
	held := make([]bool, hi-lo+1)
	for _, c := range covered {
		for l := max(c.from, lo); l <= min(c.to, hi); l++ {
			held[l-lo] = true
		}
	}
	var out []span
	for l := lo; l <= hi; l++ {
		if held[l-lo] {
			continue
		}
		if n := len(out); n > 0 && out[n-1].to == l-1 {
			out[n-1].to = l
		} else {
			out = append(out, span{l, l})
		}
	}
	return out
}

// survives reports whether s shares no line with a broken span, or is a
// class whose broken spans all lie inside it; header is true in that case.
func survives(s symbol, broken []span) (keep, header bool) {
	for _, b := range broken {
		switch {
		case s.end < b.from || b.to < s.start:
		case s.container && s.start <= b.from && b.to <= s.end && b != (span{s.start, s.end}):
			header = true
		default:
			return false, false
		}
	}
	return true, header
}

// errorSpans returns the lines of the outermost ERROR and MISSING nodes
// under n, or n's own lines when the tree has an error but none is found.
func errorSpans(n *sitter.Node) []span {
	var out []span
	var walk func(*sitter.Node)
	walk = func(n *sitter.Node) {
		switch {
		case !n.HasError():
		case n.IsError() || n.IsMissing():
			out = append(out, span{startLine(n), endLine(n)})
		default:
			for i := 0; i < int(n.ChildCount()); i++ {
				walk(n.Child(i))
			}
		}
	}
	walk(n)
	if len(out) == 0 && n.HasError() {
		out = append(out, span{startLine(n), endLine(n)})
	}
	return out
}

// innermost returns the index of the shortest symbol whose lines hold e, or
// -1 when none does.
func innermost(syms []symbol, e span) int {
	best := -1
	for i, s := range syms {
		if s.start <= e.from && e.to <= s.end && (best < 0 || s.end-s.start < syms[best].end-syms[best].start) {
			best = i
		}
	}
	return best
}

// topLevelSpans returns the lines of root's children that share a line with
// e, each from its first comment, or e when there are none.
func topLevelSpans(root *sitter.Node, e span) []span {
	var out []span
	for i := 0; i < int(root.ChildCount()); i++ {
		c := root.Child(i)
		if from, to := startLine(c), endLine(c); from <= e.to && e.from <= to {
			out = append(out, span{docStart(c, docComments), to})
		}
	}
	if len(out) == 0 {
		out = append(out, e)
	}
	return out
}

// merge sorts spans and joins those that overlap or touch.
func merge(spans []span) []span {
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var out []span
	for _, s := range spans {
		if n := len(out); n > 0 && s.from <= out[n-1].to+1 {
			out[n-1].to = max(out[n-1].to, s.to)
			continue
		}
		out = append(out, s)
	}
	return out
}
