package main

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// A Repo is one line of the pinned list (testdata/eval/generated/repos.tsv):
// a package fetched from its registry at a fixed version and checksum.
type Repo struct {
	Name     string // folder name, under the corpus folder and the output folder; also the question id prefix
	Group    string // go, python, js, openapi or markdown: how figures are split
	Registry string // gomod, deb or npm
	Package  string // Go module path, Debian package or npm package
	Version  string
	Checksum string // go.sum h1: hash, Debian sha256 or npm sha1 (shasum)
	Sub      string // deb: the Python package folder; openapi: the spec file; markdown: the docs folder; else ""
	Licence  string // SPDX id of the package's licence
}

// Groups, in the order figures are reported.
var groups = []string{"go", "python", "js", "openapi", "markdown"}

// Source is the source name a config gives the repository and the corpus
// of its questions: MODULE@VERSION, deb:PKG@VERSION or npm:PKG@VERSION,
// followed by "/" and the spec file or docs folder for openapi and markdown.
func (r Repo) Source() string {
	var s string
	switch r.Registry {
	case "gomod":
		s = r.Package + "@" + r.Version
	default:
		s = r.Registry + ":" + r.Package + "@" + r.Version
	}
	if r.Group == "openapi" || r.Group == "markdown" {
		s += "/" + r.Sub
	}
	return s
}

// Kind is the config source kind: git, openapi or markdown.
func (r Repo) Kind() string {
	switch r.Group {
	case "openapi", "markdown":
		return r.Group
	}
	return "git"
}

// Root is the folder of the fetched repository under corpus.
func (r Repo) Root(corpus string) string { return filepath.Join(corpus, r.Name) }

// Path is what the source indexes: the repository, spec file or docs folder.
func (r Repo) Path(corpus string) string {
	if r.Kind() == "git" {
		return r.Root(corpus)
	}
	return filepath.Join(r.Root(corpus), filepath.FromSlash(r.Sub))
}

// readRepos parses the pinned list: tab-separated fields in Repo's order,
// "-" for an empty one, "#" comments and blank lines skipped. Errors name
// the line.
func readRepos(r io.Reader) ([]Repo, error) {
	var out []Repo
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			return nil, fmt.Errorf("line %d: want 8 tab-separated fields, got %d", n, len(f))
		}
		for i := range f {
			if f[i] == "-" {
				f[i] = ""
			}
		}
		r := Repo{f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7]}
		if err := r.validate(); err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n, r.Name, err)
		}
		if seen[r.Name] {
			return nil, fmt.Errorf("line %d: name %q is used twice", n, r.Name)
		}
		seen[r.Name] = true
		out = append(out, r)
	}
	return out, sc.Err()
}

func (r Repo) validate() error {
	switch {
	case r.Name == "" || strings.ContainsAny(r.Name, "/ \\"):
		return fmt.Errorf("name %q: want a plain folder name", r.Name)
	case !contains(groups, r.Group):
		return fmt.Errorf("group %q: want one of %s", r.Group, strings.Join(groups, ", "))
	case !contains([]string{"gomod", "deb", "npm"}, r.Registry):
		return fmt.Errorf("registry %q: want gomod, deb or npm", r.Registry)
	case r.Package == "" || r.Version == "" || r.Checksum == "" || r.Licence == "":
		return fmt.Errorf("package, version, checksum and licence are required")
	case r.Sub == "" && (r.Registry == "deb" || r.Kind() != "git"):
		return fmt.Errorf("path is required for a deb package, a spec and a docs folder")
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
