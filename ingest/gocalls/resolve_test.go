package gocalls_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ragbot/ragbot/ingest/gocalls"
	"github.com/ragbot/ragbot/ingest/gocalls/gocallstest"
)

// gitRepo makes a git repository in a temporary folder holding files, in
// one commit, and returns its folder and the commit.
func gitRepo(t *testing.T, files map[string]string) (dir, commit string) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("no go command in PATH: type resolution cannot be tested")
		}
		t.Skip("no go command in PATH")
	}
	dir = t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null",
			"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "add")
	return dir, git("rev-parse", "HEAD")
}

// TestResolveCallers checks, in every file of testdata/callers.txtar, that
// the uses of the names that the "want" comments mention are on exactly
// the lines and with exactly the names those comments give.
func TestResolveCallers(t *testing.T) {
	files := gocallstest.Files(t)
	dir, commit := gitRepo(t, files)
	res := gocalls.Resolve(context.Background(), dir, commit)
	if res.Err != "" {
		t.Fatalf("Resolve: %s", res.Err)
	}
	want := map[string][]string{}
	names := map[string]bool{}
	for n, sites := range gocallstest.Wants(files) {
		names[n] = true
		for _, site := range sites {
			path, line, _ := strings.Cut(site, ":")
			at, err := strconv.Atoi(line)
			if err != nil {
				t.Fatal(err)
			}
			want[path] = append(want[path], gocalls.Call{Line: at, Name: n}.String())
		}
	}
	for path := range files {
		if !strings.HasSuffix(path, ".go") {
			continue
		}
		f, ok := res.File(path)
		if !ok || f.Err != "" {
			t.Errorf("%s: known %v, err %q", path, ok, f.Err)
			continue
		}
		var got []string
		for _, c := range f.Calls {
			if names[c.Name] {
				got = append(got, c.String())
			}
		}
		slices.Sort(got)
		slices.Sort(want[path])
		if diff := cmp.Diff(want[path], got); diff != "" {
			t.Errorf("%s: calls (-want +got):\n%s", path, diff)
		}
	}
	if res.Modules != 1 || res.Elapsed <= 0 {
		t.Errorf("Modules %d, Elapsed %v; want 1 and > 0", res.Modules, res.Elapsed)
	}
}

// TestResolveBrokenPackage checks that a package that does not
// type-check gives its files an error naming the fault, that the module's
// other package is still resolved, a file behind a build tag too, and
// that a file for another system is said to be in no package.
func TestResolveBrokenPackage(t *testing.T) {
	dir, commit := gitRepo(t, map[string]string{
		"go.mod":        "module example.com/broken\n\ngo 1.22\n",
		"ok/ok.go":      "package ok\n\nfunc F() {}\n\nfunc G() { F() }\n",
		"bad/bad.go":    "package bad\n\nimport \"example.com/broken/ok\"\n\nfunc H() { ok.F(); undefinedThing() }\n",
		"bad/other.go":  "package bad\n\nfunc I() {}\n",
		"tools/tool.go": "//go:build plan9\n\npackage tools\n",
		// Left out of the first load for want of its tag: loaded again with it.
		"ok/integration.go": "//go:build integration\n\npackage ok\n\nfunc T() { F() }\n",
	})
	res := gocalls.Resolve(context.Background(), dir, commit)
	if res.Err != "" {
		t.Fatalf("Resolve: %s", res.Err)
	}
	okf, _ := res.File("ok/ok.go")
	if diff := cmp.Diff(gocalls.File{Package: "ok", Calls: []gocalls.Call{{Line: 5, Name: "ok.F"}}}, okf); diff != "" {
		t.Errorf("ok/ok.go (-want +got):\n%s", diff)
	}
	for _, p := range []string{"bad/bad.go", "bad/other.go"} {
		f, _ := res.File(p)
		if !strings.Contains(f.Err, "undefined: undefinedThing") || f.Calls != nil {
			t.Errorf("%s: Err %q, Calls %v; want the undefined name and no calls", p, f.Err, f.Calls)
		}
	}
	tagged, _ := res.File("ok/integration.go")
	if diff := cmp.Diff(gocalls.File{Package: "ok", Calls: []gocalls.Call{{Line: 5, Name: "ok.F"}}}, tagged); diff != "" {
		t.Errorf("ok/integration.go (-want +got):\n%s", diff)
	}
	if f, _ := res.File("tools/tool.go"); !strings.Contains(f.Err, "build constraints") {
		t.Errorf("tools/tool.go: Err %q, want it to say it is in no package", f.Err)
	}
}

// TestResolveNoModule checks that .go files without a go.mod are reported
// as unresolved, with the reason.
func TestResolveNoModule(t *testing.T) {
	dir, commit := gitRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	res := gocalls.Resolve(context.Background(), dir, commit)
	f, ok := res.File("main.go")
	if res.Err != "no go.mod in the repository" || !ok || f.Err != res.Err {
		t.Errorf("Err %q, main.go %v %+v; want no go.mod on both", res.Err, ok, f)
	}
}

// TestResolveModuleNeedsNewerGo checks that a module the go command cannot
// load at all (it asks for a Go release that does not exist yet, and
// GOTOOLCHAIN=local forbids fetching one) gives every file the reason.
func TestResolveModuleNeedsNewerGo(t *testing.T) {
	dir, commit := gitRepo(t, map[string]string{
		"go.mod":  "module example.com/future\n\ngo 1.999\n",
		"a/a.go":  "package a\n\nfunc F() {}\n",
		"main.go": "package main\n\nimport \"example.com/future/a\"\n\nfunc main() { a.F() }\n",
	})
	res := gocalls.Resolve(context.Background(), dir, commit)
	for _, p := range []string{"a/a.go", "main.go"} {
		if f, _ := res.File(p); !strings.Contains(f.Err, "1.999") || f.Calls != nil {
			t.Errorf("%s: Err %q, Calls %v; want the go version named and no calls", p, f.Err, f.Calls)
		}
	}
}

// TestResolveTestVariants checks the packages that only a test build has:
// an external test package calling a helper that an in-package test file
// exports (it imports the package compiled with its tests, "p [p.test]"),
// a package imported by both the test and the package it tests, and a
// folder of test files alone.
func TestResolveTestVariants(t *testing.T) {
	dir, commit := gitRepo(t, map[string]string{
		"go.mod":             "module example.com/tv\n\ngo 1.22\n",
		"p/p.go":             "package p\n\nimport \"example.com/tv/q\"\n\nfunc F() int { return q.G() }\n",
		"p/export_test.go":   "package p\n\nfunc Helper() int { return F() }\n",
		"p/p_test.go":        "package p_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/tv/p\"\n\t\"example.com/tv/q\"\n)\n\nfunc TestF(t *testing.T) {\n\t_ = p.Helper() + q.G()\n}\n",
		"q/q.go":             "package q\n\nfunc G() int { return 1 }\n",
		"only/only_test.go":  "package only\n\nimport (\n\t\"testing\"\n\n\t\"example.com/tv/q\"\n)\n\nfunc TestG(t *testing.T) { t.Log(q.G()) }\n",
		"only/other_test.go": "package only_test\n\nimport \"testing\"\n\nfunc TestH(t *testing.T) { t.Helper() }\n",
	})
	res := gocalls.Resolve(context.Background(), dir, commit)
	if res.Err != "" {
		t.Fatalf("Resolve: %s", res.Err)
	}
	want := map[string]gocalls.File{
		"p/p.go":           {Package: "p", Calls: []gocalls.Call{{Line: 5, Name: "q.G"}}},
		"p/export_test.go": {Package: "p", Calls: []gocalls.Call{{Line: 3, Name: "p.F"}}},
		"p/p_test.go": {Package: "p_test", Calls: []gocalls.Call{
			{Line: 11, Name: "p.Helper"}, {Line: 11, Name: "q.G"}}},
		"q/q.go":             {Package: "q"},
		"only/only_test.go":  {Package: "only", Calls: []gocalls.Call{{Line: 9, Name: "q.G"}, {Line: 9, Name: "testing.common.Log"}}},
		"only/other_test.go": {Package: "only_test", Calls: []gocalls.Call{{Line: 5, Name: "testing.common.Helper"}}}, // promoted from the embedded common
	}
	for path, w := range want {
		got, _ := res.File(path)
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", path, diff)
		}
	}
}
