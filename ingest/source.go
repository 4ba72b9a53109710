package ingest

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/ragbot/ragbot/config"
)

// GitSource is a local git repository indexed at a branch's head commit.
type GitSource struct {
	ID      string   // chunk source id, "repo:<name>"
	Dir     string   // repository root (work tree or bare)
	Branch  string   // branch to index; "" means the checked-out branch
	Include []string // path prefixes to index; empty means all
	Exclude []string // path prefixes or globs to leave out, after Include (see included)
	// LinkTemplate builds Chunk.URL: {commit}, {path} (URL-escaped), {start}
	// and {end} are replaced; "" leaves URL empty.
	LinkTemplate string
	ACL          []string // groups allowed to see the chunks; empty means everyone
	// NoGoTypes turns off the type resolution of the source's Go modules,
	// as Indexer.NoGoTypes does for every source (config go_types: false).
	NoGoTypes bool
	// NoSCIP turns off the SCIP resolution of the source's Python and
	// JavaScript/TypeScript calls, as Indexer.NoSCIP does for every source
	// (config scip: false).
	NoSCIP bool
}

// DirSource is a folder of markdown files read from the file system, which
// may lie in a git work tree (see Indexer.IndexDir).
type DirSource struct {
	ID      string   // chunk source id, "docs:<name>"
	Dir     string   // folder root
	Exclude []string // path prefixes or globs to leave out, relative to Dir (see included)
	ACL     []string
	// Prefix is prepended to chunk paths ("docs" makes "docs/setup.md"), so
	// that a citation names the file as people find it from the repository
	// or config folder; "" keeps paths relative to Dir.
	Prefix string
	// LinkTemplate builds Chunk.URL as GitSource's does, for the files
	// cited at a commit (see Indexer.IndexDir), with {path} the file's path
	// in its repository; "" leaves URL empty.
	LinkTemplate string
}

// included reports whether path passes the include prefixes and the
// exclude entries. A prefix matches the whole path or a leading run of its
// "/" segments. An exclude entry holding * ? [ or { is a glob
// (github.com/bmatcuk/doublestar/v4: * within a segment, ** across
// segments) and drops the paths it matches and everything under a folder it
// matches, so "config/secrets/*.yml", "**/fixtures" and "**/fixtures/**"
// all work; config validation rejects malformed globs.
func included(path string, include, exclude []string) bool {
	under := func(prefix string) bool {
		prefix = strings.TrimSuffix(prefix, "/")
		return prefix == "" || path == prefix || strings.HasPrefix(path, prefix+"/")
	}
	if len(include) > 0 && !slices.ContainsFunc(include, under) {
		return false
	}
	return !slices.ContainsFunc(exclude, func(p string) bool {
		if config.IsGlob(p) {
			return GlobMatchesUnder(p, path)
		}
		return under(p)
	})
}

// GlobMatchesUnder reports whether the doublestar glob g matches path or
// one of its folders, so that a glob naming a folder takes what is under
// it: the glob exclude entries of a source (included) and the --path
// globs of `ragbot forget`.
func GlobMatchesUnder(g, path string) bool {
	for q := path; q != "" && q != "."; {
		if ok, _ := doublestar.Match(g, q); ok {
			return true
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return false
		}
		q = q[:i]
	}
	return false
}

// link fills a link template for one chunk. The path is URL-escaped segment
// by segment, so that a space, "#", "?" or "%" in a file name keeps the link
// working.
func link(template, commit, path string, start, end int) string {
	if template == "" {
		return ""
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.NewReplacer("{commit}", commit, "{path}", strings.Join(segs, "/"),
		"{start}", strconv.Itoa(start), "{end}", strconv.Itoa(end)).Replace(template)
}
