// Package scipcalls resolves which method each call in the Python and
// JavaScript/TypeScript files of a git commit refers to, with Sourcegraph's
// SCIP indexers (scip-python, scip-typescript), so that "who calls
// Session.send" lists the calls SCIP resolved to that method and, by name,
// only the calls it could not type, not every ".send(" (docs/callers.md).
//
// Flow: the files of one commit are extracted to a temporary folder (git
// archive); scip-python and scip-typescript, installed by
// scripts/install-scip.sh under Dir, index it, each writing a SCIP index
// (github.com/sourcegraph/scip, scip.proto); the index's reference
// occurrences of methods become each file's resolved Calls, and every
// ".name(" of the file's text on a line where SCIP gave no method of that
// name a symbol becomes an unresolved Call ("?.name"): a receiver it could
// not type.
package scipcalls

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/ragbot/ragbot/ingest/gocalls"
	"github.com/ragbot/ragbot/retrieval"
)

// Tools, the values of retrieval.Chunk.Types of a file whose calls they
// resolved.
const (
	Python     = retrieval.SCIPPython
	TypeScript = retrieval.SCIPTypeScript
)

// UnresolvedPrefix starts the Name of a Call that SCIP did not resolve:
// "?.close" is a ".close(" on a line where no "close" method has a symbol.
const UnresolvedPrefix = retrieval.UnresolvedCall

// A Call is one use of a method or function on Line (1-based) of its
// file. Name is "Type.method" (the innermost type declaring the method,
// from its SCIP symbol: methodName), "module.func" for a function outside
// any type, or UnresolvedPrefix and the method's name for a call SCIP gave
// no symbol.
type Call struct {
	Line int
	Name string
}

// String is "Name@Line", the form stored in retrieval.Chunk.Calls.
func (c Call) String() string { return fmt.Sprintf("%s@%d", c.Name, c.Line) }

// File is what the indexers found for one Python or JavaScript/TypeScript
// file of the commit.
type File struct {
	Tool  string // Python or TypeScript: the indexer that read it
	Calls []Call // sorted by line, then name, each once; nil when Err is set
	// Err is "" when the file was indexed, else why its calls are unknown
	// ("scip-python not installed: run scripts/install-scip.sh",
	// "scip-typescript: exit status 1: ...").
	Err string
}

// Result is the resolution of one commit.
type Result struct {
	// Files holds every Python (.py) and JavaScript/TypeScript (.js, .jsx,
	// .mjs, .cjs, .ts, .tsx, .mts, .cts) file of the commit by repository
	// path ("/" separators), outside node_modules.
	Files map[string]File
	// Err, when not "", is why no file could be resolved (the commit could
	// not be extracted); else each tool's failure is in its files' Err.
	Err        string
	Calls      int           // resolved calls, over all files
	Unresolved int           // calls that SCIP gave no symbol, by name
	Failed     int           // files with an Err
	Elapsed    time.Duration // wall time of extraction and indexing
	// Tools are the indexers run and their wall time, in order:
	// "scip-python 6.8s".
	Tools []string
}

// File returns the resolution of the file at path and whether the result
// knows it (false for other languages and for a nil Result).
func (r *Result) File(path string) (File, bool) {
	if r == nil {
		return File{}, false
	}
	f, ok := r.Files[path]
	return f, ok
}

// Summary is the cost and outcome in a few words, for the index summary
// line: "scip 9.1s (scip-python 6.8s, scip-typescript 2.3s), 812 calls, 40
// by name", or "scip unavailable (reason), 0.1s"; "" for a nil Result or
// one without files.
func (r *Result) Summary() string {
	if r == nil || len(r.Files) == 0 && r.Err == "" {
		return ""
	}
	if r.Err != "" {
		return fmt.Sprintf("scip unavailable (%s), %.1fs", r.Err, r.Elapsed.Seconds())
	}
	if r.Failed == len(r.Files) {
		return fmt.Sprintf("scip unavailable (%s), %.1fs", r.FirstErr(), r.Elapsed.Seconds())
	}
	s := fmt.Sprintf("scip %.1fs (%s), %d calls, %d by name", r.Elapsed.Seconds(), strings.Join(r.Tools, ", "), r.Calls, r.Unresolved)
	if r.Failed > 0 {
		s += fmt.Sprintf(", %d files unresolved", r.Failed)
	}
	return s
}

// FirstErr is the Err of the first file with one, in path order, or "".
func (r *Result) FirstErr() string {
	for _, p := range slices.Sorted(maps.Keys(r.Files)) {
		if e := r.Files[p].Err; e != "" {
			return e
		}
	}
	return ""
}

// Attach sets c.Calls and c.Types from the resolution of c's file: the
// calls on lines StartLine to EndLine and the tool's name, or no calls and
// retrieval.TypesUnavailable with the reason. The resolved calls' names
// ("Session.send") are added to c.Refs, each once, so that a refs filter
// on the qualified name finds the chunk. A chunk of a file the result does
// not know is left as it is.
func (r *Result) Attach(c *retrieval.Chunk) {
	f, ok := r.File(c.Path)
	if !ok {
		return
	}
	c.Calls, c.Types = f.span(c.StartLine, c.EndLine)
	for _, s := range c.Calls {
		name, _, _ := strings.Cut(s, "@")
		if !strings.HasPrefix(name, UnresolvedPrefix) && !slices.Contains(c.Refs, name) {
			c.Refs = append(c.Refs, name)
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
	return calls, f.Tool
}

// A Stored chunk is what Changed compares: a chunk as the store holds it,
// as for ingest/gocalls.
type Stored = gocalls.Stored

// Changed returns the paths of the stored chunks whose Calls or Types
// differ from what Attach would set now, sorted, each once: files whose
// resolution changed although their text did not.
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
