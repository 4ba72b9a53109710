package config

import (
	"path/filepath"
	"strings"
)

// CitationPrefix is what the chunk paths of a markdown folder source start
// with: its path as configured when it lies under the config's folder
// ("docs"), else nothing (an absolute or "../" path says nothing useful in
// a citation).
func (s Source) CitationPrefix() string {
	dir := s.Path
	p := filepath.ToSlash(filepath.Clean(dir))
	if filepath.IsAbs(dir) || p == "." || p == ".." || strings.HasPrefix(p, "../") {
		return ""
	}
	return p
}

// DirLinks is the link template of the markdown source md: its own
// (Links), or else that of the local git source whose repository holds
// the folder (the deepest, if several do), so that a docs folder of an
// indexed repository links like its code; "" when neither has one.
func (c *Config) DirLinks(md Source) string {
	if t := md.Links(); t != "" {
		return t
	}
	dir := filepath.Clean(c.Resolve(md.Path))
	best, depth := "", -1
	for _, s := range c.Sources {
		if s.Kind != KindGit || s.URL != "" || s.Links() == "" {
			continue
		}
		root := filepath.Clean(c.Resolve(s.Path))
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		if d := len(root); d > depth {
			best, depth = s.Links(), d
		}
	}
	return best
}
