package gocalls

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"
)

// NoModule is Result.Err when the commit has .go files but no go.mod: not
// a Go module (scripts, examples, a GOPATH-era tree).
const NoModule = "no go.mod in the repository"

// loadMode asks go/packages for what Resolve reads: each package's files,
// its syntax and its types.Info, type-checked from source, dependencies
// included (NeedDeps). Without NeedDeps, go/packages reads dependencies
// from export data, which the go command makes by compiling every package
// of the module and its test variants (`go list -export`): 81 s against
// 7 s (with parseFile) for pgx v5.13.0 on a loaded 2-core machine, as the
// temporary folder is new each run and defeats the build cache. parseFile
// keeps the cost of dependencies' source down.
const loadMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo | packages.NeedImports | packages.NeedDeps

// parseFile parses a Go file for go/packages (packages.Config.ParseFile);
// in deps (GOROOT and the module cache, see depDirs), and in the module's
// folder under root outside the package folders of the batch being
// resolved (keep, see loadBatch), function bodies are dropped: a
// dependency is only needed for its declarations, and go/types then has
// neither the bodies to check nor their syntax to keep. The batch's own
// files, and cgo's output (in the build cache), are parsed whole.
func parseFile(deps []string, root string, keep map[string]bool) func(*token.FileSet, string, []byte) (*ast.File, error) {
	under := func(f, d string) bool { return strings.HasPrefix(f, d+string(filepath.Separator)) }
	return func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
		dep := slices.ContainsFunc(deps, func(d string) bool { return under(filename, d) }) ||
			under(filename, root) && !keep[filepath.Dir(filename)]
		mode := parser.AllErrors | parser.ParseComments
		if dep {
			mode = parser.SkipObjectResolution
		}
		f, err := parser.ParseFile(fset, filename, src, mode)
		if dep && f != nil {
			for _, d := range f.Decls {
				if fd, ok := d.(*ast.FuncDecl); ok {
					fd.Body = nil
				}
			}
		}
		return f, err
	}
}

// depDirs are GOROOT and GOMODCACHE as the go command in dir sees them
// (`go env`), or none when it fails: then nothing is trimmed.
func depDirs(ctx context.Context, dir string, env []string) []string {
	cmd := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOMODCACHE")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		return nil
	}
	var dirs []string
	for _, d := range strings.Fields(string(out)) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			d = r
		}
		dirs = append(dirs, filepath.Clean(d))
	}
	return dirs
}

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
	if err := extract(ctx, repoDir, commit, tmp); err != nil {
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

// load type-checks the module in folder mod (relative to root, "." for
// the root), with the build tags given, and records each file's calls in
// files, by repository path; only the files in only when it is not nil.
// The error is go/packages' own (the go command could not list the
// module); errors inside packages are recorded per file.
func load(ctx context.Context, root, mod string, tags []string, only map[string]bool, files map[string]*fileState) error {
	dir := filepath.Join(root, mod)
	flags := "GOFLAGS=-mod=mod"
	if len(tags) > 0 {
		flags += " -tags=" + strings.Join(tags, ",")
	}
	env := append(os.Environ(), flags, "GOWORK=off", "GOTOOLCHAIN=local")
	deps := depDirs(ctx, dir, env)
	listed, err := packages.Load(&packages.Config{Context: ctx, Dir: dir, Mode: packages.NeedName | packages.NeedFiles | packages.NeedModule, Env: env}, "./...")
	if err != nil {
		return errors.New(clean(err.Error(), root))
	}
	// The module's packages by folder, in batches of loadBatch folders:
	// each batch is type-checked with every other file's bodies dropped
	// (parseFile), and let go before the next.
	byDir := map[string][]string{}
	for _, p := range listed {
		d := ""
		switch {
		case len(p.GoFiles) > 0:
			d = filepath.Dir(p.GoFiles[0])
		case p.Module != nil && p.Module.Dir != "": // only _test.go files
			d = filepath.Join(p.Module.Dir, filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, p.Module.Path), "/")))
		default:
			continue
		}
		byDir[d] = append(byDir[d], p.PkgPath)
	}
	listed = nil
	dirs := slices.Sorted(maps.Keys(byDir))
	for batch := range slices.Chunk(dirs, loadBatch) {
		keep, patterns := map[string]bool{}, []string(nil)
		for _, d := range batch {
			keep[d] = true
			patterns = append(patterns, byDir[d]...)
		}
		fset := token.NewFileSet() // one a batch: a file set keeps every file's line table
		cfg := &packages.Config{
			Context: ctx, Dir: dir, Mode: loadMode, Tests: true, Fset: fset, ParseFile: parseFile(deps, root, keep), Env: env,
		}
		pkgs, err := packages.Load(cfg, patterns...)
		if err != nil {
			return errors.New(clean(err.Error(), root))
		}
		record(root, only, fset, pkgs, files)
		pkgs = nil
		runtime.GC()
		debug.FreeOSMemory() // the next batch starts from what the run held before
	}
	return nil
}

// loadBatch is how many package folders of a module one type-check holds
// with their function bodies and types.Info (load); the rest of the
// module and its dependencies are read for their declarations only. On
// prometheus v0.54.1 (1,175 files) the whole module at once peaked at
// 1,780 MB; in batches the peak is what one batch and the declarations of
// everything it imports hold (docs/callers.md, "Cost").
const loadBatch = 16

// record adds to files the calls of the type-checked packages pkgs (the
// batch's roots: their dependencies are reached through Imports), by
// repository path under root; only the files in only when it is not nil.
func record(root string, only map[string]bool, fset *token.FileSet, pkgs []*packages.Package, files map[string]*fileState) {
	rel := func(abs string) (string, bool) {
		r, err := filepath.Rel(root, abs)
		if err != nil || strings.HasPrefix(r, "..") {
			return "", false // a generated file in the build cache
		}
		r = filepath.ToSlash(r)
		return r, only == nil || only[r]
	}
	state := func(p string) *fileState {
		if files[p] == nil {
			files[p] = &fileState{}
		}
		return files[p]
	}
	for _, pkg := range pkgs {
		if len(pkg.Errors) > 0 {
			msg := clean(fmt.Sprintf("package %s: %s", pkg.PkgPath, pkg.Errors[0].Msg), root)
			for _, f := range pkg.GoFiles {
				if p, ok := rel(f); ok && state(p).err == "" {
					state(p).err = msg
				}
			}
			continue
		}
		for _, f := range pkg.GoFiles {
			if p, ok := rel(f); ok {
				state(p).ok, state(p).pkg = true, pkg.Name
			}
		}
		if pkg.TypesInfo == nil {
			continue
		}
		for id, obj := range pkg.TypesInfo.Uses {
			fn, ok := obj.(*types.Func)
			if !ok {
				continue
			}
			name := QualifiedName(fn)
			pos := fset.Position(id.Pos()) // adjusted by //line: cgo's output maps back to its .go file
			p, ok := rel(pos.Filename)
			if name == "" || !ok {
				continue
			}
			st := state(p)
			st.calls = append(st.calls, Call{Line: pos.Line, Name: name})
		}
	}
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

// extract writes the files of commit into dir (git archive, untarred by
// tar).
func extract(ctx context.Context, repoDir, commit, dir string) error {
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
