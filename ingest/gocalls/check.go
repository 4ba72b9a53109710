package gocalls

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"golang.org/x/tools/go/packages"
)

// listMode asks go/packages for the package graph of a module, its
// dependencies and test variants included (Config.Tests): each package's
// files (CompiledGoFiles: cgo's output in place of the files that import
// "C"), its imports resolved to packages (by ID: "p [p.test]" imports the
// variants compiled with p's tests), its module (the Go version it is
// checked at) and the target's type sizes. No syntax and no types:
// go/packages keeps every loaded package's syntax and types.Info, of
// dependencies too, until the load returns; a checker type-checks instead,
// holding less.
const listMode = packages.NeedName | packages.NeedFiles | packages.NeedCompiledGoFiles |
	packages.NeedImports | packages.NeedDeps | packages.NeedModule | packages.NeedTypesSizes

// load type-checks the module in folder mod (relative to root, "." for
// the root), with the build tags given, and records each file's calls in
// files, by repository path; only the files in only when it is not nil.
// The error is go/packages' own (the go command could not list the
// module) or ctx's; errors inside packages are recorded per file.
//
// The module is listed once ("./...", tests included); then each of its
// packages (each test variant) is type-checked in turn with its function
// bodies and its uses recorded (checker.check), its syntax let go after
// record. Dependencies are type-checked from source for their
// declarations alone, once for the whole module (checker.dep). Loading
// dependencies from export data instead (go/packages without NeedDeps)
// makes the go command compile every package of the module and its test
// variants (`go list -export`): 81 s against 7 s for pgx v5.13.0 on a
// loaded 2-core machine, as the temporary folder is new each run and
// defeats the build cache.
func load(ctx context.Context, root, mod string, tags []string, only map[string]bool, files map[string]*fileState) error {
	dir := filepath.Join(root, mod)
	flags := "GOFLAGS=-mod=mod"
	if len(tags) > 0 {
		flags += " -tags=" + strings.Join(tags, ",")
	}
	env := append(os.Environ(), flags, "GOWORK=off", "GOTOOLCHAIN=local")
	pkgs, err := packages.Load(&packages.Config{Context: ctx, Dir: dir, Mode: listMode, Tests: true, Env: env}, "./...")
	if err != nil {
		return errors.New(clean(err.Error(), root))
	}
	// A test main (in the build cache), or in a second load none of the
	// files asked for: nothing of it would be recorded.
	wanted := func(f string) bool { _, ok := relPath(root, only, f); return ok }
	pkgs = slices.DeleteFunc(pkgs, func(p *packages.Package) bool {
		return !slices.ContainsFunc(p.GoFiles, wanted) && !slices.ContainsFunc(p.CompiledGoFiles, wanted)
	})
	c := &checker{deps: map[string]*types.Package{}, last: lastUses(pkgs)}
	for i, p := range pkgs {
		if err := ctx.Err(); err != nil {
			return errors.New(clean(err.Error(), root))
		}
		fset := token.NewFileSet() // one a package: a file set keeps every file's line table
		info, msg := c.check(fset, p)
		record(root, only, fset, p, info, msg, files)
		c.release(i)
	}
	return nil
}

// lastUses maps each package that roots import, directly or not, by ID,
// to the index in roots of the last one that does.
func lastUses(roots []*packages.Package) map[string]int {
	last := map[string]int{}
	for i, r := range roots {
		seen := map[string]bool{}
		var visit func(p *packages.Package)
		visit = func(p *packages.Package) {
			for _, ip := range p.Imports {
				if !seen[ip.ID] {
					seen[ip.ID] = true
					last[ip.ID] = i
					visit(ip)
				}
			}
		}
		visit(r)
	}
	return last
}

// A checker type-checks the packages of one module listing (listMode)
// from source with go/types, as go/packages would (its loadPackage: the
// same files, importer, Go version, sizes and first error), holding the
// types of the module's dependency graph (its declarations) and the
// syntax and uses of one package at a time.
type checker struct {
	deps map[string]*types.Package // by packages.Package.ID; nil while being checked
	last map[string]int            // lastUses of the roots
}

// release lets go of the dependencies that no root after the i-th needs.
// What a kept dependency imports is needed as long as it is (lastUses),
// so a dependency is never checked twice, nor two versions of one met.
func (c *checker) release(i int) {
	for id := range c.deps {
		if c.last[id] <= i {
			delete(c.deps, id)
		}
	}
}

// dep returns the types of package p as an import: type-checked once per
// checker from its files with their function bodies dropped, without
// types.Info, after its own imports, so that only one dependency's
// syntax is held at a time, and let go with its file set once checked.
// Errors in it are not reported: as with go/packages, a package's errors
// are its own, and what it cannot use of a broken import shows there.
func (c *checker) dep(p *packages.Package) *types.Package {
	if p.PkgPath == "unsafe" {
		return types.Unsafe
	}
	if t, ok := c.deps[p.ID]; ok {
		return t
	}
	c.deps[p.ID] = nil
	c.imports(p)
	fset := token.NewFileSet()
	syntax, _ := parseFiles(fset, p.CompiledGoFiles, true)
	t := types.NewPackage(p.PkgPath, p.Name)
	conf := c.config(p, func(error) {})
	conf.IgnoreFuncBodies = true // dropped, and function literals' too
	_ = types.NewChecker(conf, fset, t, nil).Files(syntax)
	c.deps[p.ID] = t
	return t
}

// imports type-checks the imports of p (dep), in a fixed order.
func (c *checker) imports(p *packages.Package) {
	for _, path := range slices.Sorted(maps.Keys(p.Imports)) {
		c.dep(p.Imports[path])
	}
}

// check type-checks package p whole and returns its uses (types.Info
// with Uses alone: record reads nothing else), or else the message of
// its first error as go/packages gives it in Package.Errors[0].Msg: the
// go command's (listing), then the parser's, then go/types'. A package
// with an error records no calls, so the first one ends the check.
func (c *checker) check(fset *token.FileSet, p *packages.Package) (info *types.Info, msg string) {
	if len(p.Errors) > 0 {
		return nil, p.Errors[0].Msg
	}
	c.imports(p)
	syntax, msg := parseFiles(fset, p.CompiledGoFiles, false)
	if msg != "" {
		return nil, msg
	}
	info = &types.Info{Uses: map[*ast.Ident]types.Object{}}
	conf := c.config(p, func(err error) {
		if msg == "" {
			msg = errorMsg(err)
		}
	})
	err := types.NewChecker(conf, fset, types.NewPackage(p.PkgPath, p.Name), info).Files(syntax)
	if msg == "" && err != nil { // an error not given to conf.Error
		msg = errorMsg(err)
	}
	if msg != "" {
		return nil, msg
	}
	return info, ""
}

// config is the types.Config of package p, reporting errors to report.
// Its importer gives the imports that the listing resolved for p (dep).
func (c *checker) config(p *packages.Package, report func(error)) *types.Config {
	conf := &types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			ip := p.Imports[path]
			if ip == nil { // no such package, or an import cycle (go/packages drops the edge)
				return nil, fmt.Errorf("no metadata for %s", path)
			}
			if t := c.dep(ip); t != nil {
				return t, nil
			}
			return nil, fmt.Errorf("import cycle through %s", ip.ID)
		}),
		Error: report, // set, so that checking goes on after an error
		Sizes: p.TypesSizes,
	}
	if p.Module != nil && p.Module.GoVersion != "" {
		conf.GoVersion = "go" + p.Module.GoVersion
	}
	return conf
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// errorMsg is the Msg of the packages.Error that go/packages makes of err.
func errorMsg(err error) string {
	switch err := err.(type) {
	case types.Error:
		return err.Msg
	case scanner.ErrorList:
		if len(err) > 0 {
			return err[0].Msg
		}
	case *os.PathError:
		return err.Err.Error()
	}
	return err.Error()
}

// parseFiles parses the Go files names, in parallel, into fset and
// returns those that parsed at least in part, in order, and the message
// of the first error (errorMsg). For a dependency (dep), function bodies
// are dropped, and methods' receiver names: a dependency is only needed
// for its declarations, and go/types then has neither the bodies to check
// nor their syntax to keep, nor a scope map for each method (receiver
// names are in no type's String, unlike parameter names). Comments are
// not kept: go/types reads none (a file's //go:build Go version is read
// without them, and //line directives apply to positions all the same).
func parseFiles(fset *token.FileSet, names []string, dep bool) ([]*ast.File, string) {
	mode := parser.AllErrors | parser.SkipObjectResolution
	if dep {
		mode = parser.SkipObjectResolution
	}
	syntax, errs := make([]*ast.File, len(names)), make([]error, len(names))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, name := range names {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			src, err := os.ReadFile(name)
			if err != nil {
				errs[i] = err
				return
			}
			f, err := parser.ParseFile(fset, name, src, mode)
			if dep && f != nil {
				for _, d := range f.Decls {
					if fd, ok := d.(*ast.FuncDecl); ok {
						fd.Body = nil
						if fd.Recv != nil && len(fd.Recv.List) == 1 {
							fd.Recv.List[0].Names = nil
						}
					}
				}
			}
			syntax[i], errs[i] = f, err
		}()
	}
	wg.Wait()
	msg := ""
	if i := slices.IndexFunc(errs, func(err error) bool { return err != nil }); i >= 0 {
		msg = errorMsg(errs[i])
	}
	return slices.DeleteFunc(syntax, func(f *ast.File) bool { return f == nil }), msg
}

// record adds to files the calls of package p (a root of the load), by
// repository path under root, from its uses (info), or else its error
// msg to each of its files; only the files in only when it is not nil.
func record(root string, only map[string]bool, fset *token.FileSet, p *packages.Package, info *types.Info, msg string, files map[string]*fileState) {
	state := func(path string) *fileState {
		if files[path] == nil {
			files[path] = &fileState{}
		}
		return files[path]
	}
	if msg != "" {
		msg = clean(fmt.Sprintf("package %s: %s", p.PkgPath, msg), root)
		for _, f := range p.GoFiles {
			if path, ok := relPath(root, only, f); ok && state(path).err == "" {
				state(path).err = msg
			}
		}
		return
	}
	for _, f := range p.GoFiles {
		if path, ok := relPath(root, only, f); ok {
			state(path).ok, state(path).pkg = true, p.Name
		}
	}
	for id, obj := range info.Uses {
		fn, ok := obj.(*types.Func)
		if !ok {
			continue
		}
		name := QualifiedName(fn)
		pos := fset.Position(id.Pos()) // adjusted by //line: cgo's output maps back to its .go file
		path, ok := relPath(root, only, pos.Filename)
		if name == "" || !ok {
			continue
		}
		st := state(path)
		st.calls = append(st.calls, Call{Line: pos.Line, Name: name})
	}
}

// relPath is the repository path of file abs under root, and whether it
// is one to record: under root (not a generated file in the build cache)
// and in only when only is not nil.
func relPath(root string, only map[string]bool, abs string) (string, bool) {
	r, err := filepath.Rel(root, abs)
	if err != nil || strings.HasPrefix(r, "..") {
		return "", false
	}
	r = filepath.ToSlash(r)
	return r, only == nil || only[r]
}
