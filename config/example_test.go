package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// examplePath is the example config at the repository root.
const examplePath = "../ragbot.example.yaml"

// uncomment returns the example with the commented-out list entry that
// starts "  # - name: NAME" turned into YAML: the entry's line and the
// following "  #   ..." lines lose their "# ". It fails the test when the
// example has no such entry.
func uncomment(t *testing.T, text, name string) string {
	t.Helper()
	lines := strings.Split(text, "\n")
	start := slices.IndexFunc(lines, func(l string) bool {
		return strings.HasPrefix(l, "  # - name: "+name+" ") || l == "  # - name: "+name
	})
	if start < 0 {
		t.Fatalf("%s has no commented-out source %q", examplePath, name)
	}
	lines[start] = "  " + strings.TrimPrefix(lines[start], "  # ")
	for i := start + 1; i < len(lines) && strings.HasPrefix(lines[i], "  #   "); i++ {
		lines[i] = "  " + strings.TrimPrefix(lines[i], "  # ")
	}
	return strings.Join(lines, "\n")
}

// TestExampleSources: the example is valid as it is, and stays valid with
// each commented-out source (and all of them at once) uncommented, given
// the files they name; each uncommented block becomes a source of its kind
// with the keys it shows.
func TestExampleSources(t *testing.T) {
	raw, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	example := string(raw)
	dir := t.TempDir()
	for _, d := range []string{"docs", "wiki-export", "api"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "api", "openapi.yaml"), []byte("openapi: 3.0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noEnv := func(string) (string, bool) { return "", false }
	parse := func(name, text string) *Config {
		t.Helper()
		cfg, err := Parse([]byte(text), dir, noEnv)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return cfg
	}
	base := parse("example as it is", example)
	want := map[string]string{"ops-runbooks": KindConfluence, "github-api": KindOpenAPI, "wiki-export": KindHTML}
	all := example
	for name, kind := range want {
		all = uncomment(t, all, name)
		cfg := parse("example with "+name, uncomment(t, example, name))
		if len(cfg.Sources) != len(base.Sources)+1 {
			t.Fatalf("with %s: %d sources, want %d", name, len(cfg.Sources), len(base.Sources)+1)
		}
		src, ok := cfg.SourceNamed(name)
		if !ok || src.Kind != kind {
			t.Errorf("with %s: source %+v, want kind %s", name, src, kind)
		}
		if kind == KindConfluence && (src.Flavour != FlavourCloud || len(src.Spaces) == 0 || src.TTLDuration == 0 || src.TokenEnv == "" || src.EmailEnv == "") {
			t.Errorf("confluence example: %+v", src.Confluence)
		}
	}
	if cfg := parse("example with every source", all); len(cfg.Sources) != len(base.Sources)+len(want) {
		t.Errorf("with every source: %d sources, want %d", len(cfg.Sources), len(base.Sources)+len(want))
	}
}

// TestExampleKeys: ragbot.example.yaml names every key a source takes, and
// every key of the other sections, commented out or not.
func TestExampleKeys(t *testing.T) {
	raw, err := os.ReadFile(examplePath)
	if err != nil {
		t.Fatal(err)
	}
	for typ, keys := range knownKeys() {
		for _, k := range keys {
			if !regexp.MustCompile(`[\s{,]` + regexp.QuoteMeta(k) + `:`).Match(raw) {
				t.Errorf("%s: key %s (%s) is not in the example", examplePath, k, typ)
			}
		}
	}
}
