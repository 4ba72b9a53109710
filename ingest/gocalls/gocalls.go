// Package gocalls resolves, by type-checking, which function or method each
// use of a name in a Go module refers to, so that "who calls Policy.Do"
// can be answered with the real callers rather than every ".Do(".
//
// Flow: the files of one git commit are extracted to a temporary folder
// (git archive), every Go module in it (each go.mod) is listed with
// golang.org/x/tools/go/packages ("./...", tests included), which runs the
// go command for the package graph, its packages are type-checked from
// source with go/types one at a time (their dependencies once, for their
// declarations only: check.go), and every identifier that go/types records
// as a use of a *types.Func (types.Info.Uses: calls, method values,
// function values, promoted methods) becomes a Call in its file.
package gocalls

import (
	"cmp"
	"fmt"
	"go/types"
	"slices"
	"strings"
	"time"
)

// A Call is one use of a function or method: Name is its qualified name,
// Line the 1-based line of the use in its file.
//
// Name is "pkg.Type.Method" for a method, with Type the named type that
// declares it, whether the receiver is a pointer or a value, and also when
// the method is reached through an embedded field (promoted: go/types
// resolves the selector to the embedded type's method, Go spec
// "Selectors"); for a method of a named interface it is
// "pkg.Interface.Method" (the static callee: which concrete method runs is
// decided at run time). Name is "pkg.Func" for a package-level function.
// pkg is the declaring package's name (types.Package.Name, as in its
// package clause: "http" for net/http), and a generic type or function
// is named uninstantiated.
type Call struct {
	Line int
	Name string
}

// String is "Name@Line", the form stored in retrieval.Chunk.Calls.
func (c Call) String() string { return fmt.Sprintf("%s@%d", c.Name, c.Line) }

// File is what resolution found for one .go file of the commit.
type File struct {
	// Package is the name in the file's package clause ("retry",
	// "retry_test"); "" when Err is set.
	Package string
	// Calls are sorted by line, then name, each once.
	Calls []Call
	// Err is "" when the file's package type-checked without errors; else
	// why its calls are unknown ("package example.com/m/p: undefined: x",
	// "module . : go.mod requires go >= 1.99"). Calls is then nil.
	Err string
}

// Result is the resolution of one commit.
type Result struct {
	// Files holds every .go file of the commit by repository path ("/"
	// separators). A file that no loaded package holds (excluded by build
	// constraints for this GOOS/GOARCH, under testdata, outside any
	// module) has an Err saying so.
	Files map[string]File
	// Err, when not "", is why nothing could be resolved (no go command,
	// the commit could not be extracted); every File then has it as Err.
	Err     string
	Modules int           // go.mod files loaded
	Calls   int           // calls found, over all files
	Failed  int           // files with an Err
	Elapsed time.Duration // wall time of extraction, loading and type-checking
	// PeakRSS is the largest resident set of this process while
	// resolving, in bytes (Linux: VmRSS of /proc/self/status, proc(5),
	// sampled every 50 ms; 0 where unknown): it includes what the process
	// held before. The go command it runs (`go list`, without compiling)
	// is not counted; getrusage's RUSAGE_CHILDREN would not tell it apart,
	// as Linux carries a parent's peak over fork and exec into the child's.
	PeakRSS int64
}

// File returns the resolution of the file at path, and whether the result
// knows it (false for a file that is not .go).
func (r *Result) File(path string) (File, bool) {
	if r == nil {
		return File{}, false
	}
	f, ok := r.Files[path]
	return f, ok
}

// Summary is the cost and outcome in a few words, for the index summary
// line: "types 7.2s rss 390 MB, 1 modules, 24053 calls"
// or "types unavailable (reason), 0.1s"; "" for a nil Result.
func (r *Result) Summary() string {
	if r == nil {
		return ""
	}
	if r.Err != "" {
		return fmt.Sprintf("types unavailable (%s), %.1fs", r.Err, r.Elapsed.Seconds())
	}
	s := fmt.Sprintf("types %.1fs rss %d MB, %d modules, %d calls", r.Elapsed.Seconds(), r.PeakRSS>>20, r.Modules, r.Calls)
	if r.Failed > 0 {
		s += fmt.Sprintf(", %d files untyped", r.Failed)
	}
	return s
}

// QualifiedName is the Call.Name of fn: "pkg.Type.Method" or "pkg.Func";
// "" for a method of an unnamed interface (an interface literal). A
// method of a universe type (error.Error) has no package: "error.Error".
func QualifiedName(fn *types.Func) string {
	fn = fn.Origin()
	pkg := ""
	if fn.Pkg() != nil {
		pkg = fn.Pkg().Name() + "."
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return pkg + fn.Name()
	}
	t := sig.Recv().Type()
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	if n, ok := types.Unalias(t).(*types.Named); ok {
		if n.Obj().Pkg() == nil {
			pkg = ""
		}
		return pkg + n.Obj().Name() + "." + fn.Name()
	}
	return ""
}

// sortCalls sorts calls by line and name and drops repeats.
func sortCalls(calls []Call) []Call {
	slices.SortFunc(calls, func(a, b Call) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), strings.Compare(a.Name, b.Name))
	})
	return slices.Compact(calls)
}
