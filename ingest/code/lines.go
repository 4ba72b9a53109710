package code

import (
	"strings"
)

// lineSet is a file cut at LF, with CR line ends stripped. Line n (1-based) is
// lines[n-1]; the bytes are kept as they are and made valid UTF-8 only when a
// range is rendered, so invalid bytes never shift line numbers.
type lineSet []string

// splitLines cuts src at LF. A final LF does not start another line.
func splitLines(src []byte) lineSet {
	if len(src) == 0 {
		return nil
	}
	ls := strings.Split(strings.TrimSuffix(string(src), "\n"), "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// text returns lines from..to (1-based, inclusive) joined by LF, as valid
// UTF-8 (invalid bytes become U+FFFD).
func (ls lineSet) text(from, to int) string {
	return strings.ToValidUTF8(strings.Join(ls[from-1:to], "\n"), "\uFFFD")
}

// blank reports whether line n holds only white space.
func (ls lineSet) blank(n int) bool {
	return strings.TrimSpace(ls[n-1]) == ""
}

// trim narrows from..to to its first and last non-blank lines; ok is false
// when every line in the range is blank.
func (ls lineSet) trim(from, to int) (f, t int, ok bool) {
	for from <= to && ls.blank(from) {
		from++
	}
	for to >= from && ls.blank(to) {
		to--
	}
	return from, to, from <= to
}

// span is a range of lines, 1-based and inclusive.
type span struct{ from, to int }

// windows cuts from..to into windows of size lines that share overlap lines
// with their predecessor. The last window ends at to; windows of only blank
// lines are left out.
func (ls lineSet) windows(from, to, size, overlap int) []span {
	step := max(size-overlap, 1)
	var out []span
	for s := from; s <= to; s += step {
		e := min(s+size-1, to)
		if f, t, ok := ls.trim(s, e); ok {
			out = append(out, span{f, t})
		}
		if e == to {
			break
		}
	}
	return out
}
