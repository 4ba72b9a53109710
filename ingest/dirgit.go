package ingest

import (
	"bytes"
	"context"
	"path"
	"strings"
)

// dirGit is what git says about a markdown folder (DirSource) that lies in
// a git work tree: the HEAD commit and, for each file unchanged at HEAD, its
// path in the repository and its history. A file with uncommitted edits
// (staged or not) or not tracked at HEAD is read from disk as any folder's
// file is, without commit, author or link: HEAD's lines would not be the
// lines shown.
type dirGit struct {
	top    gitRepo                 // the work tree's root
	head   string                  // HEAD commit, full SHA
	prefix string                  // the folder's path in the repository, "" or ending in "/"
	clean  map[string]*fileHistory // repository path -> history, for the files unchanged at HEAD
}

// openDirGit returns the git view of the folder dir for the "/"-separated
// files under it, or nil when dir is not in a git work tree or its
// repository has no commit yet; the error is for git failing after that.
func openDirGit(ctx context.Context, dir string, files []string) (*dirGit, error) {
	in := gitRepo{dir: dir}
	top, err := in.run(ctx, "rev-parse", "--show-toplevel", "--show-prefix")
	if err != nil {
		return nil, nil // not a work tree (or no git): read as a plain folder
	}
	lines := strings.Split(strings.TrimRight(string(top), "\n"), "\n")
	head, err := in.run(ctx, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil || len(lines) == 0 {
		return nil, nil // no commit yet
	}
	g := &dirGit{top: gitRepo{dir: lines[0]}, head: strings.TrimSpace(string(head)), clean: map[string]*fileHistory{}}
	if len(lines) > 1 {
		g.prefix = lines[1]
	}
	tracked, err := in.run(ctx, "ls-tree", "-r", "-z", "--full-name", "--name-only", "HEAD")
	if err != nil {
		return nil, err
	}
	dirty, err := in.run(ctx, "status", "--porcelain=v1", "-z", "--untracked-files=no", "--", ".")
	if err != nil {
		return nil, err
	}
	atHead := map[string]bool{}
	for _, p := range bytes.Split(tracked, []byte{0}) {
		atHead[string(p)] = true
	}
	// Porcelain v1 entries are "XY path", paths from the repository root
	// (git-status(1), "Porcelain Format Version 1"); a rename's entry is
	// followed by its old path, which is not a file of the folder any more.
	changed := map[string]bool{}
	for _, e := range bytes.Split(dirty, []byte{0}) {
		if len(e) > 3 {
			changed[string(e[3:])] = true
		}
	}
	want := map[string]bool{}
	for _, f := range files {
		if p := g.prefix + f; atHead[p] && !changed[p] {
			want[p] = true
		}
	}
	if len(want) == 0 {
		return g, nil
	}
	if g.clean, err = g.top.histories(ctx, g.head, want); err != nil {
		return nil, err
	}
	return g, nil
}

// fill sets the commit, repository path, author, time and blame of the
// file rel (relative to the folder, "/"-separated) when it is unchanged at
// HEAD; it leaves f as it is otherwise.
func (g *dirGit) fill(rel string, f *fileInput) {
	if g == nil {
		return
	}
	p := path.Clean(g.prefix + rel)
	h, ok := g.clean[p]
	if !ok {
		return
	}
	f.commit, f.repoPath = g.head, p
	if !h.last.when.IsZero() {
		f.author, f.modified = h.last.author, h.last.when
	}
	if h.blame {
		f.blame = blameFunc(g.top, g.head, p)
	}
}
