package retrieval

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// oldWindow is a later window of a split Go function as ingest/code stored
// it before its windows were narrowed to non-blank ends: the signature, a
// "..." line, then file lines from..to (1-based) verbatim, blank ones at
// either end included.
func oldWindow(file []string, sig string, from, to int) Chunk {
	return Chunk{Kind: KindCode, Path: "config.go", Symbol: "Load", SymbolKind: "function", Language: "go",
		Signature: sig, Content: sig + "\n...\n" + strings.Join(file[from-1:to], "\n"),
		StartLine: from, EndLine: to, Ordinal: 1}
}

// envFile is a Go file whose lines 5-100 are in one function reading
// APP_<n> on line n for every n divisible by 5, with blank lines at 50-51
// and 98-100.
func envFile() (lines []string, sig string) {
	sig = "func Load() map[string]string {"
	lines = []string{"package config", "", `import "os"`, "", sig}
	for n := 6; n <= 100; n++ {
		switch {
		case n == 50 || n == 51 || n >= 98:
			lines = append(lines, "")
		case n%5 == 0:
			lines = append(lines, fmt.Sprintf("\tm[%q] = os.Getenv(%q)", "k", fmt.Sprintf("APP_%d", n)))
		default:
			lines = append(lines, fmt.Sprintf("\tn += %d", n))
		}
	}
	return append(lines, "\treturn m", "}"), sig
}

// TestContentLinesOldWindows checks that the lines of windows stored with a
// blank first or last line are numbered from the top: each body line is the
// file's line of its number, the header is the signature and "...".
func TestContentLinesOldWindows(t *testing.T) {
	file, sig := envFile()
	for _, r := range [][2]int{{40, 100}, {50, 99}, {51, 60}, {60, 102}} {
		c := oldWindow(file, sig, r[0], r[1])
		header, body := c.ContentLines()
		if want := []string{sig, "..."}; strings.Join(header, "\n") != strings.Join(want, "\n") {
			t.Errorf("%d-%d: header %q, want %q", r[0], r[1], header, want)
		}
		if len(body) != r[1]-r[0]+1 {
			t.Errorf("%d-%d: %d body lines, want %d", r[0], r[1], len(body), r[1]-r[0]+1)
		}
		for i, l := range body {
			if l != file[r[0]+i-1] {
				t.Errorf("%d-%d: body line %d is %q, want file line %d %q", r[0], r[1], i, l, r[0]+i, file[r[0]+i-1])
			}
		}
	}
}

// TestChunkSitesOldWindows checks that every site of a window stored with
// blank lines at its end is cited at the line that holds it.
func TestChunkSitesOldWindows(t *testing.T) {
	file, sig := envFile()
	for _, r := range [][2]int{{40, 100}, {51, 99}, {60, 102}} {
		c := oldWindow(file, sig, r[0], r[1])
		for n := r[0]; n <= r[1]; n++ {
			name := fmt.Sprintf("APP_%d", n)
			if !strings.Contains(file[n-1], name) {
				continue
			}
			var got []string
			for _, s := range chunkSites(c, regexp.MustCompile(`\b`+name+`\b`), false) {
				got = append(got, fmt.Sprintf("%d %s", s.line, s.text))
			}
			if want := fmt.Sprintf("%d %s", n, strings.TrimSpace(file[n-1])); len(got) != 1 || got[0] != want {
				t.Errorf("%d-%d: sites of %s = %q, want [%q]", r[0], r[1], name, got, want)
			}
		}
	}
}

// TestFocusSnippetOldWindow checks that a focused snippet of a window
// stored with blank last lines shows, below its header, the file's lines
// ShownStart..ShownEnd.
func TestFocusSnippetOldWindow(t *testing.T) {
	file, sig := envFile()
	c := oldWindow(file, sig, 20, 100)
	s := FocusSnippet(c, NewFocusTerms("where is APP_95 read"))
	if s.ShownStart == 0 {
		t.Fatalf("not focused: %q", s.Text)
	}
	lines := strings.Split(s.Text, "\n")
	if lines[0] != sig {
		t.Errorf("first line %q, want the signature %q", lines[0], sig)
	}
	var shown []string
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "... line") {
			shown = append(shown, l)
		}
	}
	if want := file[s.ShownStart-1 : s.ShownEnd]; strings.Join(shown, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines %d-%d shown as\n%s\nwant\n%s", s.ShownStart, s.ShownEnd, strings.Join(shown, "\n"), strings.Join(want, "\n"))
	}
}

// TestContentLinesDocWindow checks a later window of a long markdown
// section, which repeats its heading line verbatim (ingest/markdown) and
// ends with blank lines of its range: the heading is the header, and the
// blank lines are body lines.
func TestContentLinesDocWindow(t *testing.T) {
	c := Chunk{Kind: KindDoc, Path: "docs/ops.md", Symbol: "Ops > Setup", Signature: "## Setup",
		Content: "## Setup  \nSet APP_1 first.\n\nThen APP_2.\n\n", StartLine: 70, EndLine: 74, Ordinal: 1}
	header, body := c.ContentLines()
	if len(header) != 1 || header[0] != "## Setup  " {
		t.Errorf("header %q, want the heading line", header)
	}
	if want := []string{"Set APP_1 first.", "", "Then APP_2.", "", ""}; strings.Join(body, "|") != strings.Join(want, "|") {
		t.Errorf("body %q, want %q", body, want)
	}
	sites := chunkSites(c, regexp.MustCompile(`APP_2`), true)
	if len(sites) != 1 || sites[0].line != 72 {
		t.Errorf("sites of APP_2: %+v, want line 72", sites)
	}
}

// TestSiteClass classes lines that name APP_MODE, by the languages' docs
// (see siteClass): reads, sets and what passes it to another process,
// including comparisons, which read.
func TestSiteClass(t *testing.T) {
	tests := []struct {
		lang, line string
		mention    bool
		want       int
	}{
		{"go", `mode := os.Getenv("APP_MODE")`, false, classRead},
		{"go", `if v, ok := os.LookupEnv("APP_MODE"); ok {`, false, classRead},
		{"go", `v, _ := syscall.Getenv("APP_MODE")`, false, classRead},
		{"go", `mode := viper.GetString("APP_MODE")`, false, classRead},
		{"go", `os.Setenv("APP_MODE", "x")`, false, classSet},
		{"go", `t.Setenv("APP_MODE", "x")`, false, classSet},
		{"go", `os.Unsetenv("APP_MODE")`, false, classSet},
		{"go", `cmd.Env = append(os.Environ(), "APP_MODE=bench")`, false, classSet},
		{"go", `env := map[string]string{"APP_MODE": "x"}`, false, classSet},
		{"go", `const modeVar = "APP_MODE"`, false, classCode},
		{"go", `return fmt.Errorf("parse APP_MODE: %w", err)`, false, classCode},
		{"python", `mode = os.environ["APP_MODE"]`, false, classRead},
		{"python", `if os.environ["APP_MODE"] == "x":`, false, classRead},
		{"python", `mode = os.environ.get("APP_MODE", "")`, false, classRead},
		{"python", `mode = os.getenv("APP_MODE")`, false, classRead},
		{"python", `if "APP_MODE" not in os.environ:`, false, classRead},
		{"python", `os.environ["APP_MODE"] = "x"`, false, classSet},
		{"python", `os.environ.setdefault("APP_MODE", "x")`, false, classSet},
		{"python", `del os.environ["APP_MODE"]`, false, classSet},
		{"python", `monkeypatch.setenv("APP_MODE", "x")`, false, classSet},
		{"python", `env["APP_MODE"] = "bench"`, false, classSet},
		{"python", `subprocess.run(cmd, env={"APP_MODE": "bench"})`, false, classSet},
		{"python", `env = dict(os.environ, APP_MODE="bench")`, false, classSet},
		{"javascript", `const mode = process.env.APP_MODE || "dev";`, false, classRead},
		{"javascript", `if (process.env["APP_MODE"] === "x") {`, false, classRead},
		{"javascript", `const { APP_MODE, HOME } = process.env;`, false, classRead},
		{"typescript", `const mode = import.meta.env.APP_MODE;`, false, classRead},
		{"javascript", `process.env.APP_MODE = "x";`, false, classSet},
		{"javascript", `delete process.env.APP_MODE;`, false, classSet},
		{"javascript", `spawn("node", [], { env: { ...process.env, APP_MODE: "x" } });`, false, classSet},
		{"shell", `export APP_MODE=dev`, true, classSet},
		{"shell", `APP_MODE=dev go run .`, true, classSet},
		{"shell", `echo "mode: $APP_MODE"`, true, classMention},
		{"markdown", `Set APP_MODE=dev before you start.`, true, classMention},
		{"yaml", `APP_MODE: dev`, true, classMention},
	}
	c := newSiteClasses("APP_MODE")
	for _, tt := range tests {
		s := site{chunk: Chunk{Language: tt.lang}, text: tt.line, mention: tt.mention}
		if got := siteClass(s, c); got != tt.want {
			t.Errorf("%s %q: class %d, want %d (read %d, code %d, set %d, mention %d)", tt.lang, tt.line, got, tt.want, classRead, classCode, classSet, classMention)
		}
	}
}
