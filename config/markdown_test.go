package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ragbot/ragbot/config"
)

// TestCitationPrefix: a folder under the config's is cited by its path,
// cleaned; one elsewhere by nothing.
func TestCitationPrefix(t *testing.T) {
	for dir, want := range map[string]string{
		"docs": "docs", "./docs/": "docs", "handbook/ops": "handbook/ops",
		".": "", "..": "", "../wiki": "", "/srv/docs": "",
	} {
		if got := (config.Source{Path: dir}).CitationPrefix(); got != want {
			t.Errorf("CitationPrefix of %q = %q, want %q", dir, got, want)
		}
	}
}

// TestDirLinks: a markdown source links with its own template, else with
// that of the local git source whose folder holds it.
// TestDirLinks: a markdown folder links as the git source holding it,
// unless it has its own links; one outside any repository has none.
func TestDirLinks(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"repo/docs", "other"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.Parse([]byte(`sources:
  - {name: repo, kind: git, path: repo, link_template: "https://git.example.com/repo/{commit}/{path}"}
  - {name: handbook, kind: markdown, path: repo/docs}
  - {name: other, kind: markdown, path: other}
  - {name: own, kind: markdown, path: repo/docs, link_preset: gitea, web_url: "https://gitea.example.com/h"}
`), root, func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"handbook": "https://git.example.com/repo/{commit}/{path}", "other": "",
		"own": "https://gitea.example.com/h/src/commit/{commit}/{path}#L{start}-L{end}"}
	for _, s := range cfg.Sources[1:] {
		if got := cfg.DirLinks(s); got != want[s.Name] {
			t.Errorf("DirLinks(%s) = %q, want %q", s.Name, got, want[s.Name])
		}
	}
}
