package gocalls

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"
)

// NoModule is Result.Err when the commit has .go files but no go.mod: not
// a Go module (scripts, examples, a GOPATH-era tree).
const NoModule = "no go.mod in the repository"

// Resolve type-checks every Go module of commit in the git repository at
// repoDir and returns the calls of each .go file. It never fails: what goes
// wrong is reported in Result.Err (nothing resolved: no go command, git
// archive failed, ctx done) or per file in File.Err (the package or
// module does not type-check, a dependency cannot be downloaded, the file
// is in no loaded package). A repository without .go files gives a
// Result with no Files.
//
// The go command runs with GOFLAGS=-mod=mod (missing go.sum lines and
// requirements are resolved through the module proxy, vendor folders
// ignored), GOWORK=off (each module alone) and GOTOOLCHAIN=local (a module
// that needs a newer Go fails rather than downloading a toolchain);
// GOPROXY, GOCACHE and GOMODCACHE are inherited. It uses a temporary
// folder as large as the commit's files, removed on return.
func Resolve(ctx context.Context, repoDir, commit string) *Result {
	start := time.Now()
	peak := sampleRSS()
	defer lowerGC()()
	res := resolve(ctx, repoDir, commit)
	res.PeakRSS = peak()
	res.Elapsed = time.Since(start)
	for _, f := range res.Files {
		res.Calls += len(f.Calls)
		if f.Err != "" {
			res.Failed++
		}
	}
	return res
}

func resolve(ctx context.Context, repoDir, commit string) *Result {
	res := &Result{Files: map[string]File{}}
	tmp, err := os.MkdirTemp("", "ragbot-gocalls-")
	if err != nil {
		res.Err = err.Error()
		return res
	}
	defer os.RemoveAll(tmp)
	if root, err := filepath.EvalSymlinks(tmp); err == nil {
		tmp = root // go list reports resolved paths
	}
	if err := Extract(ctx, repoDir, commit, tmp); err != nil {
		res.Err = err.Error()
		return res
	}
	goFiles, mods, err := walk(tmp)
	if err != nil {
		res.Err = err.Error()
		return res
	}
	if len(goFiles) == 0 {
		return res
	}
	if _, err := exec.LookPath("go"); err != nil {
		res.Err = "no go command in PATH"
	} else if len(mods) == 0 {
		res.Err = NoModule
	}
	if res.Err != "" {
		for _, p := range goFiles {
			res.Files[p] = File{Err: res.Err}
		}
		return res
	}
	files := map[string]*fileState{}
	for _, m := range mods {
		res.Modules++
		if err := load(ctx, tmp, m, nil, nil, files); err != nil {
			for _, p := range goFiles {
				if moduleOf(p, mods) == m && files[p] == nil {
					files[p] = &fileState{err: fmt.Sprintf("module %s: %v", displayDir(m), err)}
				}
			}
			continue
		}
		// Files left out by a build tag (integration tests, "compat"):
		// once more with their tags set, for those files only.
		left := map[string]bool{}
		for _, p := range goFiles {
			if moduleOf(p, mods) == m && files[p] == nil {
				left[p] = true
			}
		}
		if tags := buildTags(tmp, left); len(tags) > 0 {
			_ = load(ctx, tmp, m, tags, left, files) // what fails stays "in no package"
		}
	}
	for _, p := range goFiles {
		st := files[p]
		switch {
		case st == nil:
			res.Files[p] = File{Err: "in no package type-checked for " + goEnv("GOOS") + "/" + goEnv("GOARCH") + " (build constraints, testdata, or outside the module)"}
		case st.ok:
			res.Files[p] = File{Package: st.pkg, Calls: sortCalls(st.calls)}
		default:
			res.Files[p] = File{Err: st.err}
		}
	}
	return res
}

// fileState gathers one file's calls over the package variants that hold
// it (a package, and the same package compiled with its tests).
type fileState struct {
	pkg   string // package name, from a clean variant
	ok    bool   // some variant holding the file type-checked cleanly
	err   string // the first error of a variant that did not
	calls []Call // from clean variants only
}

// clean takes the temporary folder out of a message and keeps it short.
func clean(msg, root string) string {
	msg = strings.ReplaceAll(msg, root+string(filepath.Separator), "")
	msg = strings.ReplaceAll(msg, root, ".")
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	return msg
}

// Extract writes the files of commit of the repository at repoDir into
// dir (git archive, untarred by tar), as the resolvers of ingest/gocalls
// and ingest/scipcalls read them. Errors name the failing command and its
// stderr.
func Extract(ctx context.Context, repoDir, commit, dir string) error {
	archive := exec.CommandContext(ctx, "git", "-C", repoDir, "archive", "--format=tar", commit)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return err
	}
	var aerr, terr bytes.Buffer
	archive.Stderr, untar.Stdin, untar.Stderr = &aerr, pipe, &terr
	if err := archive.Start(); err != nil {
		return fmt.Errorf("git archive: %w", err)
	}
	if err := untar.Run(); err != nil {
		_ = archive.Wait()
		return fmt.Errorf("tar -x: %w: %s", err, strings.TrimSpace(terr.String()))
	}
	if err := archive.Wait(); err != nil {
		return fmt.Errorf("git archive %s: %w: %s", commit, err, strings.TrimSpace(aerr.String()))
	}
	return nil
}

// walk lists the .go files under root and the folders holding a go.mod,
// both relative to root with "/" separators, the modules deepest first.
// Folders that the go command leaves out of "./..." (testdata, vendor,
// names starting with "." or "_": `go help packages`) are not searched
// for modules; their .go files are listed.
func walk(root string) (goFiles, mods []string, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		r, _ := filepath.Rel(root, p)
		r = filepath.ToSlash(r)
		switch {
		case d.IsDir():
		case strings.HasSuffix(r, ".go"):
			goFiles = append(goFiles, r)
		case d.Name() == "go.mod" && !ignoredDir(r):
			mods = append(mods, filepath.ToSlash(filepath.Dir(r)))
		}
		return nil
	})
	depth := func(m string) int {
		if m == "." {
			return 0
		}
		return strings.Count(m, "/") + 1
	}
	sort.SliceStable(mods, func(i, j int) bool { return depth(mods[i]) > depth(mods[j]) })
	return goFiles, mods, err
}

func ignoredDir(rel string) bool {
	for _, seg := range strings.Split(filepath.ToSlash(filepath.Dir(rel)), "/") {
		if seg == "testdata" || seg == "vendor" || (seg != "." && (strings.HasPrefix(seg, ".") || strings.HasPrefix(seg, "_"))) {
			return true
		}
	}
	return false
}

// moduleOf is the module folder (one of mods, deepest first) holding file
// p, or "".
func moduleOf(p string, mods []string) string {
	for _, m := range mods {
		if m == "." || strings.HasPrefix(p, m+"/") {
			return m
		}
	}
	return ""
}

func displayDir(m string) string {
	if m == "." {
		return "at the repository root"
	}
	return m
}

// goEnv is the environment's GOOS or GOARCH, else the running program's:
// what the go command builds for, but for a go.env or `go env -w` setting.
func goEnv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return map[string]string{"GOOS": runtime.GOOS, "GOARCH": runtime.GOARCH}[name]
}
