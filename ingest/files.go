package ingest

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The files an index run reads, listed by one rule per kind of source.

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
