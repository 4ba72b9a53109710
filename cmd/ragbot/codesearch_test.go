package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const csGo = `package auth

// checkLogin verifies the user's credentials against the stored hash.
func checkLogin(user, pass string) bool {
	h := lookupHash(user)
	return compareHash(h, pass)
}

// trimLines removes trailing whitespace from every line.
func trimLines(s string) string {
	out := strings.Split(s, "\n")
	for i := range out {
		out[i] = strings.TrimRight(out[i], " ")
	}
	return strings.Join(out, "\n")
}
`

// TestCodeSearchAdapt: with embedder.adapt the codesearch model is refined
// on the sources' (doc comment, code) pairs at index time, deterministically;
// other commands load the refined model; an index run on unchanged sources
// keeps it, even with --adapt.
func TestCodeSearchAdapt(t *testing.T) {
	repo, _ := gitRepo(t, map[string]string{"auth/login.go": csGo, "README.md": readme})
	cfgPath := filepath.Join(t.TempDir(), "ragbot.yaml")
	body := fmt.Sprintf(`weaviate: {url: "http://127.0.0.1:1"}
embedder: {kind: codesearch, adapt: true}
sources:
  - {name: auth, kind: git, path: %s}
`, repo)
	if err := os.WriteFile(cfgPath, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var stderr bytes.Buffer
	base, err := newEmbedder(ctx, cfg, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "no refined model exists yet") {
		t.Errorf("stderr %q: want a note that there is no refined model yet", stderr.String())
	}
	refined, err := refineStatic(ctx, cfg, false, &stderr) // index's refinement step
	if err != nil {
		t.Fatalf("refine: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "on 2 (doc comment, code) pairs") {
		t.Errorf("stderr %q: want the refinement on the 2 documented functions", stderr.String())
	}
	loaded, err := newEmbedder(ctx, cfg, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if refined.Name() == base.Name() || loaded.Name() != refined.Name() ||
		!strings.HasPrefix(refined.Name(), "codesearch-v1-") {
		t.Fatalf("embedders: base %s, refined %s, loaded %s; want the refined one loaded, with a new codesearch name",
			base.Name(), refined.Name(), loaded.Name())
	}
	stderr.Reset()
	again, err := refineStatic(ctx, cfg, true, &stderr) // index --adapt, sources unchanged
	if err != nil {
		t.Fatal(err)
	}
	if again.Name() != refined.Name() || strings.Contains(stderr.String(), "refining") {
		t.Errorf("index --adapt on unchanged sources: %s (stderr %q), want the kept %s", again.Name(), stderr.String(), refined.Name())
	}
	if err := os.Remove(adaptedPath(cfg, "codesearch")); err != nil {
		t.Fatal(err)
	}
	remade, err := refineStatic(ctx, cfg, false, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if remade.Name() != refined.Name() {
		t.Errorf("refining again gave %s, want the same model %s", remade.Name(), refined.Name())
	}
}
