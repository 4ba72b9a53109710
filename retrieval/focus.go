package retrieval

import (
	"fmt"
	"math"
	"strings"

	"github.com/ragbot/ragbot/internal/humanize"
)

// FocusTerms are what a question asks to see in a long snippet: the names
// it writes (found verbatim) and its content terms (found as Terms finds
// them). Make them once per question with NewFocusTerms.
type FocusTerms struct {
	// Exact are the question's identifiers and literals (Analysis), lower
	// case, matched as substrings of a line; for "Type.method" the method
	// name too when it has an identifier shape ("renewLocked"), since code
	// writes "func (t *Type) renewLocked".
	Exact []string
	// Terms are the question's content terms (QueryTerms), each weighted by
	// how rare it is among the chunk's lines (see FocusSnippet).
	Terms []string
	// Lines are the file lines the question names with Paths
	// ("store.go:230", a trace's frames: Analysis); the window of a chunk
	// of one of those files holds the one of them in it (see focusLine).
	Lines []int
	Paths []string
}

// NewFocusTerms analyses question for FocusSnippet.
func NewFocusTerms(question string) FocusTerms {
	return focusTerms(Analyze(question), QueryTerms(question))
}

// focusTerms makes the FocusTerms of a question already analysed (a) with
// its content terms.
func focusTerms(a Analysis, content []string) FocusTerms {
	var ft FocusTerms
	seen := map[string]bool{}
	add := func(s string) {
		s = strings.ToLower(s)
		if len(s) >= 3 && !seen[s] {
			seen[s] = true
			ft.Exact = append(ft.Exact, s)
		}
	}
	for _, id := range a.Identifiers {
		add(id)
		if i := strings.LastIndexByte(id, '.'); i >= 0 && isIdentifier(id[i+1:]) {
			add(id[i+1:])
		}
	}
	for _, l := range a.Literals {
		add(l)
	}
	ft.Terms, ft.Lines, ft.Paths = content, a.Lines, a.Paths
	return ft
}

// Focus weights: a line scores focusExact for each of the question's names
// it contains, plus for each content term it contains that term's rarity
// among the chunk's lines, log(1+N/df)/log(1+N) in (0, 1] (N lines, df of
// them with the term: an inverse document frequency over lines, as in
// BM25's idf, scaled so that the rarest term weighs 1). A name or literal
// is worth three of the rarest terms: the asker wrote it to be found
// verbatim, so the line holding it should beat a few lines that each share
// one word with the question. This is a judgement, not a measured weight:
// ragbot eval scores hits, not the lines shown of them.
const focusExact = 3.0

// focusLine is the score of a line the question names by number: what the
// asker pasted a compiler's or a trace's place for, so it outweighs any
// number of matched words.
const focusLine = 100.0

// focusMaxHeader caps the header kept above a focused window, in lines:
// a doc comment and a signature of up to 3 lines (ingest/code's
// maxSigLines) fit; with a longer doc comment only the signature is kept.
const focusMaxHeader = 6

// FocusSnippet is NewSnippet for a chunk longer than MaxSnippetLines that
// shows the lines around what the question matched instead of the first
// ones: the window of MaxSnippetLines lines, less the header's, with the
// highest sum of line scores (see focusExact), the earliest on a tie,
// centred on its matched lines (see bestWindow).
//
// When that window does not start at the top of the chunk, Text keeps a
// header: the chunk's first lines up to the end of its signature (only the
// signature when those are more than focusMaxHeader lines), a doc section's
// heading line, nothing for a line window without symbol; a split symbol's
// later window keeps the signature it repeats. Each run of lines left out
// between what is shown becomes one line "... lines X-Y not shown ...",
// ShownStart and ShownEnd are the window's file lines, and MoreLines counts
// the lines after it. Body lines are numbered from the chunk's StartLine
// (Chunk.ContentLines). An API operation's description, whose lines are no
// file lines (Chunk.FileLines), says "... N lines not shown ..." and leaves
// ShownStart and ShownEnd 0. A chunk that fits, or whose best window is its top
// (as when nothing matches), gives NewSnippet's result.
func FocusSnippet(c Chunk, t FocusTerms) Snippet {
	s := NewSnippet(c)
	if s.MoreLines == 0 {
		return s
	}
	f := newFocusLines(c)
	width := max(MaxSnippetLines-len(f.header)-len(f.keep), 1)
	scores := f.scores(t)
	for _, n := range t.Lines {
		if i := n - c.StartLine; c.FileLines() && i >= 0 && i < len(scores) && pathMatch(t.Paths, c.Path) {
			scores[i] += focusLine
		}
	}
	start := bestWindow(scores, width)
	if start == 0 {
		return s
	}
	end := min(start+width, len(f.body)) // exclusive
	lines := append([]string(nil), f.header...)
	next := 0 // first body line not yet shown or marked
	show := func(from, to int) {
		switch {
		case from > next && c.FileLines():
			lines = append(lines, elided(c.StartLine+next, c.StartLine+from-1))
		case from > next:
			lines = append(lines, elidedCount(from-next))
		}
		lines = append(lines, f.body[from:to]...)
		next = to
	}
	for _, i := range f.keep {
		if i < start {
			show(i, i+1)
		}
	}
	show(max(start, next), end)
	s.Text = strings.Join(lines, "\n")
	s.MoreLines = len(f.body) - end
	if c.FileLines() {
		s.ShownStart, s.ShownEnd = c.StartLine+start, c.StartLine+end-1
	}
	return s
}

// elidedCount is the line that stands for n lines left out of an API
// operation's description, which are no lines of its file (Chunk.FileLines).
func elidedCount(n int) string {
	return fmt.Sprintf("... %d %s not shown ...", n, humanize.Noun(n, "line"))
}

// elided is the line that stands for file lines from..to left out.
func elided(from, to int) string {
	if from == to {
		return fmt.Sprintf("... line %d not shown ...", from)
	}
	return fmt.Sprintf("... lines %d-%d not shown ...", from, to)
}

// focusLines is a chunk's content split for FocusSnippet.
type focusLines struct {
	body   []string // the lines of StartLine..EndLine: body[i] is file line StartLine+i
	header []string // lines above body in the content (a split symbol's repeated signature), kept
	keep   []int    // body lines kept above a window below them, ascending
}

// newFocusLines splits c.Content (Chunk.ContentLines). When it has a
// header, the repeated signature of a split symbol's later window and the
// "..." after it (ingest/code's emit.go), or a doc window's heading, that
// signature or heading is the header. Otherwise the kept lines run from
// the top to the end of the signature (the first line that starts with the
// signature's first line, and the signature's other lines), or are only
// the signature when those are more than focusMaxHeader lines; for a doc
// chunk without signature, its heading line.
func newFocusLines(c Chunk) focusLines {
	header, body := c.ContentLines()
	f := focusLines{body: body}
	if len(header) > 0 {
		f.header = header
		if n := len(header); n > 1 && strings.TrimSpace(header[n-1]) == windowMarkerLine {
			f.header = header[:n-1]
		}
		return f
	}
	sig := strings.Split(strings.TrimSpace(c.Signature), "\n")
	for i, l := range f.body {
		if sig[0] == "" || !strings.HasPrefix(strings.TrimSpace(l), sig[0]) {
			continue
		}
		from, to := 0, min(i+len(sig), len(f.body))
		if to > focusMaxHeader {
			from = i
		}
		for k := from; k < to; k++ {
			f.keep = append(f.keep, k)
		}
		return f
	}
	if c.Kind == KindDoc && strings.HasPrefix(f.body[0], "#") {
		f.keep = []int{0}
	}
	return f
}

// scores is each body line's score for t (see focusExact).
func (f focusLines) scores(t FocusTerms) []float64 {
	want := setOf(t.Terms)
	lineTerms := make([]map[string]bool, len(f.body))
	df := map[string]int{}
	for i, l := range f.body {
		lineTerms[i] = map[string]bool{}
		for _, term := range Terms(l) {
			if want[term] && !lineTerms[i][term] {
				lineTerms[i][term] = true
				df[term]++
			}
		}
	}
	n := float64(len(f.body))
	out := make([]float64, len(f.body))
	for i, l := range f.body {
		lower := strings.ToLower(l)
		for _, e := range t.Exact {
			if strings.Contains(lower, e) {
				out[i] += focusExact
			}
		}
		for term := range lineTerms[i] {
			out[i] += math.Log1p(n/float64(df[term])) / math.Log1p(n)
		}
	}
	return out
}

// bestWindow returns the start of the width-line window with the highest sum of
// scores, the earliest among equals, then moved so that its matched lines (from
// its first to its last line scoring above 0) sit in its middle: they get
// context on both sides, and stay in view when a surface cuts the snippet's end
// to fit its size limits. The move keeps every matched line of the window in
// it, and adds none (a window holding more would have won), so the sum stays
// the highest. Windows stop at the last line.
func bestWindow(scores []float64, width int) int {
	if len(scores) <= width {
		return 0
	}
	sum := 0.0
	for _, v := range scores[:width] {
		sum += v
	}
	best, bestSum := 0, sum
	for i := 1; i+width <= len(scores); i++ {
		sum += scores[i+width-1] - scores[i-1]
		if sum > bestSum+1e-9 {
			best, bestSum = i, sum
		}
	}
	first, last := -1, -1
	for i := best; i < best+width; i++ {
		if scores[i] > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return best
	}
	return min(max(first-(width-(last-first+1))/2, 0), len(scores)-width)
}
