package gocalls

import (
	"bufio"
	"go/build/constraint"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// platformTags are the build tags that name a system, an architecture, a
// compiler or a Go release, which the go command sets from its
// configuration (`go help buildconstraint`), and "ignore", by convention
// on programs that are run (go run gen.go), not built with the package:
// buildTags never sets them.
var platformTags = map[string]bool{
	"aix": true, "android": true, "darwin": true, "dragonfly": true, "freebsd": true, "hurd": true, "illumos": true,
	"ios": true, "js": true, "linux": true, "nacl": true, "netbsd": true, "openbsd": true, "plan9": true,
	"solaris": true, "wasip1": true, "windows": true, "zos": true, "unix": true,
	"386": true, "amd64": true, "arm": true, "arm64": true, "loong64": true, "mips": true, "mips64": true,
	"mips64le": true, "mipsle": true, "ppc64": true, "ppc64le": true, "riscv64": true, "s390x": true, "wasm": true,
	"cgo": true, "gc": true, "gccgo": true, "ignore": true,
}

// buildTags returns, sorted, the build tags that the //go:build lines of
// files (repository paths under root) use, but for platformTags and Go
// releases ("go1.21"): the tags a second load sets so that files left out
// for want of a tag ("integration", "compat") are type-checked too.
func buildTags(root string, files map[string]bool) []string {
	seen := map[string]bool{}
	for p := range files {
		expr := goBuild(filepath.Join(root, filepath.FromSlash(p)))
		if expr == nil {
			continue
		}
		expr.Eval(func(tag string) bool {
			if !platformTags[tag] && !strings.HasPrefix(tag, "go1.") {
				seen[tag] = true
			}
			return true
		})
	}
	var tags []string
	for t := range seen {
		tags = append(tags, t)
	}
	slices.Sort(tags)
	return tags
}

// goBuild is the //go:build constraint of the Go file at path, or nil: it
// is among the comments before the package clause.
func goBuild(path string) constraint.Expr {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "package ") {
			return nil
		}
		if constraint.IsGoBuild(line) {
			expr, err := constraint.Parse(line)
			if err != nil {
				return nil
			}
			return expr
		}
	}
	return nil
}
