// Package gocallstest holds the fixture that package gocalls' tests and
// ingest's type-resolved usage tests share: ingest/gocalls/testdata/
// callers.txtar, a Go module where Do and Close are defined on two types
// and an interface, each use of them ending in a hand-written
// "// want NAME..." comment giving the qualified names (gocalls.Call.Name)
// used on that line.
package gocallstest

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// Files returns the fixture's files by path, read from beside this
// package's source, so that any package's tests can use it; a missing or
// malformed fixture fails t.
func Files(t testing.TB) map[string]string {
	t.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("gocallstest: no caller information to find testdata/callers.txtar")
	}
	a, err := txtar.ParseFile(filepath.Join(filepath.Dir(self), "..", "testdata", "callers.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	return files
}

// wantRe is a "// want NAME..." comment at the end of a line.
var wantRe = regexp.MustCompile(`// want ((?:[\w.]+ ?)+)$`)

// Wants maps each name that a want comment of files gives to the
// "path:line" (1-based) of the lines that use it, sorted.
func Wants(files map[string]string) map[string][]string {
	out := map[string][]string{}
	for p, text := range files {
		for i, l := range strings.Split(text, "\n") {
			if m := wantRe.FindStringSubmatch(l); m != nil {
				for _, n := range strings.Fields(m[1]) {
					out[n] = append(out[n], fmt.Sprintf("%s:%d", p, i+1))
				}
			}
		}
	}
	for _, sites := range out {
		slices.Sort(sites)
	}
	return out
}
