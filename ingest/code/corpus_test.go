package code

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidGoParses chunks every file of this repository and, when
// RAGBOT_EVAL_CORPUS is set, of the alertmanager eval corpus under it, and
// fails for each Go file that go/parser accepts but that Chunk still reports
// with FallbackParseError: valid Go that tree-sitter-go does not know yet
// (see gapPatches). With -v it logs each tree's fallbacks by reason.
func TestValidGoParses(t *testing.T) {
	roots := []string{filepath.Join("..", "..")}
	if dir := os.Getenv("RAGBOT_EVAL_CORPUS"); dir != "" {
		roots = append(roots, filepath.Join(dir, "alertmanager@v0.35.0"))
	}
	for _, root := range roots {
		fallbacks := map[string]int{}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				if d != nil && (d.Name() == ".git" || d.Name() == "node_modules") {
					return filepath.SkipDir
				}
				return err
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			res := Chunk(filepath.ToSlash(rel), src, Options{})
			fallbacks[res.Fallback]++
			if res.Fallback != FallbackParseError || !strings.HasSuffix(p, ".go") {
				return nil
			}
			if _, err := parser.ParseFile(token.NewFileSet(), p, src, parser.SkipObjectResolution); err == nil {
				t.Errorf("%s: Fallback = %q, but go/parser accepts it", rel, res.Fallback)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: files by fallback: %v", root, fallbacks)
	}
}
