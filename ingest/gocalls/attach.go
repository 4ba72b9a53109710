package gocalls

import (
	"slices"
	"strings"

	"github.com/ragbot/ragbot/retrieval"
)

// Attach sets c.Calls, c.Types and c.Package from the resolution of c's
// file and adds the calls' names to c.Refs (each once), with and without
// the package for a method ("retry.Policy.Do" and "Policy.Do"), so that a
// refs filter on a qualified name as typed finds the chunk. A chunk of a file the
// result does not know (not .go, or a nil Result) is left as it is.
// Calls are those on lines StartLine to EndLine.
func (r *Result) Attach(c *retrieval.Chunk) {
	f, ok := r.File(c.Path)
	if !ok {
		return
	}
	calls, types := f.span(c.StartLine, c.EndLine)
	c.Calls, c.Types, c.Package = calls, types, f.Package
	for _, s := range calls {
		name, _, _ := strings.Cut(s, "@")
		names := []string{name}
		if strings.Count(name, ".") == 2 { // pkg.Type.Method
			_, tm, _ := strings.Cut(name, ".")
			names = append(names, tm)
		}
		for _, n := range names {
			if !slices.Contains(c.Refs, n) {
				c.Refs = append(c.Refs, n)
			}
		}
	}
}

// span is the Chunk.Calls and Chunk.Types of lines start to end of f.
func (f File) span(start, end int) (calls []string, types string) {
	if f.Err != "" {
		return nil, retrieval.TypesUnavailable + f.Err
	}
	for _, c := range f.Calls {
		if c.Line >= start && c.Line <= end {
			calls = append(calls, c.String())
		}
	}
	return calls, retrieval.TypesResolved
}

// A Stored chunk is what Changed compares: a chunk as the store holds it.
type Stored struct {
	Path               string
	StartLine, EndLine int // 1-based, inclusive
	Calls              []string
	Types              string
}

// Changed returns the paths of the stored chunks whose Calls or Types
// differ from what Attach would set now, sorted, each once: the files
// whose resolution changed although their text did not (an edit elsewhere
// changed a receiver's type, a dependency moved).
func (r *Result) Changed(stored []Stored) []string {
	var paths []string
	for _, s := range stored {
		f, ok := r.File(s.Path)
		if !ok {
			continue
		}
		calls, types := f.span(s.StartLine, s.EndLine)
		if types != s.Types || !slices.Equal(calls, s.Calls) {
			paths = append(paths, s.Path)
		}
	}
	slices.Sort(paths)
	return slices.Compact(paths)
}
