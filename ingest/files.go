package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The files an index run reads, listed by one rule per kind of source, so
// that whoever else reads a source's text (the held-out question generator,
// tools/benchgen) reads exactly what is indexed.

// treeFiles returns the entries of a commit that a full run of src reads:
// under src.Include and not under src.Exclude (see included), and not
// skipped by name or size (pathSkipReason; skip, when not nil, is called
// with each of those and its reason). Their content may still be skipped
// once read (fileInput.skipReason).
func treeFiles(entries []treeEntry, src GitSource, skip func(e treeEntry, reason string)) []treeEntry {
	var keep []treeEntry
	for _, e := range entries {
		if !included(e.path, src.Include, src.Exclude) {
			continue
		}
		if r := pathSkipReason(e.path, e.size); r != "" {
			if skip != nil {
				skip(e, r)
			}
			continue
		}
		keep = append(keep, e)
	}
	return keep
}

// GitFiles calls f with the path and content of each file that IndexGit
// chunks at the head of src.Branch ("" for the checked-out branch), in the
// commit's tree order: the files under src.Include and not src.Exclude,
// without lockfiles, files over code.MaxFileBytes, and binary, vendored,
// generated or minified code (code.SkipReason; markdown is only refused
// when binary or too large). It returns the commit read. Errors are those
// of git, naming the file when one is to blame, and the first error of f,
// which stops the walk.
func GitFiles(ctx context.Context, src GitSource, f func(path string, data []byte) error) (commit string, err error) {
	repo := gitRepo{dir: src.Dir}
	commit, _, err = repo.head(ctx, src.Branch)
	if err != nil {
		return "", err
	}
	entries, err := repo.files(ctx, commit)
	if err != nil {
		return "", err
	}
	cf, err := repo.catFile(ctx)
	if err != nil {
		return "", err
	}
	defer cf.Close()
	for _, e := range treeFiles(entries, src, nil) {
		in, err := readEntry(cf, e)
		if err != nil {
			return "", err
		}
		if in.skipReason() != "" {
			continue
		}
		if err := f(in.path, in.data); err != nil {
			return "", err
		}
	}
	return commit, nil
}

// markdownFiles lists the markdown files (isMarkdown) under src.Dir that
// IndexDir reads, as slash-separated paths relative to src.Dir, sorted:
// hidden folders and paths under src.Exclude are left out.
func markdownFiles(src DirSource) ([]string, error) {
	var files []string
	err := filepath.WalkDir(src.Dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src.Dir, p)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || !included(rel, nil, src.Exclude)) {
				return filepath.SkipDir
			}
			return nil
		}
		if isMarkdown(rel) && d.Type().IsRegular() && included(rel, nil, src.Exclude) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	return files, nil
}

// DirFiles calls f with the path and content of each markdown file that
// IndexDir chunks under src.Dir, in path order; the path is relative to
// src.Dir, slash-separated, without src.Prefix. Hidden folders, paths under
// src.Exclude, and binary or too large files are left out. Errors are
// those of the file system, naming the file, and the first error of f,
// which stops the walk.
func DirFiles(src DirSource, f func(path string, data []byte) error) error {
	files, err := markdownFiles(src)
	if err != nil {
		return err
	}
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(src.Dir, filepath.FromSlash(rel)))
		if err != nil {
			return fmt.Errorf("%s: %w", rel, err)
		}
		if fileSkipReason(rel, data) != "" {
			continue
		}
		if err := f(rel, data); err != nil {
			return err
		}
	}
	return nil
}
